/**
 * Credential info and events (spec document 2, "Authentication and events"):
 * publish with fan-out, Idempotency-Key, the monthly deliveries ceiling, reads,
 * the deliveries of an event, and replay of an event to one endpoint.
 *
 * `publishEvent` is the one publish pipeline; ingest calls it too.
 */
import { createHash } from "node:crypto";
import type { FastifyInstance } from "fastify";
import { z } from "zod";
import type { EmulatorContext } from "../core/context";
import { conflict, notFound, quotaExceeded } from "../core/errors";
import { newId } from "../core/store";
import { offsetPage, offsetPageQuery, parse } from "../core/validation";
import { subscriptionMatches } from "../../rules/endpoint";
import { assertProjectVisible, auth, newestFirst, resolveProject, visible, type Principal } from "./common";
import { checkPublish } from "./event-types";
import { endpointOr404, endpointsOfWorkspace, suspensionCause, type EndpointRecord } from "./endpoint-store";
import { createDelivery, deliveriesThisPeriod, deliveryView, findDeliveries } from "./delivery-store";
import { takeRedeliverToken } from "./delivery-rate";
import { dict } from "../core/dict";

export interface EventRecord {
  id: string;
  workspace_id: string;
  project_id: string;
  event_type: string;
  payload: Record<string, unknown>;
  source: string | null;
  /** How the event arrived: `api` (POST /v1/events) or `ingest`. */
  origin: "api" | "ingest";
  idempotency_key: string | null;
  /** Deliveries created by the publish fan-out. */
  deliveries: number;
  created_at: string;
}

interface EventsState {
  byId: Record<string, EventRecord>;
  /** `<workspace>:<key>` -> the event it created and a fingerprint of the request body. */
  idempotency: Record<string, { event_id: string; fingerprint: string }>;
}

const upgraded = new WeakSet<EventsState>();

export function eventsState(ctx: EmulatorContext): EventsState {
  const state = ctx.store.product<EventsState>("webhooks.events", () => ({ byId: dict(), idempotency: dict() }));
  if (!upgraded.has(state)) {
    upgraded.add(state);
    ingestKeysOutOfPublisherSlots(state);
  }
  return state;
}

/**
 * A state file written before ingest's keys had their own slots (0.1.0) keeps them
 * as `<workspace>:ingest:<source_id>:<id>`, where a publisher's key lives now: the
 * provider's retry would publish again and a publisher's same-spelled key would get
 * 409. A slot whose event arrived by ingest moves to the ingest slot
 * (idempotencySlot); a publisher's own `ingest:`-spelled key (its event `api`) stays.
 */
function ingestKeysOutOfPublisherSlots(state: EventsState): void {
  for (const [slot, seen] of Object.entries(state.idempotency)) {
    const event = state.byId[seen.event_id];
    if (event?.origin !== "ingest" || event.idempotency_key === null) continue;
    const ingestSlot = idempotencySlot(event.workspace_id, event.idempotency_key, "ingest");
    if (slot === ingestSlot) continue;
    state.idempotency[ingestSlot] ??= seen;
    delete state.idempotency[slot];
  }
}

export function eventOr404(ctx: EmulatorContext, principal: Principal, id: string): EventRecord {
  const e = eventsState(ctx).byId[id];
  if (!e || !visible(principal, e)) throw notFound("event", id);
  return e;
}

/** Event response; the producer payload only on single reads and publish. */
export function eventView(e: EventRecord, withPayload: boolean) {
  return {
    id: e.id,
    event_type: e.event_type,
    project_id: e.project_id,
    source: e.source,
    origin: e.origin,
    idempotency_key: e.idempotency_key,
    deliveries: e.deliveries,
    created_at: e.created_at,
    ...(withPayload ? { payload: e.payload } : {}),
  };
}

/** Endpoints an event fans out to: enabled, not suspended, same project, a matching subscription. */
export function fanOutTargets(ctx: EmulatorContext, workspaceId: string, projectId: string, eventType: string): EndpointRecord[] {
  return endpointsOfWorkspace(ctx, workspaceId).filter(
    (e) => e.project_id === projectId && e.status === "enabled" && !suspensionCause(e) && e.subscriptions.some((s) => subscriptionMatches(s.event_type, eventType)),
  );
}

