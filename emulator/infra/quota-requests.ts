/**
 * Quota requests: filed by any project member, edited or withdrawn by their
 * author (or an admin), decided by admins. The state machine lives in
 * rules/quota.ts (QUOTA_REQUEST_TRANSITIONS).
 * /api/v1/quota-request/ (GET ?id=, POST, PATCH, DELETE ?id=), /list,
 * /approve, /reject, /update.
 */
import type { FastifyInstance } from "fastify";
import { z } from "zod";
import type { InfraPrincipal } from "../core/auth";
import type { EmulatorContext } from "../core/context";
import { conflict, forbidden, notFound } from "../core/errors";
import { newId } from "../core/store";
import { objectBody, throwViolations } from "../core/violations";
import { parse } from "../core/validation";
import {
  OPEN_QUOTA_REQUEST_STATES, QUOTA_REQUEST_STATES, quotaRequestTransition, quotaRequestViolations,
  type QuotaRequestAction, type QuotaRequestState,
} from "../../rules/quota";
import { SCOPES, auth, callerId, isAdmin, ownProject } from "./common";
import { setQuotaLimits } from "./quotas";
import { infraState, type QuotaRequest } from "./state";

const idQuery = z.object({ id: z.string().min(1) });
const listQuery = z.object({
  states: z.string().optional().transform((v, c) => {
    const states = v ? v.split(",").map((s) => s.trim()).filter(Boolean) : [];
    const unknown = states.find((s) => !QUOTA_REQUEST_STATES.includes(s as QuotaRequestState));
    if (unknown) c.addIssue({ code: "custom", message: `Unknown state '${unknown}'; states are ${QUOTA_REQUEST_STATES.join(", ")}`, params: { type: "enum" } });
    return states as QuotaRequestState[];
  }),
  project_id: z.string().optional(),
});
const editBody = z.object({ id: z.string().min(1), limits: z.unknown().optional(), justification: z.unknown().optional() }).strict();
const decisionBody = z.object({ id: z.string().min(1), message: z.string().nullable().optional() }).strict();
const messageRequired = decisionBody.extend({ message: z.string().trim().min(1) });

function view(r: QuotaRequest) {
  return { ...r };
}

/** The request in the caller's project, or 404 `not_found` reason `quota_request`. */
function requestOf(ctx: EmulatorContext, p: InfraPrincipal, id: string): QuotaRequest {
  const r = infraState(ctx).quotaRequests[id];
  if (!r || r.project_id !== p.project.id) throw notFound("quota_request", id);
  return r;
}

/** The state `action` leads to, or 409 `conflict` with the reason of rules/quota.ts, the id and the state. */
function nextState(r: QuotaRequest, action: QuotaRequestAction): QuotaRequestState {
  const next = quotaRequestTransition(r.state, action);
  if ("conflict" in next) throw conflict(next.conflict, `Quota request ${r.id} is ${r.state}; '${action}' is not possible in that state.`, { id: r.id, state: r.state });
  return next.to;
}

function moveTo(ctx: EmulatorContext, r: QuotaRequest, state: QuotaRequestState): void {
  const now = ctx.nowIso();
  r.state = state;
  r.updated_at = now;
  if (!OPEN_QUOTA_REQUEST_STATES.includes(state)) r.decided_at = now;
  ctx.store.changed();
}

/** Non-admin callers may change only their own request. */
function assertMayChange(p: InfraPrincipal, r: QuotaRequest): void {
  if (!isAdmin(p) && r.requested_by !== callerId(p)) throw forbidden("owner", "Only the author of a quota request or an admin (iam:write) may change it.");
}

export function registerQuotaRequests(app: FastifyInstance, ctx: EmulatorContext): void {
  // The spec's paths end in a slash; the same handlers also answer without it.
  for (const base of ["/api/v1/quota-request/", "/api/v1/quota-request"]) {
    app.get(base, async (req) => {
      const p = auth(ctx, req, SCOPES.quotaRead);
      return view(requestOf(ctx, p, parse(idQuery, req.query, "query").id));
    });

    app.post(base, async (req, reply) => {
      const p = auth(ctx, req, SCOPES.quotaRequest);
      const body = objectBody(req.body);
      throwViolations(quotaRequestViolations(body));
      const now = ctx.nowIso();
      const r: QuotaRequest = {
        id: newId("qr"),
        project_id: ownProject(p, body.project_id),
        service: body.service as string,
        region: (body.region as string | null | undefined) ?? null,
        limits: body.limits as Record<string, number>,
        justification: body.justification as string,
        state: "pending",
        admin_message: null,
        requested_by: callerId(p),
        created_at: now,
        updated_at: now,
        decided_at: null,
      };
      infraState(ctx).quotaRequests[r.id] = r;
      ctx.store.changed();
      return reply.status(201).send(view(r));
    });

    app.patch(base, async (req) => {
      const p = auth(ctx, req, SCOPES.quotaRequest);
      const body = parse(editBody, objectBody(req.body));
      const r = requestOf(ctx, p, body.id);
      assertMayChange(p, r);
      const to = nextState(r, "edit");
      const merged = { service: r.service, region: r.region, limits: body.limits ?? r.limits, justification: body.justification ?? r.justification };
      throwViolations(quotaRequestViolations(merged));
      r.limits = merged.limits as Record<string, number>;
      r.justification = merged.justification as string;
      moveTo(ctx, r, to);
      return view(r);
    });

    app.delete(base, async (req, reply) => {
      const p = auth(ctx, req, SCOPES.quotaRequest);
      const r = requestOf(ctx, p, parse(idQuery, req.query, "query").id);
      assertMayChange(p, r);
      moveTo(ctx, r, nextState(r, "withdraw"));
      return reply.status(204).send();
    });
  }

  app.get("/api/v1/quota-request/list", async (req) => {
    const p = auth(ctx, req, SCOPES.quotaRead);
    const q = parse(listQuery, req.query, "query");
    const project = ownProject(p, q.project_id);
    const items = Object.values(infraState(ctx).quotaRequests)
      .filter((r) => r.project_id === project && (q.states.length === 0 || q.states.includes(r.state)))
      .reverse();
    return { items: items.map(view) };
  });

  const decide = (action: "approve" | "reject" | "update", schema: z.ZodType<{ id: string; message?: string | null }>) =>
    app.post(`/api/v1/quota-request/${action}`, async (req) => {
      const p = auth(ctx, req, SCOPES.admin);
      const body = parse(schema, objectBody(req.body));
      const r = requestOf(ctx, p, body.id);
      const to = nextState(r, action);
      if (body.message !== undefined) r.admin_message = body.message;
      if (action === "approve") setQuotaLimits(ctx, r.project_id, r.region ?? "", r.limits);
      moveTo(ctx, r, to);
      return view(r);
    });
  decide("approve", decisionBody);
  decide("reject", messageRequired);
  decide("update", messageRequired);
}

