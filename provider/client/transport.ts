/**
 * HTTP transport: undici with ONE keep-alive Agent per process, created lazily on
 * first use inside the plugin (module state is never reached by the serialized
 * provider shim, so no socket pool or key is ever captured into `__provider`).
 *
 * Every call gets `User-Agent: pulumi-svc/<version>` and its own `X-Request-ID`;
 * a request's own retries happen here (retry.ts says what else is ever sent again:
 * creates by reconciliation, refused deletes). Every attempt first takes a
 * place from its connection's traffic controller (pacing.ts).
 */
import { randomUUID } from "node:crypto";
import { Agent, request as undiciRequest } from "undici";
import { USER_AGENT } from "../version";
import { SvcApiError, SvcConnectionError, SvcUnknownOutcomeError, type ApiErrorBody } from "./errors";
import { pacerFor, type Ceilings, type Pacer, type PacingOutcome } from "./pacing";
import { decideRetry, DEFAULT_RETRY_POLICY, retryAfterMs, type AttemptOutcome, type RetryPolicy } from "./retry";
import { ServiceClock } from "./service-clock";
import { record } from "./stats";

export type HttpMethod = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";

export const TIMEOUTS = { connectMs: 10_000, headersMs: 30_000, bodyMs: 30_000, keepAliveMs: 30_000 };

let sharedAgent: Agent | undefined;

/** The process's one dispatcher; created on first request. */
export function sharedDispatcher(): Agent {
  sharedAgent ??= new Agent({
    connectTimeout: TIMEOUTS.connectMs,
    headersTimeout: TIMEOUTS.headersMs,
    bodyTimeout: TIMEOUTS.bodyMs,
    keepAliveTimeout: TIMEOUTS.keepAliveMs,
  });
  return sharedAgent;
}

/** Close the shared dispatcher (tests; the plugin just exits). */
export async function closeSharedDispatcher(): Promise<void> {
  const agent = sharedAgent;
  sharedAgent = undefined;
  await agent?.close();
}

export interface RequestOptions {
  method: HttpMethod;
  /** Path under the product's base URL, e.g. `/v1/endpoints/ep_1`. */
  path: string;
  query?: Record<string, string | number | boolean | undefined | null>;
  body?: unknown;
  /**
   * May this exact request be sent twice without harm? Defaults: GET, PUT, PATCH,
   * DELETE yes; POST no. A POST action that is idempotent (e.g. `enable`) says so.
   */
  safeToRepeat?: boolean;
  /**
   * For a create: what to tell the person when the outcome is unknown (how to
   * adopt the object if it exists). Makes a sent-then-failed request an
   * SvcUnknownOutcomeError instead of a plain error.
   */
  adoptHint?: string;
}

export interface ClientOptions {
  /** Product base URL, e.g. `http://127.0.0.1:4010/webhooks`. */
  baseUrl: string;
  apiKey: string;
  retry?: Partial<RetryPolicy>;
  /** Fixed ceilings of the connection (`svc:maxConcurrency`, `svc:requestsPerSecond`); the latest given apply. */
  pacing?: Ceilings;
  /** The setting that holds `baseUrl` (`svc:webhooksUrl (or SVC_WEBHOOKS_URL)`), named when the service does not answer. */
  addressSetting?: string;
}

export interface Response<T> {
  status: number;
  body: T;
  requestId: string;
}

export class SvcClient {
  private readonly baseUrl: string;
  private readonly policy: RetryPolicy;
  private readonly pacer: Pacer;
  private readonly addressSetting: string | undefined;
  // A getter over a closure instead of a field: the key stays out of enumerable
  // state, so it cannot be printed by a debugger dump or JSON.stringify(client).
  private readonly authorization: () => string;
  private writes = 0;
  /** The service's clock as its answers date them (service-clock.ts). */
  readonly serviceClock = new ServiceClock();

  /** Requests other than GET sent so far: a read cache made before a write is stale. */
  get writeCount(): number {
    return this.writes;
  }

