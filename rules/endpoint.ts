/**
 * Receiving-endpoint rules of spec document 2 (Limits), as pure functions shared by
 * the emulator (which enforces them on create and PATCH) and the provider's `check`.
 *
 * Locations (`path`, under the request body):
 * - every custom-header entry is on `["custom_headers"]` (the spec: "loc
 *   `body,custom_headers` unless stated"); the offending header name is in `msg`.
 * - a retry delay is on `["retry_schedule", index]`.
 * - `url` on `["url"]`, `delivery_timeout_ms` on `["delivery_timeout_ms"]`,
 *   a subscription pattern on `["subscriptions", index, "event_type"]`.
 *
 * Type checks (is `url` a string, are delays numbers) belong to the caller's schema;
 * these rules skip values of the wrong type rather than double-report them.
 */
import { controlCharacterViolation } from "./text";
import type { RuleViolation } from "./types";

export const ENDPOINT_LIMITS = {
  customHeaderCount: 20,
  customHeaderValueLength: 1024,
  customHeadersTotalBytes: 8192,
  retryDelayMaxSeconds: 604800,
  deliveryTimeoutMaxMs: 60000,
} as const;

/**
 * Bounds the spec does not show ("not shown"): our assumptions, enforced by the
 * emulator and checked by the provider at preview. One place, so they are easy to
 * change if the real service differs.
 */
export const ASSUMED_ENDPOINT_BOUNDS = {
  urlMaxLength: 2048,
  subscriptionsMax: 100,
  subscriptionPatternMaxLength: 255,
  secretMaxLength: 256,
  retryScheduleMaxEntries: 50,
  descriptionMaxLength: 1024,
  /** Above every plan's ceiling (enterprise 30): a sensible bound that holds even when the plan cannot be read. */
  maxAttemptsMax: 100,
} as const;

/**
 * Names a header may not have: they are the keys of every JavaScript object's
 * prototype, which a JSON body or a program's object literal drops or mistakes for
 * something else (`{"__proto__": ...}` sets no header), so they are refused, not lost.
 */
export const PROTOTYPE_KEY_NAMES: readonly string[] = ["__proto__", "constructor", "prototype"];

/** The message for a header named like a prototype key (shared with the SDK, which sees it before serialization drops it). */
export const prototypeKeyHeaderMessage = (name: string) =>
  `Header name '${name}' is a JavaScript prototype key (${PROTOTYPE_KEY_NAMES.join(", ")}): it would be dropped, not sent. Use another name.`;

/** Headers the service sets itself on every delivery; `X-Webhook-` is a managed prefix. */
export const MANAGED_HEADER_NAMES: string[] = ["Content-Type", "User-Agent"];
export const MANAGED_HEADER_PREFIX = "X-Webhook-";

/** Hop-by-hop and connection-level names a custom header may not set. */
export const HOP_BY_HOP_HEADER_NAMES: string[] = [
  "Host", "Connection", "Keep-Alive", "Transfer-Encoding", "TE", "Trailer", "Upgrade",
  "Proxy-Authorization", "Proxy-Authenticate", "Proxy-Connection", "Content-Length",
];

/** RFC 9110 `token`: the characters a header name may consist of. */
const HTTP_TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

const lower = (names: string[]) => new Set(names.map((n) => n.toLowerCase()));
const MANAGED = lower(MANAGED_HEADER_NAMES);
const HOP_BY_HOP = lower(HOP_BY_HOP_HEADER_NAMES);

export interface EndpointRuleInput {
  url?: unknown;
  custom_headers?: Record<string, string> | null;
  retry_schedule?: number[] | null;
  delivery_timeout_ms?: number | null;
  subscriptions?: { event_type: string }[] | null;
  description?: unknown;
  max_attempts?: unknown;
}

