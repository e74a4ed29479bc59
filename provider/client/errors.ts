/**
 * The client's error types. Every refusal of the service becomes one SvcApiError
 * whose message a person can act on: what was called, the stable code and reason,
 * the details the service gave, and the request id to quote to support. Messages
 * never contain request bodies, headers or credentials.
 */

/** The `{"error": {...}}` body every Webhooks/Inboxes/Infrastructure refusal carries. */
export interface ApiErrorBody {
  code?: string;
  message?: string;
  request_id?: string;
  details?: Record<string, unknown>;
}

export interface SvcApiErrorInit {
  status: number;
  method: string;
  path: string;
  body?: ApiErrorBody;
  /** From the `X-Request-ID` response header, or the id we sent. */
  requestId?: string;
  /** Overrides the generated message (a resource's own explanation with the fix). */
  message?: string;
}

/** Detail keys whose values are never echoed into a message, whatever the service sent. */
const REDACTED_DETAIL_KEY = /secret|password|token|api[_-]?key|authorization|value/i;

export class SvcApiError extends Error {
  readonly status: number;
  /** Stable machine code (`quota_exceeded`, `conflict`, ...); `http_<status>` for an edge answer with no body. */
  readonly code: string;
  /** `details.reason` when the service gave one. */
  readonly reason: string | undefined;
  readonly details: Record<string, unknown>;
  readonly requestId: string | undefined;
  readonly method: string;
  readonly path: string;
  /** The service's own English text (never parsed). */
  readonly serviceMessage: string | undefined;

  constructor(init: SvcApiErrorInit) {
    const code = init.body?.code ?? `http_${init.status}`;
    const details = init.body?.details ?? {};
    const reason = typeof details.reason === "string" ? details.reason : undefined;
    const requestId = init.body?.request_id ?? init.requestId;
    super(init.message ?? describeApiError({ ...init, code, reason, details, requestId }));
    this.name = "SvcApiError";
    this.status = init.status;
    this.code = code;
    this.reason = reason;
    this.details = details;
    this.requestId = requestId;
    this.method = init.method;
    this.path = init.path;
    this.serviceMessage = init.body?.message;
  }

  /**
   * A 404 with no details (or no error body at all): the spec's answer for a path that
   * does not exist, as opposed to an object that does not (which names its kind). It
   * means a wrong base URL (one missing its product path), never "the object is gone".
   */
  get missingPath(): boolean {
    return this.status === 404 && (this.code === "http_404" || Object.keys(this.details).length === 0);
  }

  /** The same error with a message that explains the fix; keeps every field. */
  withMessage(message: string): SvcApiError {
    return new SvcApiError({
      status: this.status,
      method: this.method,
      path: this.path,
      body: { code: this.code, message: this.serviceMessage, request_id: this.requestId, details: this.details },
      requestId: this.requestId,
      message: `${message} (${this.method} ${this.path} → ${this.status} ${this.code}${this.reason ? `/${this.reason}` : ""}${this.requestId ? `, request id ${this.requestId}` : ""})`,
    });
  }
}

/** A request sent and then unanswered may have been acted on (an action such as rotate-secret, which is not sent twice). */
const mayHaveActed = (maybeSent: boolean) => (maybeSent ? " It was sent: the service may have acted on it, and the next run sees what it did." : "");

/** A request that never got an answer: connection refused, timed out or dropped. */
export class SvcConnectionError extends Error {
  constructor(
    readonly method: string,
    readonly path: string,
    /** undici's code, e.g. `UND_ERR_SOCKET`, `ECONNREFUSED`. */
    readonly failure: string,
    /** True when the request may have reached the service (so it may have acted). */
    readonly maybeSent: boolean,
    readonly requestId: string,
  ) {
    super(`${method} ${path}: no answer from the service (${failure}); request id ${requestId}.${mayHaveActed(maybeSent)} Check the address and the network, then run again.`);
    this.name = "SvcConnectionError";
  }

  /** The same error naming the address tried and the setting that holds it (`svc:webhooksUrl` or `SVC_WEBHOOKS_URL`). */
  at(baseUrl: string, setting: string): SvcConnectionError {
    const err = new SvcConnectionError(this.method, this.path, this.failure, this.maybeSent, this.requestId);
    err.message = `${this.method} ${this.path}: no answer from the service (${this.failure}) at ${baseUrl.replace(/\/+$/, "")}${this.path}; request id ${this.requestId}.${mayHaveActed(this.maybeSent)} Check ${setting} and the network, then run again.`;
    return err;
  }
}

/**
 * A create whose outcome is unknown: it was sent, and then the connection dropped,
 * timed out, or the service answered 5xx. The object may exist; creating again could
 * make a duplicate, so this is never retried, and the message says how to adopt it.
 */
export class SvcUnknownOutcomeError extends Error {
  constructor(
    readonly method: string,
    readonly path: string,
    readonly requestId: string,
    /** What happened: `no answer: UND_ERR_SOCKET`, `the service answered 503`. */
    readonly what: string,
    adoptHint: string,
  ) {
    super(
      `${method} ${path}: the request was sent but its outcome is unknown (${what}; request id ${requestId}). ` +
        `The object may have been created. It was not retried, to avoid a duplicate. ${adoptHint}`,
    );
    this.name = "SvcUnknownOutcomeError";
  }

  /** No answer came (a dropped connection): the request may still be in flight inside the service. */
  get unanswered(): boolean {
    return this.what.startsWith("no answer");
  }
}

function describeApiError(e: { status: number; method: string; path: string; code: string; reason?: string; details: Record<string, unknown>; requestId?: string; body?: ApiErrorBody }): string {
  const parts = [`${e.method} ${e.path} failed: ${e.status} ${e.code}${e.reason ? ` (${e.reason})` : ""}`];
  if (e.body?.message) parts.push(`: ${e.body.message}`);
  const shown = describeDetails(e.details);
  if (shown) parts.push(` [${shown}]`);
  if (e.requestId) parts.push(`; request id ${e.requestId}`);
  if (e.code === "invalid_credential") parts.push(". The key is not recognised: replace it (retrying never helps)");
  return parts.join("");
}

/** `details` as `key=value` pairs, validation entries as `loc: type (msg)`; secrets never shown. */
export function describeDetails(details: Record<string, unknown>): string {
  const out: string[] = [];
  for (const [key, value] of Object.entries(details)) {
    if (key === "reason") continue;
    if (key === "errors" && Array.isArray(value)) {
      for (const entry of value as { loc?: unknown[]; type?: string; msg?: string; params?: Record<string, unknown> }[]) {
        const params = entry.params ? ` ${JSON.stringify(entry.params)}` : "";
        out.push(`${(entry.loc ?? []).join(".")}: ${entry.type ?? "?"}${params}${entry.msg ? ` (${entry.msg})` : ""}`);
      }
      continue;
    }
    out.push(`${key}=${REDACTED_DETAIL_KEY.test(key) ? "[redacted]" : JSON.stringify(value)}`);
  }
  return out.join("; ");
}

/**
 * Is `e` a refusal of the service (with this status and code)? `isApiError(e, 404)` means
 * "no such object": a 404 for a path that does not exist (a wrong base URL) is not one,
 * so a wrong address never makes refresh drop a resource or delete count it as gone.
 */
export const isApiError = (e: unknown, status?: number, code?: string): e is SvcApiError =>
  e instanceof SvcApiError && (status === undefined || e.status === status) && (code === undefined || e.code === code) && !(status === 404 && e.missingPath);