  constructor(options: ClientOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, "");
    this.policy = { ...DEFAULT_RETRY_POLICY, ...options.retry };
    const header = `Bearer ${options.apiKey}`;
    this.authorization = () => header;
    this.pacer = pacerFor(this.baseUrl, options.apiKey, options.pacing);
    this.addressSetting = options.addressSetting;
  }

  /** A request that got no answer: say where it went and which setting holds the address. */
  private withAddress(err: Error): Error {
    if (this.addressSetting === undefined) return err;
    if (err instanceof SvcConnectionError) return err.at(this.baseUrl, this.addressSetting);
    if (err instanceof SvcUnknownOutcomeError && err.unanswered) err.message = `${err.message} (The service at ${this.baseUrl} did not answer; its address is ${this.addressSetting}.)`;
    return err;
  }

  async request<T = unknown>(options: RequestOptions): Promise<Response<T>> {
    // The retry budget counts this request's attempts and the waits it asked for, not
    // time queued behind other requests of the connection: under sustained limiting
    // at 1,000 resources the queue alone can be longer than the budget.
    let ownMs = 0;
    // Retries after a 429 that named its wait are paced, bounded by the budget, not by maxRetries.
    let counted = 0;
    const safeToRepeat = options.safeToRepeat ?? options.method !== "POST";
    const pathWithQuery = options.path + queryString(options.query);
    const payload = options.body !== undefined ? JSON.stringify(options.body) : undefined;
    record.request();
    if (options.method !== "GET") this.writes++;
    for (let attempt = 0; ; attempt++) {
      const slot = await this.pacer.acquire(attempt > 0);
      const attemptStarted = Date.now();
      record.attempt();
      const requestId = `pulumi-svc-${randomUUID()}`;
      let outcome: AttemptOutcome;
      let failure: Error;
      let pacing: PacingOutcome = { kind: "other" };
      try {
        const res = await undiciRequest(this.baseUrl + pathWithQuery, {
          method: options.method,
          dispatcher: sharedDispatcher(),
          // A flat [name, value, ...] list: undici takes it as is, without walking an object's keys.
          headers: [
            "authorization", this.authorization(),
            "user-agent", USER_AGENT,
            "x-request-id", requestId,
            "accept", "application/json",
            ...(payload !== undefined ? ["content-type", "application/json"] : []),
          ],
          body: payload,
        });
        const text = await res.body.text();
        this.serviceClock.observe(headerValue(res.headers["date"]), Date.now());
        const answeredId = headerValue(res.headers["x-request-id"]) ?? requestId;
        const parsed = parseJson(text);
        if (res.statusCode < 400) {
          pacing = { kind: "ok" };
          return { status: res.statusCode, body: parsed as T, requestId: answeredId };
        }
        const errorBody = (parsed as { error?: ApiErrorBody } | undefined)?.error;
        failure = new SvcApiError({ status: res.statusCode, method: options.method, path: options.path, body: errorBody, requestId: answeredId });
        outcome = {
          kind: "response",
          status: res.statusCode,
          retryAfterHeader: headerValue(res.headers["retry-after"]),
          retryAfterDetail: errorBody?.details?.retry_after,
        };
        pacing = pacingOutcome(outcome);
        if (res.statusCode >= 500 && options.adoptHint) {
          failure = new SvcUnknownOutcomeError(options.method, options.path, answeredId, `the service answered ${res.statusCode}`, options.adoptHint);
        }
      } catch (e) {
        const code = (e as { code?: string }).code ?? (e as Error).name;
        const maybeSent = !NEVER_SENT_CODES.has(code);
        outcome = { kind: "network", maybeSent };
        failure =
          maybeSent && options.adoptHint
            ? new SvcUnknownOutcomeError(options.method, options.path, requestId, `no answer: ${code}`, options.adoptHint)
            : new SvcConnectionError(options.method, options.path, code, maybeSent, requestId);
      } finally {
        if (pacing.kind !== "throttled") slot.release(pacing);
      }
      ownMs += Date.now() - attemptStarted;
      const decision = decideRetry(outcome, { retriesSoFar: counted, elapsedMs: ownMs, safeToRepeat, policy: this.policy });
      // A wait beyond the budget is not waited: it does not pause the connection either.
      if (pacing.kind === "throttled") slot.release(decision.retry ? pacing : { kind: "other" });
      const cause = outcome.kind === "response" ? String(outcome.status) : "network";
      if (!decision.retry) {
        record.failure(cause);
        if (failure instanceof SvcUnknownOutcomeError) record.unknownOutcome({ method: options.method, path: options.path, requestId: failure.requestId, what: failure.what });
        throw this.withAddress(failure);
      }
      record.retry(cause, decision.delayMs);
      ownMs += decision.delayMs;
      // A throttled request waits out the connection's pause in acquire(), with every other.
      if (pacing.kind === "throttled" && pacing.retryAfterMs > 0) continue;
      counted++;
      await new Promise((resolve) => setTimeout(resolve, decision.delayMs));
    }
  }

  /**
   * Every item of a `{data, total, limit, offset}` list, page after page. With
   * `maxItems`, a list holding more (by its `total`, else by what came) is not walked
   * to the end: ListTooLongError after the page that shows it.
   */
  async listAll<T>(path: string, query: RequestOptions["query"] = {}, pageSize = 200, maxItems = Number.POSITIVE_INFINITY): Promise<T[]> {
    const items: T[] = [];
    for (let offset = 0; ; ) {
      const page = await this.request<{ data: T[]; total?: number }>({ method: "GET", path, query: { ...query, limit: pageSize, offset } });
      // An answer that is no list page must not pass for an empty list (a reconciliation would create again).
      if (!Array.isArray(page.body?.data)) throw new Error(`GET ${path} did not answer a list page ({data, total, limit, offset}).`);
      const data = page.body.data;
      items.push(...data);
      offset += data.length;
      if ((typeof page.body.total === "number" ? page.body.total : offset) > maxItems) throw new ListTooLongError(path, maxItems);
      if (data.length === 0 || (typeof page.body.total === "number" ? offset >= page.body.total : data.length < pageSize)) return items;
    }
  }

  /**
   * Every item of an infrastructure cursor list (`{items, pagination: {next_cursor}}`),
   * following `next_cursor` exactly as given until it is null (the only end signal).
   * A cursor is never parsed, built, or sent with other filters: each walk starts
   * without one and keeps `query` fixed, so changing filters means a new walk.
   */
  async listAllByCursor<T>(path: string, query: RequestOptions["query"] = {}, pageSize = 200): Promise<T[]> {
    const items: T[] = [];
    const seen = new Set<string>();
    for (let cursor: string | undefined; ; ) {
      const page = await this.request<{ items?: T[]; pagination?: { next_cursor?: string | null } }>({ method: "GET", path, query: { ...query, limit: pageSize, cursor } });
      items.push(...(page.body?.items ?? []));
      const next = page.body?.pagination?.next_cursor;
      if (next === null || next === undefined) return items;
      if (seen.has(next)) throw new Error(`GET ${path}: the service returned a cursor it had already given; stopping instead of looping.`);
      seen.add(next);
      cursor = next;
    }
  }
}

