/**
 * Operational endpoints (spec document 2, "Operational endpoints and workspace";
 * design/api-assumptions.md): subscriptions receiving a project's operational events.
 * Create, list (`?project_id=`: that project's plus workspace-wide ones), read, delete;
 * no update (a change replaces).
 *
 * `project_id` on create: omitted applies the workspace's default project (as every
 * write; a project-confined credential's own project); an explicit null makes the
 * subscription workspace-wide. A project-confined credential reads workspace-wide ones
 * (its project's listing includes them) but cannot create or delete them (403
 * `project_confined`).
 */
import type { FastifyInstance } from "fastify";
import { z } from "zod";
import type { EmulatorContext } from "../core/context";
import { notFound } from "../core/errors";
import { newId } from "../core/store";
import { offsetPage, offsetPageQuery, parse } from "../core/validation";
import { operationalEndpointViolations } from "../../rules/operational";
import { assertMayChangeWorkspaceWide, assertProjectVisible, auth, resolveProject, throwViolations, visible, type Principal } from "./common";
import { dict } from "../core/dict";

export interface OperationalEndpointRecord {
  id: string;
  workspace_id: string;
  project_id: string | null;
  url: string;
  event_types: string[];
  description: string | null;
  created_at: string;
}

type OperationalEndpoints = Record<string, OperationalEndpointRecord>;

export function operationalEndpointsState(ctx: EmulatorContext): OperationalEndpoints {
  return ctx.store.product<OperationalEndpoints>("webhooks.operationalEndpoints", () => dict());
}

function view(o: OperationalEndpointRecord) {
  return { id: o.id, url: o.url, event_types: o.event_types, project_id: o.project_id, description: o.description, created_at: o.created_at };
}

function byIdOr404(ctx: EmulatorContext, principal: Principal, id: string): OperationalEndpointRecord {
  const o = operationalEndpointsState(ctx)[id];
  if (!o || !visible(principal, o)) throw notFound("operational_endpoint", id);
  return o;
}

const createBody = z.object({
  url: z.string().max(2048),
  event_types: z.array(z.string()).min(1).max(50),
  project_id: z.string().nullable().optional(),
  description: z.string().max(1024).nullable().optional(),
});
const listQuery = offsetPageQuery.extend({ project_id: z.string().optional() });

type Params = { Params: { id: string } };

export function registerOperationalEndpoints(app: FastifyInstance, ctx: EmulatorContext): void {
  app.post("/v1/operational-endpoints", async (req, reply) => {
    const principal = auth(ctx, req, "admin");
    const body = parse(createBody, req.body ?? {});
    throwViolations(operationalEndpointViolations(body));
    if (body.project_id === null) assertMayChangeWorkspaceWide(principal, "workspace-wide operational endpoints");
    const projectId = body.project_id === null ? null : resolveProject(ctx, principal, body.project_id);
    const record: OperationalEndpointRecord = {
      id: newId("opep"),
      workspace_id: principal.workspace.id,
      project_id: projectId,
      url: body.url,
      event_types: [...new Set(body.event_types)],
      description: body.description ?? null,
      created_at: ctx.nowIso(),
    };
    operationalEndpointsState(ctx)[record.id] = record;
    ctx.store.changed();
    return reply.status(201).send(view(record));
  });

  app.get("/v1/operational-endpoints", async (req) => {
    const principal = auth(ctx, req, "read");
    const q = parse(listQuery, req.query, "query");
    if (q.project_id) assertProjectVisible(ctx, principal, q.project_id);
    const items = Object.values(operationalEndpointsState(ctx)).filter(
      (o) => visible(principal, o) && (!q.project_id || o.project_id === q.project_id || o.project_id === null),
    );
    return offsetPage(items.map(view), q);
  });

  app.get<Params>("/v1/operational-endpoints/:id", async (req) => view(byIdOr404(ctx, auth(ctx, req, "read"), req.params.id)));

  app.delete<Params>("/v1/operational-endpoints/:id", async (req, reply) => {
    const principal = auth(ctx, req, "admin");
    const o = byIdOr404(ctx, principal, req.params.id);
    if (o.project_id === null) assertMayChangeWorkspaceWide(principal, "workspace-wide operational endpoints");
    delete operationalEndpointsState(ctx)[o.id];
    ctx.store.changed();
    return reply.status(204).send();
  });
}