export interface PublishInput {
  event_type: string;
  payload: Record<string, unknown>;
  project_id: string | null;
  source: string | null;
}

/**
/**
 * Where an idempotency key is remembered. Ingest's namespaced keys
 * (`ingest:<source_id>:<id>`, spec 2) live apart from publishers' `Idempotency-Key`s,
 * so a publisher's key never occupies an ingest key (nor the reverse), whatever it
 * spells: a header value cannot hold a line feed, so no publisher slot starts with
 * `<workspace>\n`. Publisher slots keep the form state files already hold.
 */
function idempotencySlot(workspaceId: string, key: string, origin: "lenient" | "ingest"): string {
  return origin === "ingest" ? `${workspaceId}\n${key}` : `${workspaceId}:${key}`;
}

/**
 * Publish one event: idempotency, the type policy and schema (event-types'
 * `checkPublish`), the monthly deliveries ceiling, then the fan-out as `queued`
 * deliveries. Synchronous throughout, so concurrent publishes cannot pass the ceiling.
 * With an Idempotency-Key seen before: the same body gives the original event back
 * (`replayed`, no second fan-out); a different body is 409 `idempotency_key_reuse`.
 */
export function publishEvent(
  ctx: EmulatorContext,
  principal: Principal,
  input: PublishInput,
  opts: { idempotencyKey?: string; origin: "lenient" | "ingest" },
): { event: EventRecord; deliveries: number; replayed?: boolean } {
  const state = eventsState(ctx);
  const ws = principal.workspace;
  const projectId = resolveProject(ctx, principal, input.project_id);
  const idemKey = opts.idempotencyKey === undefined ? undefined : idempotencySlot(ws.id, opts.idempotencyKey, opts.origin);
  const fingerprint = fingerprintOf({ ...input, project_id: projectId });
  if (idemKey !== undefined) {
    const seen = state.idempotency[idemKey];
    const original = seen && state.byId[seen.event_id];
    if (seen && original) {
      if (seen.fingerprint !== fingerprint) {
        throw conflict("idempotency_key_reuse", "This Idempotency-Key was used with a different body; the original event stands.", { idempotency_key: opts.idempotencyKey });
      }
      return { event: original, deliveries: original.deliveries, replayed: true };
    }
  }

  checkPublish(ctx, ws.id, projectId, input.event_type, input.payload, opts.origin);
  const targets = fanOutTargets(ctx, ws.id, projectId, input.event_type);
  const limit = ctx.plan(ws).webhooks.deliveries_per_month;
  if (limit !== null) {
    const usage = deliveriesThisPeriod(ctx, ws);
    if (usage.count + targets.length > limit) throw quotaExceeded("period", "deliveries", limit, { current: usage.count, period: usage.period });
  }

  const event: EventRecord = {
    id: newId("evt"),
    workspace_id: ws.id,
    project_id: projectId,
    event_type: input.event_type,
    payload: input.payload,
    source: input.source,
    origin: opts.origin === "ingest" ? "ingest" : "api",
    idempotency_key: opts.idempotencyKey ?? null,
    deliveries: targets.length,
    created_at: ctx.nowIso(),
  };
  state.byId[event.id] = event;
  if (idemKey !== undefined) state.idempotency[idemKey] = { event_id: event.id, fingerprint };
  for (const endpoint of targets) createDelivery(ctx, event, endpoint);
  ctx.store.changed();
  return { event, deliveries: targets.length };
}

/** Stable fingerprint of a publish body: object keys sorted at every level. */
function fingerprintOf(value: unknown): string {
  const canonical = (v: unknown): unknown =>
    Array.isArray(v) ? v.map(canonical) : v !== null && typeof v === "object" ? Object.fromEntries(Object.keys(v).sort().map((k) => [k, canonical((v as Record<string, unknown>)[k])])) : v;
  return createHash("sha256").update(JSON.stringify(canonical(value))).digest("hex");
}

