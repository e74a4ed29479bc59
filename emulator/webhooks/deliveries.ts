/**
 * Deliveries (spec document 2, "Deliveries"): list with filters, read, attempts,
 * single redeliver, and the bulk redeliver / replay-by-range batches.
 *
 * Re-armed deliveries go back to `queued` (the spec leaves the name open).
 * Batches are compare-and-set: a row is re-armed only if it is still in the
 * filtered state when reached, so a row a worker just claimed (`sending`) is untouched.
 */
import type { FastifyInstance } from "fastify";
import { z } from "zod";
import type { EmulatorContext } from "../core/context";
import { conflict, invalidField } from "../core/errors";
import { offsetPage, offsetPageQuery, parse, addEntry } from "../core/validation";
import { assertProjectVisible, auth, visible, type Principal } from "./common";
import { endpointOr404 } from "./endpoint-store";
import { attemptView, DELIVERY_STATES, deliveryOr404, deliveryView, findDeliveries, rearm, type DeliveryRecord, type DeliveryState } from "./delivery-store";
import { takeRedeliverToken } from "./delivery-rate";
import { eventsState } from "./events";

export const BULK_LIMIT_MAX = 10_000;
export const BULK_LIMIT_DEFAULT = 1_000;

const timestamp = z.iso.datetime({ offset: true });
const listQuery = offsetPageQuery.extend({
  status: z.string().optional(),
  endpoint_id: z.string().optional(),
  event_type: z.string().optional(),
  project_id: z.string().optional(),
  since: timestamp.optional(),
  until: timestamp.optional(),
  q: z.string().optional(),
});
const bulkFields = {
  status: z.enum(["dead", "failed"]).default("dead"),
  endpoint_id: z.string().nullable().optional(),
  project_id: z.string().nullable().optional(),
  limit: z.number().int().min(1).max(BULK_LIMIT_MAX).default(BULK_LIMIT_DEFAULT),
};
const redeliverBody = z.object(bulkFields);
const replayBody = z
  .object({ from: timestamp, to: timestamp, ...bulkFields })
  .superRefine((b, c) => {
    if (Date.parse(b.from) > Date.parse(b.to)) addEntry(c, ["to"], "webhooks.end_before_start", "`to` must not be before `from`.");
  });

type Params = { Params: { id: string } };

/** `status` filter: one state or a comma list; anything else is 422 `webhooks.unknown_delivery_status`. */
function parseStatusFilter(raw: string | undefined): Set<DeliveryState> | undefined {
  if (raw === undefined || raw === "") return undefined;
  const values = raw.split(",").map((s) => s.trim());
  const unknown = values.find((v) => !(DELIVERY_STATES as readonly string[]).includes(v));
  if (unknown !== undefined) {
    throw invalidField(["query", "status"], "webhooks.unknown_delivery_status", `Unknown delivery status '${unknown}'; expected one of ${DELIVERY_STATES.join(", ")}.`);
  }
  return new Set(values as DeliveryState[]);
}

/** The scope filters of the list and of batches; 404 for an endpoint or project out of reach. */
function scopeFilter(ctx: EmulatorContext, principal: Principal, f: { endpoint_id?: string | null; project_id?: string | null }) {
  if (f.endpoint_id) endpointOr404(ctx, principal, f.endpoint_id);
  if (f.project_id) assertProjectVisible(ctx, principal, f.project_id);
  return (d: DeliveryRecord) => visible(principal, d) && (!f.endpoint_id || d.endpoint_id === f.endpoint_id) && (!f.project_id || d.project_id === f.project_id);
}

/** Re-arm up to `limit` deliveries (oldest first) still in `status` that pass `pred`. */
function rearmBatch(ctx: EmulatorContext, status: "dead" | "failed", limit: number, pred: (d: DeliveryRecord) => boolean) {
  const ids: string[] = [];
  for (const d of findDeliveries(ctx, (d) => d.status === status && pred(d)).reverse()) {
    if (ids.length >= limit) break;
    if (d.status !== status) continue; // compare-and-set
    rearm(ctx, d);
    ids.push(d.id);
  }
  return { count: ids.length, delivery_ids: ids };
}

export function registerDeliveries(app: FastifyInstance, ctx: EmulatorContext): void {
  app.get("/v1/deliveries", async (req) => {
    const principal = auth(ctx, req, "read");
    const q = parse(listQuery, req.query, "query");
    const statuses = parseStatusFilter(q.status);
    const inScope = scopeFilter(ctx, principal, q);
    const needle = q.q?.toLowerCase();
    const events = eventsState(ctx).byId;
    const matchesText = (d: DeliveryRecord) =>
      !needle || [d.id, d.event_id, d.endpoint_id, d.event_type].some((s) => s.toLowerCase().includes(needle)) || JSON.stringify(events[d.event_id]?.payload ?? {}).toLowerCase().includes(needle);
    const items = findDeliveries(
      ctx,
      (d) =>
        inScope(d) &&
        (!statuses || statuses.has(d.status)) &&
        (!q.event_type || d.event_type === q.event_type) &&
        (!q.since || Date.parse(d.created_at) >= Date.parse(q.since)) &&
        (!q.until || Date.parse(d.created_at) <= Date.parse(q.until)) &&
        matchesText(d),
    );
    return offsetPage(items.map(deliveryView), q);
  });

  app.post("/v1/deliveries/redeliver", async (req) => {
    const principal = auth(ctx, req, "admin");
    const body = parse(redeliverBody, req.body ?? {});
    const inScope = scopeFilter(ctx, principal, body);
    takeRedeliverToken(ctx, principal.workspace.id);
    return rearmBatch(ctx, body.status, body.limit, inScope);
  });

  app.post("/v1/deliveries/replay", async (req) => {
    const principal = auth(ctx, req, "admin");
    const body = parse(replayBody, req.body ?? {});
    const inScope = scopeFilter(ctx, principal, body);
    takeRedeliverToken(ctx, principal.workspace.id);
    const [from, to] = [Date.parse(body.from), Date.parse(body.to)];
    return rearmBatch(ctx, body.status, body.limit, (d) => inScope(d) && Date.parse(d.created_at) >= from && Date.parse(d.created_at) <= to);
  });

  app.get<Params>("/v1/deliveries/:id", async (req) => deliveryView(deliveryOr404(ctx, auth(ctx, req, "read"), req.params.id)));

  app.get<Params>("/v1/deliveries/:id/attempts", async (req) => {
    const d = deliveryOr404(ctx, auth(ctx, req, "read"), req.params.id);
    const q = parse(offsetPageQuery, req.query, "query");
    return offsetPage(d.attempts.map((a) => attemptView(d, a)), q);
  });

  app.post<Params>("/v1/deliveries/:id/redeliver", async (req) => {
    const d = deliveryOr404(ctx, auth(ctx, req, "admin"), req.params.id);
    if (d.status === "queued" || d.status === "sending") {
      throw conflict("delivery_not_redeliverable", `The delivery is ${d.status}; it will be attempted anyway.`, { id: d.id, state: d.status });
    }
    rearm(ctx, d);
    return deliveryView(d);
  });
}