/** Every documented endpoint limit the body breaks, in field order (url, headers, retries, timeout, subscriptions). */
export function endpointViolations(body: EndpointRuleInput): RuleViolation[] {
  const out: RuleViolation[] = [];
  if (typeof body.url === "string" && !isHttpsUrl(body.url)) {
    out.push({ path: ["url"], type: "webhooks.url_not_https", msg: "The endpoint URL must be an absolute https:// URL." });
  }
  if (body.custom_headers) out.push(...customHeaderViolations(body.custom_headers));
  if (body.retry_schedule) out.push(...retryScheduleViolations(body.retry_schedule));
  if (typeof body.delivery_timeout_ms === "number") {
    const t = body.delivery_timeout_ms;
    if (t > ENDPOINT_LIMITS.deliveryTimeoutMaxMs) {
      out.push({ path: ["delivery_timeout_ms"], type: "less_than_equal", msg: `Input should be less than or equal to ${ENDPOINT_LIMITS.deliveryTimeoutMaxMs}`, params: { limit: ENDPOINT_LIMITS.deliveryTimeoutMaxMs } });
    } else if (t < 1) {
      out.push({ path: ["delivery_timeout_ms"], type: "greater_than_equal", msg: "Input should be greater than or equal to 1", params: { limit: 1 } });
    }
  }
  const maxAttempts = body.max_attempts;
  if (typeof maxAttempts === "number" && maxAttempts > ASSUMED_ENDPOINT_BOUNDS.maxAttemptsMax) {
    const limit = ASSUMED_ENDPOINT_BOUNDS.maxAttemptsMax;
    out.push({ path: ["max_attempts"], type: "less_than_equal", msg: `Input should be less than or equal to ${limit}`, params: { limit } });
  }
  const description = controlCharacterViolation(body.description, ["description"], { multiLine: true });
  if (description) out.push(description);
  if (body.subscriptions) {
    body.subscriptions.forEach((s, i) => {
      if (typeof s?.event_type === "string" && !isValidSubscriptionPattern(s.event_type)) {
        out.push({ path: ["subscriptions", i, "event_type"], type: "webhooks.subscription_pattern_invalid", msg: `Pattern '${s.event_type}' has an empty segment; use dot-separated names, '*' or '**'.` });
      }
    });
  }
  return out;
}

function customHeaderViolations(headers: Record<string, string>): RuleViolation[] {
  const out: RuleViolation[] = [];
  const at = ["custom_headers"];
  const names = Object.keys(headers);
  const max = ENDPOINT_LIMITS.customHeaderCount;
  if (names.length > max) out.push({ path: at, type: "too_long", msg: `At most ${max} custom headers are allowed.`, params: { count: max } });

  let totalBytes = 0;
  // Header names are case-insensitive: a delivery can carry only one of `X-A` and `x-a`.
  const firstByKey = new Map<string, string>();
  for (const name of names) {
    const value = headers[name];
    totalBytes += Buffer.byteLength(name, "utf8") + (typeof value === "string" ? Buffer.byteLength(value, "utf8") : 0);
    const key = name.toLowerCase();
    const first = firstByKey.get(key);
    if (first === undefined) firstByKey.set(key, name);
    else out.push({ path: at, type: "webhooks.custom_header_duplicate", msg: `Header names '${printable(first)}' and '${printable(name)}' differ only in case; header names are case-insensitive, so a delivery can carry only one.` });
    if (PROTOTYPE_KEY_NAMES.includes(key)) {
      out.push({ path: at, type: "webhooks.custom_header_name_invalid", msg: prototypeKeyHeaderMessage(name) });
    } else if (!HTTP_TOKEN.test(name)) {
      out.push({ path: at, type: "webhooks.custom_header_name_invalid", msg: `Header name '${printable(name)}' is not a valid HTTP token.` });
    } else if (MANAGED.has(key) || key.startsWith(MANAGED_HEADER_PREFIX.toLowerCase())) {
      out.push({ path: at, type: "webhooks.custom_header_managed", msg: `Header '${name}' is set by the service and cannot be customised.` });
    } else if (HOP_BY_HOP.has(key)) {
      out.push({ path: at, type: "webhooks.custom_header_forbidden", msg: `Header '${name}' is a hop-by-hop header and cannot be sent.` });
    }
    if (typeof value !== "string") continue;
    const valueMax = ENDPOINT_LIMITS.customHeaderValueLength;
    if (value.length > valueMax) {
      out.push({ path: at, type: "webhooks.custom_header_value_too_long", msg: `Value of header '${printable(name)}' is longer than ${valueMax} characters.`, params: { count: valueMax } });
    }
    if (/[^\x00-\x7f]/.test(value)) {
      out.push({ path: at, type: "webhooks.custom_header_not_ascii", msg: `Value of header '${printable(name)}' must be ASCII.` });
    } else if (/[\x00-\x1f\x7f]/.test(value)) {
      out.push({ path: at, type: "webhooks.custom_header_control_character", msg: `Value of header '${printable(name)}' contains a control character or line break.` });
    }
  }
  const limit = ENDPOINT_LIMITS.customHeadersTotalBytes;
  if (totalBytes > limit) out.push({ path: at, type: "webhooks.custom_headers_too_large", msg: `Custom header names plus values take ${totalBytes} bytes; at most ${limit} are allowed.`, params: { limit } });
  return out;
}

