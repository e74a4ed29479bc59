/**
 * Sending to a receiving endpoint (test pings, verification, worker attempts)
 * without ever leaving the machine or resolving a name:
 *
 * - A URL whose host is non-public by `rules/addresses.ts` (an IP literal in a
 *   private, loopback, link-local or otherwise non-public range, in any notation, or
 *   a local-only name such as `localhost` or `*.internal`) is `blocked_address`.
 * - Exception: with `allowLoopbackTargets`, a loopback host (127.0.0.0/8, ::1,
 *   localhost) is really POSTed to over HTTPS, signed and with the custom headers;
 *   the dispatcher accepts self-signed certificates, and is only ever used for
 *   loopback addresses (`localhost` is connected to 127.0.0.1 without a lookup).
 * - Any other host is never contacted: the outcome is whatever the control plane
 *   set for that host (`PUT /_emulator/webhooks/targets/{host}`), default delivered 200
 *   with the challenge echoed.
 *
 * Requests are signed: `X-Webhook-Id`, `X-Webhook-Timestamp`, and
 * `X-Webhook-Signature: sha256=<hex HMAC-SHA256 of "<timestamp>.<body>" keyed with the endpoint secret>`.
 * Body: `{"id", "type", "created_at", "data"}`.
 */
import { createHmac } from "node:crypto";
import { Agent, request } from "undici";
import type { EmulatorContext } from "../core/context";
import { canonicalHost, isLoopbackHost, nonPublicHost } from "../../rules/addresses";
import { ENDPOINT_LIMITS } from "../../rules/endpoint";
import type { EndpointRecord } from "./endpoint-store";
import { dict } from "../core/dict";

export const FAILURE_REASONS = ["http_status", "timeout", "tls_failed", "dns_failed", "connection_failed", "blocked_address", "challenge_not_echoed", "url_changed"] as const;
export const DEFAULT_DELIVERY_TIMEOUT_MS = 15_000;
export const USER_AGENT = "svc-webhooks/0.11.33 (emulator)";

/** What the control plane says a host does. */
export interface TargetOutcome {
  /** `delivered`, or a failure reason. */
  result: "delivered" | (typeof FAILURE_REASONS)[number];
  /** Answer status (default 200 when delivered, 500 on `http_status`). */
  status_code?: number;
  /** Verify: does the subscriber echo the challenge (default true)? */
  echo_challenge?: boolean;
  latency_ms?: number;
}

export const DEFAULT_OUTCOME: TargetOutcome = { result: "delivered", status_code: 200, echo_challenge: true, latency_ms: 0 };

export function targetOutcomes(ctx: EmulatorContext): Record<string, TargetOutcome> {
  return ctx.store.product<Record<string, TargetOutcome>>("webhooks.targets", () => dict());
}

export interface SendResult {
  delivered: boolean;
  status_code: number | null;
  failure_reason: string | null;
  error: string | null;
  latency_ms: number;
}

/** The URL's host as `rules/addresses.ts` reads it (no IPv6 brackets, IPv4 dotted decimal). */
export function hostOf(url: string): string {
  const hostname = new URL(url).hostname;
  return canonicalHost(hostname) ?? hostname;
}

export interface Envelope {
  id: string;
  type: string;
  created_at: string;
  data: unknown;
}

/** Signature headers over the exact body. */
export function signatureHeaders(secret: string, id: string, timestamp: number, body: string): Record<string, string> {
  const sig = createHmac("sha256", secret).update(`${timestamp}.${body}`).digest("hex");
  return { "x-webhook-id": id, "x-webhook-timestamp": String(timestamp), "x-webhook-signature": `sha256=${sig}` };
}

/**
 * Send `envelope` to the endpoint. With `challenge`, also require the answer to echo it.
 * Resolves, never rejects: failures come back as a `failure_reason`.
 */
export async function sendToEndpoint(ctx: EmulatorContext, endpoint: EndpointRecord, envelope: Envelope, challenge?: string): Promise<SendResult> {
  const host = hostOf(endpoint.url);
  if (nonPublicHost(host)) {
    if (ctx.allowLoopbackTargets && isLoopbackHost(host)) return realSend(ctx, endpoint, envelope, challenge);
    return failed("blocked_address", `The host ${host} is not a public address; nothing was sent.`);
  }
  return controlledOutcome(targetOutcomes(ctx)[host] ?? targetOutcomes(ctx)["*"] ?? DEFAULT_OUTCOME, challenge);
}

