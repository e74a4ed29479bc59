/**
 * Receiving endpoints (spec document 2, "Receiving endpoints"): CRUD, enable,
 * rotate-secret, stats, subscriptions, test and verify. Limits come from
 * rules/endpoint.ts; state and response shape from endpoint-store.ts.
 */
import { randomBytes } from "node:crypto";
import type { FastifyInstance } from "fastify";
import { z } from "zod";
import type { EmulatorContext } from "../core/context";
import { conflict, quotaExceeded } from "../core/errors";
import { newId } from "../core/store";
import { offsetPage, offsetPageQuery, parse } from "../core/validation";
import { ASSUMED_ENDPOINT_BOUNDS as BOUNDS, endpointViolations, maxAttemptsViolation } from "../../rules/endpoint";
import type { RuleViolation } from "../../rules/types";
import { assertProjectVisible, auth, resolveProject, throwViolations, visible, type Principal } from "./common";
import { endpointOr404, endpointsOfWorkspace, endpointsState, endpointView, MUTABLE_FIELDS, mutableOnCreate, newSigningSecret, patchMutable, type EndpointRecord } from "./endpoint-store";
import { findDeliveries, isPending } from "./delivery-store";
import { takeRedeliverToken } from "./delivery-rate";
import { sendToEndpoint } from "./target";
import { endpointStats, STATS_WINDOWS } from "./endpoint-stats";

const subscriptionIn = z.object({ event_type: z.string().min(1).max(BOUNDS.subscriptionPatternMaxLength) });
const nullable = <T extends z.ZodType>(t: T) => t.nullable().optional();
/** Fields settable on create and PATCH (PATCH: all optional and nullable): endpoint-store.ts MUTABLE_FIELDS. */
const mutable = Object.fromEntries(Object.entries(MUTABLE_FIELDS).map(([k, t]) => [k, nullable(t)])) as { [K in keyof typeof MUTABLE_FIELDS]: z.ZodOptional<z.ZodNullable<(typeof MUTABLE_FIELDS)[K]>> };
const createBody = z.object({
  url: z.string().max(BOUNDS.urlMaxLength),
  subscriptions: z.array(subscriptionIn).max(BOUNDS.subscriptionsMax).optional(),
  secret: nullable(z.string().min(1).max(BOUNDS.secretMaxLength)),
  project_id: nullable(z.string()),
  ...mutable,
});
const patchBody = z.object({ url: nullable(z.string().max(BOUNDS.urlMaxLength)), status: nullable(z.enum(["enabled", "disabled"])), ...mutable });
const subscriptionsBody = z.object({ subscriptions: z.array(subscriptionIn).max(BOUNDS.subscriptionsMax) });
const listQuery = offsetPageQuery.extend({ project_id: z.string().optional() });
const statsQuery = z.object({ window: z.enum(STATS_WINDOWS).default("24h") });

type Params = { Params: { id: string } };

/** Every limit of the body: the shared rules plus the plan's max_attempts ceiling. */
function assertEndpointRules(ctx: EmulatorContext, principal: Principal, body: Parameters<typeof endpointViolations>[0] & { max_attempts?: number | null }): void {
  const violations: RuleViolation[] = endpointViolations(body);
  const overPlan = body.max_attempts == null ? undefined : maxAttemptsViolation(body.max_attempts, ctx.plan(principal.workspace).webhooks.max_attempts);
  if (overPlan) violations.push(overPlan);
  throwViolations(violations);
}

function assertEndpointAllocation(ctx: EmulatorContext, principal: Principal): void {
  const limit = ctx.plan(principal.workspace).webhooks.endpoints;
  const current = endpointsOfWorkspace(ctx, principal.workspace.id).length;
  if (limit !== null && current >= limit) throw quotaExceeded("allocation", "endpoints", limit, { current });
}

function touch(ctx: EmulatorContext, e: EndpointRecord): void {
  e.updated_at = ctx.nowIso();
  ctx.store.changed();
}

