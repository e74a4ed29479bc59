/**
 * Operational endpoints (spec document 2, "Operational endpoints and workspace";
 * the type names are design/api-assumptions.md's, as the spec does not show them).
 */
import { textViolations } from "./text";
import type { RuleViolation } from "./types";

export const OPERATIONAL_EVENT_TYPES = [
  "endpoint.auto_disabled",
  "endpoint.enabled",
  "delivery.dead",
  "source.signature_failed",
  "quota.warning",
  "usage.threshold_reached",
] as const;
export type OperationalEventType = (typeof OPERATIONAL_EVENT_TYPES)[number];

/**
 * `webhooks.url_not_https` for a URL string whose scheme is not https (a string
 * that is no URL at all is `url_parsing`). Exported for any rule needing an https URL.
 */
export function httpsUrlViolations(url: unknown, path: (string | number)[]): RuleViolation[] {
  if (typeof url !== "string") return [];
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return [{ path, type: "url_parsing", msg: "Input should be a valid URL" }];
  }
  return parsed.protocol === "https:" ? [] : [{ path, type: "webhooks.url_not_https", msg: "The URL must use https." }];
}

/** Violations of an operational endpoint body (`url`, `event_types`). */
export function operationalEndpointViolations(body: Record<string, unknown>): RuleViolation[] {
  const out = [...httpsUrlViolations(body.url, ["url"]), ...textViolations(body, { multiLine: ["description"] })];
  if (Array.isArray(body.event_types)) {
    body.event_types.forEach((name, i) => {
      if (typeof name === "string" && !(OPERATIONAL_EVENT_TYPES as readonly string[]).includes(name)) {
        out.push({ path: ["event_types", i], type: "webhooks.unknown_operational_event_type", msg: `Unknown operational event type "${name}"; known: ${OPERATIONAL_EVENT_TYPES.join(", ")}.` });
      }
    });
  }
  return out;
}