function controlledOutcome(o: TargetOutcome, challenge: string | undefined): SendResult {
  const latency = o.latency_ms ?? 0;
  if (o.result === "delivered") {
    if (challenge !== undefined && o.echo_challenge === false) return { ...failed("challenge_not_echoed", "The endpoint answered 2xx but did not echo the challenge."), status_code: o.status_code ?? 200, latency_ms: latency };
    return { delivered: true, status_code: o.status_code ?? 200, failure_reason: null, error: null, latency_ms: latency };
  }
  if (o.result === "http_status") {
    const code = o.status_code ?? 500;
    return { ...failed("http_status", `The endpoint answered HTTP ${code}.`), status_code: code, latency_ms: latency };
  }
  return { ...failed(o.result, messageFor(o.result)), latency_ms: latency };
}

/** Only ever used for loopback targets: accepts their self-signed certificates. */
let loopbackAgent: Agent | undefined;
function loopbackDispatcher(): Agent {
  loopbackAgent ??= new Agent({
    connect: {
      rejectUnauthorized: false,
      // `localhost` goes to 127.0.0.1 without asking a resolver.
      lookup: (_host: string, opts: { all?: boolean }, cb: (err: Error | null, address: string | { address: string; family: number }[], family?: number) => void) =>
        opts?.all ? cb(null, [{ address: "127.0.0.1", family: 4 }]) : cb(null, "127.0.0.1", 4),
    } as never,
  });
  return loopbackAgent;
}

async function realSend(ctx: EmulatorContext, endpoint: EndpointRecord, envelope: Envelope, challenge: string | undefined): Promise<SendResult> {
  const body = JSON.stringify(envelope);
  const timestamp = Math.floor(ctx.now().getTime() / 1000);
  const headers: Record<string, string> = {
    ...endpoint.custom_headers,
    "content-type": "application/json",
    "user-agent": USER_AGENT,
    ...signatureHeaders(endpoint.secret, envelope.id, timestamp, body),
  };
  const timeout = Math.min(endpoint.delivery_timeout_ms ?? DEFAULT_DELIVERY_TIMEOUT_MS, ENDPOINT_LIMITS.deliveryTimeoutMaxMs);
  const started = performance.now();
  try {
    const res = await request(endpoint.url, { method: "POST", headers, body, dispatcher: loopbackDispatcher(), headersTimeout: timeout, bodyTimeout: timeout, signal: AbortSignal.timeout(timeout) });
    const text = await res.body.text();
    const latency = Math.round(performance.now() - started);
    if (res.statusCode < 200 || res.statusCode >= 300) return { ...failed("http_status", `The endpoint answered HTTP ${res.statusCode}.`), status_code: res.statusCode, latency_ms: latency };
    if (challenge !== undefined && !text.includes(challenge)) return { ...failed("challenge_not_echoed", "The endpoint answered 2xx but did not echo the challenge."), status_code: res.statusCode, latency_ms: latency };
    return { delivered: true, status_code: res.statusCode, failure_reason: null, error: null, latency_ms: latency };
  } catch (e) {
    const reason = reasonOfError(e);
    return { ...failed(reason, `${messageFor(reason)} (${(e as Error).message})`), latency_ms: Math.round(performance.now() - started) };
  }
}

function reasonOfError(e: unknown): SendResult["failure_reason"] & string {
  const err = e as { code?: string; name?: string; cause?: { code?: string } };
  const code = err.code ?? err.cause?.code ?? "";
  if (err.name === "TimeoutError" || err.name === "AbortError" || /TIMEOUT/.test(code)) return "timeout";
  if (code === "ENOTFOUND" || code === "EAI_AGAIN") return "dns_failed";
  if (/^ERR_TLS|^ERR_SSL|CERT|EPROTO/.test(code)) return "tls_failed";
  return "connection_failed";
}

function messageFor(reason: string): string {
  switch (reason) {
    case "timeout": return "The endpoint did not answer in time.";
    case "tls_failed": return "The TLS handshake with the endpoint failed.";
    case "dns_failed": return "The endpoint's host name did not resolve.";
    case "connection_failed": return "Could not connect to the endpoint.";
    case "blocked_address": return "The host is not a public address; nothing was sent.";
    case "challenge_not_echoed": return "The endpoint answered 2xx but did not echo the challenge.";
    case "url_changed": return "The endpoint URL changed while the challenge was out.";
    default: return `Delivery failed: ${reason}.`;
  }
}

function failed(reason: string, error: string): SendResult {
  return { delivered: false, status_code: null, failure_reason: reason, error, latency_ms: 0 };
}