export function registerEndpoints(app: FastifyInstance, ctx: EmulatorContext): void {
  app.get("/v1/endpoints", async (req) => {
    const principal = auth(ctx, req, "read");
    const q = parse(listQuery, req.query, "query");
    if (q.project_id) assertProjectVisible(ctx, principal, q.project_id);
    const items = endpointsOfWorkspace(ctx, principal.workspace.id).filter((e) => visible(principal, e) && (!q.project_id || e.project_id === q.project_id));
    return offsetPage(items.map(endpointView), q);
  });

  app.post("/v1/endpoints", async (req, reply) => {
    const principal = auth(ctx, req, "admin");
    const body = parse(createBody, req.body ?? {});
    assertEndpointRules(ctx, principal, body);
    const projectId = resolveProject(ctx, principal, body.project_id);
    // Synchronous from here to the insert: parallel creates cannot pass the ceiling.
    assertEndpointAllocation(ctx, principal);
    const now = ctx.nowIso();
    const e: EndpointRecord = {
      id: newId("ep"),
      workspace_id: principal.workspace.id,
      project_id: projectId,
      url: body.url,
      subscriptions: body.subscriptions ?? [],
      secret: body.secret ?? newSigningSecret(),
      ...mutableOnCreate(body),
      status: "enabled",
      verified: false,
      suspension_causes: [],
      consecutive_dead: 0,
      created_at: now,
      updated_at: now,
    };
    endpointsState(ctx)[e.id] = e;
    ctx.store.changed();
    return reply.status(201).send({ ...endpointView(e), secret: e.secret });
  });

  app.get<Params>("/v1/endpoints/:id", async (req) => endpointView(endpointOr404(ctx, auth(ctx, req, "read"), req.params.id)));

  app.patch<Params>("/v1/endpoints/:id", async (req) => {
    const principal = auth(ctx, req, "admin");
    const e = endpointOr404(ctx, principal, req.params.id);
    const body = parse(patchBody, req.body ?? {});
    assertEndpointRules(ctx, principal, body);
    if (body.status === "enabled" && e.status === "auto_disabled") {
      throw conflict("endpoint_auto_disabled", "The endpoint was disabled automatically; POST /v1/endpoints/{id}/enable turns it back on.", { id: e.id, state: e.status });
    }
    if (body.url != null && body.url !== e.url) {
      e.url = body.url;
      e.verified = false;
    }
    if (body.status != null) e.status = body.status;
    patchMutable(e, body);
    touch(ctx, e);
    return endpointView(e);
  });

  app.delete<Params>("/v1/endpoints/:id", async (req, reply) => {
    const principal = auth(ctx, req, "admin");
    const e = endpointOr404(ctx, principal, req.params.id);
    const pending = findDeliveries(ctx, (d) => d.endpoint_id === e.id && isPending(d)).length;
    if (pending > 0) {
      // The spec: the delete is refused and the endpoint is disabled anyway.
      e.status = "disabled";
      touch(ctx, e);
      throw conflict("endpoint_has_pending_deliveries", `The endpoint has ${pending} pending deliveries; it was disabled instead.`, { id: e.id, count: pending });
    }
    delete endpointsState(ctx)[e.id];
    ctx.store.changed();
    return reply.status(204).send();
  });

  app.post<Params>("/v1/endpoints/:id/enable", async (req) => {
    const e = endpointOr404(ctx, auth(ctx, req, "admin"), req.params.id);
    e.status = "enabled";
    e.consecutive_dead = 0;
    touch(ctx, e);
    return endpointView(e);
  });

  app.post<Params>("/v1/endpoints/:id/rotate-secret", async (req) => {
    const e = endpointOr404(ctx, auth(ctx, req, "admin"), req.params.id);
    e.secret = newSigningSecret();
    touch(ctx, e);
    return { ...endpointView(e), secret: e.secret };
  });

  app.get<Params>("/v1/endpoints/:id/stats", async (req) => {
    const e = endpointOr404(ctx, auth(ctx, req, "read"), req.params.id);
    const { window } = parse(statsQuery, req.query, "query");
    return endpointStats(ctx, e, window);
  });

  app.put<Params>("/v1/endpoints/:id/subscriptions", async (req) => {
    const principal = auth(ctx, req, "admin");
    const e = endpointOr404(ctx, principal, req.params.id);
    const body = parse(subscriptionsBody, req.body ?? {});
    throwViolations(endpointViolations({ subscriptions: body.subscriptions }));
    e.subscriptions = body.subscriptions;
    touch(ctx, e);
    return endpointView(e);
  });

  app.post<Params>("/v1/endpoints/:id/test", async (req) => {
    const principal = auth(ctx, req, "admin");
    const e = endpointOr404(ctx, principal, req.params.id);
    takeRedeliverToken(ctx, principal.workspace.id);
    const r = await sendToEndpoint(ctx, e, { id: newId("ping"), type: "webhook.ping", created_at: ctx.nowIso(), data: { endpoint_id: e.id } });
    return { delivered: r.delivered, error: r.error, failure_reason: r.failure_reason, status_code: r.status_code, latency_ms: r.latency_ms };
  });

  app.post<Params>("/v1/endpoints/:id/verify", async (req) => {
    const principal = auth(ctx, req, "admin");
    const e = endpointOr404(ctx, principal, req.params.id);
    const challenge = randomBytes(18).toString("base64url");
    const urlAtSend = e.url;
    const r = await sendToEndpoint(ctx, e, { id: newId("vrf"), type: "webhook.verify", created_at: ctx.nowIso(), data: { challenge } }, challenge);
    // The endpoint may have changed (or gone) while the challenge was out.
    const current = endpointsState(ctx)[e.id];
    if (!current || current.url !== urlAtSend) {
      return { verified: false, error: "The endpoint URL changed while the challenge was out.", failure_reason: "url_changed" };
    }
    if (r.delivered) {
      current.verified = true;
      touch(ctx, current);
    }
    return { verified: r.delivered, error: r.error, failure_reason: r.failure_reason };
  });
}
