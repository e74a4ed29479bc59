/**
 * Inboxes field rules (spec document 3, "Inbox"; shared/design/api-assumptions.md).
 * Shared by the emulator (which enforces them on POST/PATCH /v1/inboxes) and the
 * provider's `check` (which predicts them at preview).
 *
 * Create body: `label` (string, at most 200), `phrase` (boolean), `expires_in_minutes`
 * (integer 1 to 525,600, or null), `transport` (`email` | `http`; default `email`).
 * Update body: `label`, `status`, `phrase`, each nullable; `transport` and
 * `expires_in_minutes` are create-only and refused on update (`extra_forbidden`),
 * as is any unknown member.
 */
import { textViolations } from "./text";
import type { RuleViolation } from "./types";

export const INBOX_LIMITS = {
  /** Spec: at most 200 characters (422 `string_too_long`, `params.count` 200). */
  labelMaxLength: 200,
  /** Smallest `expires_in_minutes` (our decision: a positive whole number of minutes). */
  expiresInMinutesMin: 1,
  /**
   * Largest `expires_in_minutes`: 525,600 (365 days). The spec states no bound; ours
   * keeps the expiry a real date (1e15 minutes is past any date a clock can hold) and a
   * disposable inbox disposable. 422 `less_than_equal`, `params.limit` 525600.
   */
  expiresInMinutesMax: 525_600,
} as const;

export const INBOX_TRANSPORTS = ["email", "http"] as const;
export type InboxTransport = (typeof INBOX_TRANSPORTS)[number];
export const INBOX_DEFAULT_TRANSPORT: InboxTransport = "email";

/** api-assumptions: `status` is `active` or `paused`. */
export const INBOX_STATUSES = ["active", "paused"] as const;
export type InboxStatus = (typeof INBOX_STATUSES)[number];

const CREATE_FIELDS = ["label", "phrase", "expires_in_minutes", "transport"];
const UPDATE_FIELDS = ["label", "phrase", "status"];

/** The plan feature that setting `phrase` needs (402 `not_entitled` without it). */
export const PHRASE_FEATURE = "optional_phrase_gate";

/**
 * Does this create or update body need the `optional_phrase_gate` feature?
 * Our decision: any non-null `phrase` (create or PATCH) needs it; a null `phrase`
 * on update (back to the default, off) never does.
 */
export function inboxNeedsPhraseGate(body: Record<string, unknown>): boolean {
  return body.phrase !== undefined && body.phrase !== null;
}

/** Every rule violation of an inbox create (`creating: true`) or update body. */
export function inboxViolations(body: Record<string, unknown>, { creating }: { creating: boolean }): RuleViolation[] {
  const out: RuleViolation[] = [];
  const allowed = creating ? CREATE_FIELDS : UPDATE_FIELDS;
  for (const name of Object.keys(body)) {
    if (!allowed.includes(name)) {
      const why = CREATE_FIELDS.includes(name) ? `${name} can only be set when the inbox is created` : "Extra inputs are not permitted";
      out.push({ path: [name], type: "extra_forbidden", msg: why });
    }
  }

  const { label, phrase } = body;
  // Nullable on update only; on create a label is a string or absent.
  if (label !== undefined && !(label === null && !creating)) {
    if (typeof label !== "string") out.push({ path: ["label"], type: "string_type", msg: "Input should be a valid string" });
    else if ([...label].length > INBOX_LIMITS.labelMaxLength) {
      out.push({ path: ["label"], type: "string_too_long", msg: `String should have at most ${INBOX_LIMITS.labelMaxLength} characters`, params: { count: INBOX_LIMITS.labelMaxLength } });
    }
  }
  out.push(...textViolations(body, { singleLine: ["label"] }));
  if (phrase !== undefined && !(phrase === null && !creating) && typeof phrase !== "boolean") {
    out.push({ path: ["phrase"], type: "bool_type", msg: "Input should be a valid boolean" });
  }

  if (creating) {
    const minutes = body.expires_in_minutes;
    if (minutes !== undefined && minutes !== null) {
      if (typeof minutes !== "number" || !Number.isInteger(minutes)) out.push({ path: ["expires_in_minutes"], type: "int_type", msg: "Input should be a valid integer" });
      else if (minutes < INBOX_LIMITS.expiresInMinutesMin) {
        out.push({ path: ["expires_in_minutes"], type: "greater_than_equal", msg: `Input should be greater than or equal to ${INBOX_LIMITS.expiresInMinutesMin}`, params: { limit: INBOX_LIMITS.expiresInMinutesMin } });
      } else if (minutes > INBOX_LIMITS.expiresInMinutesMax) {
        out.push({ path: ["expires_in_minutes"], type: "less_than_equal", msg: `Input should be less than or equal to ${INBOX_LIMITS.expiresInMinutesMax} (365 days)`, params: { limit: INBOX_LIMITS.expiresInMinutesMax } });
      }
    }
    const transport = body.transport;
    if (transport !== undefined && !INBOX_TRANSPORTS.includes(transport as InboxTransport)) {
      out.push({ path: ["transport"], type: "enum", msg: "Input should be 'email' or 'http'" });
    }
  } else {
    const status = body.status;
    if (status !== undefined && status !== null && !INBOX_STATUSES.includes(status as InboxStatus)) {
      out.push({ path: ["status"], type: "enum", msg: "Input should be 'active' or 'paused'" });
    }
  }
  return out;
}