const publishBody = z.object({
  event_type: z.string().min(1).max(255),
  payload: z.record(z.string(), z.unknown()),
  project_id: z.string().nullable().optional(),
  source: z.string().max(255).nullable().optional(),
});
const listQuery = offsetPageQuery.extend({ event_type: z.string().optional(), project_id: z.string().optional() });
const replayBody = z.object({ endpoint_id: z.string().min(1) });

type Params = { Params: { id: string } };

export function registerEvents(app: FastifyInstance, ctx: EmulatorContext): void {
  app.get("/v1/auth/me", async (req) => {
    const p = auth(ctx, req, "any");
    return { scope: p.scope, workspace_id: p.workspace.id, email: null, created_at: null, kind: p.kind === "key" ? "api_key" : "session", project_id: p.confinedProject };
  });

  app.post("/v1/events", async (req, reply) => {
    const principal = auth(ctx, req, "publish");
    const body = parse(publishBody, req.body ?? {});
    const header = req.headers["idempotency-key"];
    const idempotencyKey = typeof header === "string" && header !== "" ? header : undefined;
    const r = publishEvent(ctx, principal, { event_type: body.event_type, payload: body.payload, project_id: body.project_id ?? null, source: body.source ?? null }, { idempotencyKey, origin: "lenient" });
    if (r.replayed) void reply.header("idempotent-replayed", "true");
    return reply.status(201).send(eventView(r.event, true));
  });

  app.get("/v1/events", async (req) => {
    const principal = auth(ctx, req, "read");
    const q = parse(listQuery, req.query, "query");
    if (q.project_id) assertProjectVisible(ctx, principal, q.project_id);
    const items = newestFirst(Object.values(eventsState(ctx).byId).filter((e) => visible(principal, e) && (!q.event_type || e.event_type === q.event_type) && (!q.project_id || e.project_id === q.project_id)));
    return offsetPage(items.map((e) => eventView(e, false)), q);
  });

  app.get<Params>("/v1/events/:id", async (req) => eventView(eventOr404(ctx, auth(ctx, req, "read"), req.params.id), true));

  app.get<Params>("/v1/events/:id/deliveries", async (req) => {
    const principal = auth(ctx, req, "read");
    const event = eventOr404(ctx, principal, req.params.id);
    const q = parse(offsetPageQuery, req.query, "query");
    return offsetPage(findDeliveries(ctx, (d) => d.event_id === event.id).map(deliveryView), q);
  });

  app.post<Params>("/v1/events/:id/replay", async (req) => {
    const principal = auth(ctx, req, "admin");
    const body = parse(replayBody, req.body ?? {});
    const event = eventOr404(ctx, principal, req.params.id);
    const endpoint = endpointOr404(ctx, principal, body.endpoint_id);
    takeRedeliverToken(ctx, principal.workspace.id);
    assertReplayable(ctx, event, endpoint);
    const d = createDelivery(ctx, event, endpoint);
    return { delivery_ids: [d.id], deliveries: [deliveryView(d)] };
  });
}

/** The conflicts of replaying `event` to `endpoint`, most fundamental first. */
function assertReplayable(ctx: EmulatorContext, event: EventRecord, endpoint: EndpointRecord): void {
  const cause = suspensionCause(endpoint);
  if (cause) throw conflict("endpoint_suspended", "The endpoint is suspended.", { id: endpoint.id, cause });
  if (endpoint.status !== "enabled") throw conflict("endpoint_not_enabled", `The endpoint is ${endpoint.status}; enable it first.`, { id: endpoint.id, state: endpoint.status });
  const ids = { event_id: event.id, endpoint_id: endpoint.id };
  if (endpoint.project_id !== event.project_id) throw conflict("replay_across_projects", "The endpoint belongs to another project than the event.", ids);
  if (findDeliveries(ctx, (d) => d.event_id === event.id && d.endpoint_id === endpoint.id).length > 0) {
    throw conflict("delivery_exists", "The endpoint already holds a delivery of this event; redeliver it instead.", ids);
  }
}
