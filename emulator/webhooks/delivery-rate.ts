/**
 * The shared redeliver rate bucket (spec document 2, Limits): event replay, bulk
 * redeliver, bulk replay and endpoint test each take one token from their
 * workspace's bucket. A token bucket of `redeliver_per_minute` tokens refilling
 * continuously on the emulator's clock; empty gives 429 `rate_limited` with
 * `Retry-After` and `details.retry_after` (whole seconds until a token is back).
 * The size is set with `PUT /_emulator/webhooks/settings`.
 */
import type { EmulatorContext } from "../core/context";
import { rateLimited } from "../core/errors";
import { deliverySettings } from "./delivery-store";
import { dict } from "../core/dict";

interface Bucket {
  tokens: number;
  at_ms: number;
  size: number;
}

export function takeRedeliverToken(ctx: EmulatorContext, workspaceId: string): void {
  const size = deliverySettings(ctx).redeliver_per_minute;
  const buckets = ctx.store.product<Record<string, Bucket>>("webhooks.deliveries.buckets", () => dict());
  const now = ctx.now().getTime();
  const perMs = size / 60_000;
  let b = buckets[workspaceId];
  // A resized bucket starts full at its new size.
  if (!b || b.size !== size) b = buckets[workspaceId] = { tokens: size, at_ms: now, size };
  b.tokens = Math.min(size, b.tokens + Math.max(0, now - b.at_ms) * perMs);
  b.at_ms = now;
  if (b.tokens >= 1) {
    b.tokens -= 1;
    ctx.store.changed();
    return;
  }
  const retryAfter = size > 0 ? Math.max(1, Math.ceil((1 - b.tokens) / perMs / 1000)) : 60;
  throw rateLimited(retryAfter);
}

/** Forget every bucket (after a size change): each starts full again. */
export function resetRedeliverBuckets(ctx: EmulatorContext): void {
  ctx.state.products["webhooks.deliveries.buckets"] = dict();
  ctx.store.changed();
}
