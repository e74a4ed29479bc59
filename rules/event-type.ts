/**
 * The free text of an event type registration (`POST /v1/event-types`): a name on one
 * line, a description that may span lines. The emulator refuses what the provider's
 * preview refuses (rules/text.ts).
 */
import { textViolations } from "./text";
import type { RuleViolation } from "./types";

export function eventTypeTextViolations(body: Record<string, unknown>): RuleViolation[] {
  return textViolations(body, { singleLine: ["name"], multiLine: ["description"] });
}
