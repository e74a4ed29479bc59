/** Workspace-level reads: GET /v1/audit, /v1/plan, /v1/usage. */
import type { FastifyInstance } from "fastify";
import type { EmulatorContext } from "../core/context";
import { offsetPage, parse } from "../core/validation";
import { auth, boundedNewestFirst, timeBoundedQuery } from "./common";
import { liveInboxes } from "./inboxes";
import { currentPeriod, inboxesState } from "./state";

export function registerAccount(app: FastifyInstance, ctx: EmulatorContext): void {
  app.get("/v1/audit", async (req) => {
    const principal = auth(ctx, req, "read");
    const q = parse(timeBoundedQuery, req.query, "query");
    const mine = inboxesState(ctx).audit.filter((a) => a.workspace_id === principal.workspace.id);
    const page = offsetPage(boundedNewestFirst(mine, (a) => a.created_at, q), q);
    return { ...page, data: page.data.map(({ seq: _s, workspace_id: _w, ...entry }) => entry) };
  });

  app.get("/v1/plan", async (req) => {
    const principal = auth(ctx, req, "read");
    const p = ctx.plan(principal.workspace).inboxes;
    return {
      name: principal.workspace.plan,
      limits: { inboxes: p.inboxes, http_bins: p.http_bins, messages_per_month: p.messages_per_month },
      features: { read_api: p.read_api, optional_phrase_gate: p.optional_phrase_gate },
    };
  });

  app.get("/v1/usage", async (req) => {
    const principal = auth(ctx, req, "read");
    const live = liveInboxes(ctx, principal.workspace.id);
    const period = currentPeriod(ctx);
    return {
      period,
      inboxes: live.filter((i) => i.transport === "email").length,
      http_bins: live.filter((i) => i.transport === "http").length,
      messages: inboxesState(ctx).monthly[principal.workspace.id]?.[period] ?? 0,
    };
  });
}
