/**
 * The Inboxes API's plan and usage answers, as types only: the SDK's data functions
 * return them, and their declarations must not pull the resource definitions (and zod's
 * typings, which need `esModuleInterop`) into a user's type-check.
 */

/** `GET /v1/plan` (emulator/docs/inboxes.md). `null` limits are unlimited. */
export interface InboxPlan {
  name: string;
  limits: { inboxes: number | null; http_bins: number | null; messages_per_month: number | null };
  features: { read_api: boolean; optional_phrase_gate: boolean };
}

/** `GET /v1/usage`. */
export interface InboxUsage {
  period: string;
  inboxes: number;
  http_bins: number;
  messages: number;
}