/** A list longer than the caller wanted to walk (listAll's `maxItems`). */
export class ListTooLongError extends Error {
  constructor(
    readonly path: string,
    readonly maxItems: number,
  ) {
    super(`GET ${path} lists more than ${maxItems} items.`);
    this.name = "ListTooLongError";
  }
}

/** A 429 naming its wait pauses the connection; a 503 (or a 429 naming none) only shrinks its window. */
function pacingOutcome(outcome: AttemptOutcome & { kind: "response" }): PacingOutcome {
  if (outcome.status === 429) {
    if (outcome.retryAfterHeader !== undefined && outcome.retryAfterHeader.trim() === "") return { kind: "other" }; // a quota refusal
    const wait = retryAfterMs(outcome.retryAfterHeader, outcome.retryAfterDetail);
    return wait === undefined ? { kind: "overloaded" } : { kind: "throttled", retryAfterMs: wait };
  }
  return outcome.status === 503 ? { kind: "overloaded" } : { kind: "other" };
}

/** undici codes meaning the request never left: the service cannot have acted on it. */
const NEVER_SENT_CODES = new Set(["ECONNREFUSED", "UND_ERR_CONNECT_TIMEOUT", "ENOTFOUND", "EAI_AGAIN", "ConnectTimeoutError"]);

function headerValue(v: string | string[] | undefined): string | undefined {
  return Array.isArray(v) ? v[0] : v;
}

function parseJson(text: string): unknown {
  if (!text) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function queryString(query: RequestOptions["query"]): string {
  if (!query) return "";
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) if (v !== undefined && v !== null) params.set(k, String(v));
  const s = params.toString();
  return s ? `?${s}` : "";
}
