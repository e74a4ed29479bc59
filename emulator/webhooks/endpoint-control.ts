/**
 * Control-plane routes for endpoints and deliveries, under `/_emulator/webhooks`
 * (documented with curl examples in emulator/docs/webhooks-endpoints.md):
 *
 *   POST   /endpoints/:id/deliveries   move an endpoint's deliveries {to, from?, count?, status_code?, failure_reason?, latency_ms?}
 *   POST   /deliveries/:id             move one delivery {to, ...same attempt fields}
 *   POST   /worker/run                 one worker pass over due deliveries {endpoint_id?}
 *   POST   /endpoints/:id/status       set {status: enabled|disabled|auto_disabled} directly
 *   PUT    /endpoints/:id/suspension   add {cause}; DELETE clears (?cause= one, else all)
 *   PUT    /targets/:host              what a host does {result, status_code?, echo_challenge?, latency_ms?}; `*` = every other host
 *   GET    /targets, DELETE /targets   read / forget every host outcome
 *   GET|PUT /settings                  {auto_disable_after_dead, redeliver_per_minute, auto_deliver_ms}
 *   POST   /usage                      {workspace_id, deliveries}: extra deliveries counted in the current billing period
 */
import type { FastifyInstance } from "fastify";
import { z } from "zod";
import type { EmulatorContext } from "../core/context";
import { notFound } from "../core/errors";
import { parse } from "../core/validation";
import { endpointsState, endpointView, SUSPENSION_CAUSES, suspensionCause, type EndpointRecord } from "./endpoint-store";
import { billingPeriodStart, DELIVERY_STATES, deliveriesState, deliverySettings, deliveryView, findDeliveries, moveDelivery } from "./delivery-store";
import { resetRedeliverBuckets } from "./delivery-rate";
import { FAILURE_REASONS, targetOutcomes } from "./target";
import { runWorker, startAutoWorker } from "./delivery-worker";
import { dict } from "../core/dict";

const attemptFields = {
  status_code: z.number().int().min(100).max(599).nullable().optional(),
  failure_reason: z.string().optional(),
  error: z.string().optional(),
  latency_ms: z.number().min(0).optional(),
};
const moveOne = z.object({ to: z.enum(DELIVERY_STATES), ...attemptFields });
const moveMany = moveOne.extend({
  /** States to move from (default: queued, sending, failed). */
  from: z.array(z.enum(DELIVERY_STATES)).optional(),
  /** At most this many (oldest first); default all. */
  count: z.number().int().min(1).optional(),
});
const statusBody = z.object({ status: z.enum(["enabled", "disabled", "auto_disabled"]) });
const suspensionBody = z.object({ cause: z.enum(SUSPENSION_CAUSES) });
const suspensionQuery = z.object({ cause: z.enum(SUSPENSION_CAUSES).optional() });
const targetBody = z.object({
  result: z.enum(["delivered", ...FAILURE_REASONS]),
  status_code: z.number().int().min(100).max(599).optional(),
  echo_challenge: z.boolean().optional(),
  latency_ms: z.number().min(0).optional(),
});
const settingsBody = z.object({
  auto_disable_after_dead: z.number().int().min(1).optional(),
  redeliver_per_minute: z.number().int().min(0).optional(),
  /** Run a worker pass every this many ms on its own; 0 (default) = only on POST /worker/run. */
  auto_deliver_ms: z.number().int().min(0).max(60_000).optional(),
});
const usageBody = z.object({ workspace_id: z.string(), deliveries: z.number().int().min(0) });
const workerBody = z.object({ endpoint_id: z.string().optional() });

type Params = { Params: { id: string } };

/** Control routes see every workspace's endpoints. */
function endpointOr404(ctx: EmulatorContext, id: string): EndpointRecord {
  const e = endpointsState(ctx)[id];
  if (!e) throw notFound("endpoint", id);
  return e;
}

export function registerEndpointControl(app: FastifyInstance, ctx: EmulatorContext): void {
  startAutoWorker(app, ctx);

  app.post<Params>("/endpoints/:id/deliveries", async (req) => {
    const e = endpointOr404(ctx, req.params.id);
    const body = parse(moveMany, req.body ?? {});
    const from = new Set(body.from ?? ["queued", "sending", "failed"]);
    const picked = findDeliveries(ctx, (d) => d.endpoint_id === e.id && from.has(d.status)).reverse().slice(0, body.count);
    for (const d of picked) moveDelivery(ctx, d, e, body.to, body);
    return { moved: picked.length, deliveries: picked.map(deliveryView), endpoint: endpointView(e) };
  });

  app.post<Params>("/deliveries/:id", async (req) => {
    const d = deliveriesState(ctx).byId[req.params.id];
    if (!d) throw notFound("delivery", req.params.id);
    const body = parse(moveOne, req.body ?? {});
    moveDelivery(ctx, d, endpointsState(ctx)[d.endpoint_id], body.to, body);
    return deliveryView(d);
  });

  app.post("/worker/run", async (req) => runWorker(ctx, parse(workerBody, req.body ?? {}).endpoint_id));

  app.post<Params>("/endpoints/:id/status", async (req) => {
    const e = endpointOr404(ctx, req.params.id);
    e.status = parse(statusBody, req.body ?? {}).status;
    e.updated_at = ctx.nowIso();
    ctx.store.changed();
    return endpointView(e);
  });

  app.put<Params>("/endpoints/:id/suspension", async (req) => {
    const e = endpointOr404(ctx, req.params.id);
    const { cause } = parse(suspensionBody, req.body ?? {});
    if (!e.suspension_causes.includes(cause)) e.suspension_causes.push(cause);
    ctx.store.changed();
    return endpointView(e);
  });

  app.delete<Params>("/endpoints/:id/suspension", async (req) => {
    const e = endpointOr404(ctx, req.params.id);
    const { cause } = parse(suspensionQuery, req.query, "query");
    e.suspension_causes = cause ? e.suspension_causes.filter((c) => c !== cause) : [];
    ctx.store.changed();
    return endpointView(e);
  });

  app.put<{ Params: { host: string } }>("/targets/:host", async (req) => {
    const outcome = parse(targetBody, req.body ?? {});
    targetOutcomes(ctx)[req.params.host.toLowerCase()] = outcome;
    ctx.store.changed();
    return { host: req.params.host.toLowerCase(), ...outcome };
  });
  app.get("/targets", async () => ({ targets: targetOutcomes(ctx) }));
  app.delete("/targets", async (_req, reply) => {
    ctx.state.products["webhooks.targets"] = dict();
    ctx.store.changed();
    return reply.status(204).send();
  });

  app.get("/settings", async () => deliverySettings(ctx));
  app.put("/settings", async (req) => {
    Object.assign(deliverySettings(ctx), parse(settingsBody, req.body ?? {}));
    resetRedeliverBuckets(ctx);
    return deliverySettings(ctx);
  });

  app.post("/usage", async (req) => {
    const body = parse(usageBody, req.body ?? {});
    const ws = ctx.state.workspaces[body.workspace_id];
    if (!ws) throw notFound("workspace", body.workspace_id);
    const period = billingPeriodStart(ws, ctx.now());
    deliveriesState(ctx).extraUsage[ws.id] = { period, deliveries: body.deliveries };
    ctx.store.changed();
    return { workspace_id: ws.id, period, extra_deliveries: body.deliveries };
  });
}
