/**
 * The delivery worker. The spec does not show worker transitions; the emulator's:
 * a pass takes every due delivery (queued, or failed whose retry time has come) of
 * an enabled, unsuspended endpoint, claims it (`sending`), sends it through
 * target.ts, and records the attempt (sent; failed with a retry time; dead).
 *
 * Passes run on `POST /_emulator/webhooks/worker/run`, and on their own every
 * `auto_deliver_ms` when that setting is above 0 (off by default, so tests see
 * `queued` deliveries stay queued until they move them).
 */
import type { FastifyInstance } from "fastify";
import type { EmulatorContext } from "../core/context";
import { endpointsState, suspensionCause } from "./endpoint-store";
import { deliverySettings, deliveryView, findDeliveries, moveDelivery, recordAttempt, type DeliveryRecord } from "./delivery-store";
import { sendToEndpoint } from "./target";
import { eventsState } from "./events";

/** How often a disabled auto worker looks at its setting again. */
const IDLE_POLL_MS = 250;

/** One pass; deliveries of a missing, switched-off or suspended endpoint are left alone. */
export async function runWorker(ctx: EmulatorContext, endpointId: string | undefined) {
  const now = ctx.now().getTime();
  const endpoints = endpointsState(ctx);
  const due = findDeliveries(ctx, (d) => {
    const e = endpoints[d.endpoint_id];
    const isDue = d.status === "queued" || (d.status === "failed" && d.next_attempt_at !== null && Date.parse(d.next_attempt_at) <= now);
    return isDue && (!endpointId || d.endpoint_id === endpointId) && !!e && e.status === "enabled" && !suspensionCause(e);
  }).reverse();
  // Claim synchronously so redeliver and batches see `sending` from here on.
  for (const d of due) moveDelivery(ctx, d, endpoints[d.endpoint_id], "sending");
  const results = await Promise.all(due.map((d) => attemptOnce(ctx, d)));
  return { processed: due.length, deliveries: results };
}

async function attemptOnce(ctx: EmulatorContext, d: DeliveryRecord) {
  const endpoint = endpointsState(ctx)[d.endpoint_id];
  const event = eventsState(ctx).byId[d.event_id];
  if (!endpoint || !event) {
    moveDelivery(ctx, d, endpoint, "dead", { failure_reason: "connection_failed", error: "The endpoint no longer exists." });
    return deliveryView(d);
  }
  const r = await sendToEndpoint(ctx, endpoint, { id: d.id, type: event.event_type, created_at: event.created_at, data: event.payload });
  if (d.status === "sending") recordAttempt(ctx, d, endpoint, { outcome: r.delivered ? "delivered" : "failed", status_code: r.status_code, failure_reason: r.failure_reason, error: r.error, latency_ms: r.latency_ms });
  return deliveryView(d);
}

/** Schedule automatic passes for the app's lifetime (a pass at a time; stopped on close). */
export function startAutoWorker(app: FastifyInstance, ctx: EmulatorContext): void {
  let timer: NodeJS.Timeout | undefined;
  let closed = false;
  const tick = async () => {
    const every = deliverySettings(ctx).auto_deliver_ms;
    if (every > 0) await runWorker(ctx, undefined).catch(() => undefined);
    if (!closed) timer = setTimeout(() => void tick(), every > 0 ? every : IDLE_POLL_MS).unref();
  };
  app.addHook("onReady", async () => {
    timer = setTimeout(() => void tick(), IDLE_POLL_MS).unref();
  });
  app.addHook("onClose", async () => {
    closed = true;
    if (timer) clearTimeout(timer);
  });
}
