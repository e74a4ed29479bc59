/**
 * What may be repeated, in one place. Three things send a request again:
 *
 * 1. The transport, for one request, by the policy below (decideRetry).
 * 2. A create whose outcome is unknown: never repeated by the transport; the engine's
 *    reconciliation (engine/reconcile.ts) looks for what it made and
 *    sends it again only when nothing was made, at most CREATE_RESENDS times.
 * 3. A delete the service refused for a reason that passes (an endpoint with pending
 *    deliveries, hooks.onDeleteRefused): the DELETE is sent again once the wait is over.
 *
 * The transport's policy (modelled on openai-node's retryRequest):
 *
 * - 429: retried, waiting what `Retry-After` or `details.retry_after` says. An
 *   infrastructure quota refusal is a 429 with an EMPTY `Retry-After`: retrying never
 *   helps there, so it is not retried.
 * - 5xx and connections that dropped after the request may have been sent: retried
 *   only when repeating the request is harmless (GET, PUT, DELETE, PATCH: every PATCH
 *   the engine sends sets absolute values, so a second one leaves what the first did;
 *   and POST actions the resource declares safe). Never a create.
 * - A connection that never opened (refused, connect timeout) is retried for any
 *   request: the service cannot have acted.
 * - Any other 4xx: never.
 *
 * Backoff is exponential with full jitter, and every wait comes out of one total budget.
 */

export interface RetryPolicy {
  /** Retries after the first attempt. */
  maxRetries: number;
  /** First backoff step; doubles each retry. */
  baseDelayMs: number;
  /** Cap of one backoff wait (Retry-After may ask for more, within the budget). */
  maxDelayMs: number;
  /** Total time the request may take, waits included, before giving up. */
  budgetMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = { maxRetries: 5, baseDelayMs: 250, maxDelayMs: 8_000, budgetMs: 60_000 };

/**
 * How often reconciliation sends a create again after nothing was found for it:
 * after lost answers (no answer at all), and after 5xx answers. A service that fails
 * the same create again and again is refusing it (a value it cannot handle): say so,
 * rather than send it five times.
 */
export const CREATE_RESENDS = { afterLostAnswer: 4, after5xx: 2 } as const;

/** What one attempt ended with, as the policy needs to see it. */
export type AttemptOutcome =
  | { kind: "response"; status: number; retryAfterHeader: string | undefined; retryAfterDetail: unknown }
  | { kind: "network"; maybeSent: boolean };

export type RetryDecision = { retry: true; delayMs: number } | { retry: false; why: string };

export function decideRetry(
  outcome: AttemptOutcome,
  ctx: { retriesSoFar: number; elapsedMs: number; safeToRepeat: boolean; policy: RetryPolicy; random?: () => number },
): RetryDecision {
  const { policy } = ctx;
  if (ctx.retriesSoFar >= policy.maxRetries) return { retry: false, why: "retries exhausted" };

  let requestedMs: number | undefined;
  if (outcome.kind === "response") {
    const { status } = outcome;
    if (status === 429) {
      if (outcome.retryAfterHeader !== undefined && outcome.retryAfterHeader.trim() === "") {
        return { retry: false, why: "quota refusal (429 with an empty Retry-After): retrying never helps" };
      }
      requestedMs = retryAfterMs(outcome.retryAfterHeader, outcome.retryAfterDetail);
    } else if (status >= 500) {
      if (!ctx.safeToRepeat) return { retry: false, why: "not safe to repeat" };
    } else {
      return { retry: false, why: "client error" };
    }
  } else if (outcome.maybeSent && !ctx.safeToRepeat) {
    return { retry: false, why: "not safe to repeat" };
  }

  const backoff = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** ctx.retriesSoFar);
  const jittered = Math.round(backoff * (0.5 + (ctx.random ?? Math.random)() * 0.5));
  const delayMs = requestedMs ?? jittered;
  if (ctx.elapsedMs + delayMs > policy.budgetMs) return { retry: false, why: `retry budget of ${policy.budgetMs} ms would be exceeded` };
  return { retry: true, delayMs };
}

/** Seconds from `Retry-After` (number or HTTP date) or `details.retry_after`, in ms. */
export function retryAfterMs(header: string | undefined, detail: unknown): number | undefined {
  if (header !== undefined && header.trim() !== "") {
    const seconds = Number(header);
    if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
    const date = Date.parse(header);
    if (!Number.isNaN(date)) return Math.max(0, date - Date.now());
  }
  if (typeof detail === "number" && detail >= 0) return detail * 1000;
  return undefined;
}