function retryScheduleViolations(schedule: number[]): RuleViolation[] {
  const limit = ENDPOINT_LIMITS.retryDelayMaxSeconds;
  const out: RuleViolation[] = [];
  schedule.forEach((delay, i) => {
    if (typeof delay === "number" && !(delay >= 0 && delay <= limit)) {
      out.push({ path: ["retry_schedule", i], type: "webhooks.retry_delay_out_of_range", msg: `Retry delay must be between 0 and ${limit} seconds.`, params: { limit } });
    }
  });
  return out;
}

/** `webhooks.max_attempts_above_plan` when `maxAttempts` passes the plan's ceiling. */
export function maxAttemptsViolation(maxAttempts: number, planCeiling: number): RuleViolation | undefined {
  if (maxAttempts <= planCeiling) return undefined;
  return { path: ["max_attempts"], type: "webhooks.max_attempts_above_plan", msg: `max_attempts ${maxAttempts} is above the plan's ceiling of ${planCeiling}.`, params: { count: planCeiling } };
}

/** A pattern is one or more non-empty dot-separated segments. */
export function isValidSubscriptionPattern(pattern: string): boolean {
  return pattern.length > 0 && pattern.split(".").every((s) => s.length > 0);
}

/**
 * Does a subscription pattern match an event type name? Whole dot-separated names:
 * `*` is exactly one segment, `**` one or more, any other segment is literal
 * (`order.*` matches `order.created` but not `order.item.added`; `order.**` both).
 */
export function subscriptionMatches(pattern: string, eventType: string): boolean {
  if (!isValidSubscriptionPattern(pattern) || eventType.length === 0) return false;
  return matchSegments(pattern.split("."), 0, eventType.split("."), 0);
}

function matchSegments(pat: string[], p: number, name: string[], n: number): boolean {
  if (p === pat.length) return n === name.length;
  const seg = pat[p]!;
  if (seg === "**") {
    // One or more segments: try every non-empty run.
    for (let end = n + 1; end <= name.length; end++) if (matchSegments(pat, p + 1, name, end)) return true;
    return false;
  }
  if (n === name.length) return false;
  return (seg === "*" || seg === name[n]) && matchSegments(pat, p + 1, name, n + 1);
}

/** An absolute `https://` URL with a host. */
export function isHttpsUrl(url: string): boolean {
  try {
    const u = new URL(url);
    return u.protocol === "https:" && u.hostname.length > 0;
  } catch {
    return false;
  }
}

function printable(s: string): string {
  return JSON.stringify(s).slice(1, -1);
}
