/**
 * The emulator's own control plane under `/_emulator/` (exists nowhere else; the
 * provider never calls it): reset, workspaces, projects, keys, sessions, plans,
 * billing state, faults, the request log and the clock. Products add their own
 * routes under `/_emulator/<product>/`. Documented in emulator/README.md.
 */
import type { FastifyInstance } from "fastify";
import { z } from "zod";
import type { BuiltApp } from "./app";
import type { EmulatorContext } from "./context";
import { notFound } from "./errors";
import { faultSpec } from "./faults";
import { limitsRoutes } from "./limits";
import { PLAN_NAMES } from "./plans";
import { newAppKey, newInfraKey, randomBase32 } from "./store";
import { parse } from "./validation";

const workspaceCreate = z.object({ plan: z.enum(PLAN_NAMES).default("free"), name: z.string().default("workspace") });
const workspacePatch = z.object({ plan: z.enum(PLAN_NAMES).optional(), frozen: z.boolean().optional(), suspended: z.boolean().optional() });
const projectCreate = z.object({ workspace_id: z.string(), name: z.string().default("project") });
const keyCreate = z.object({
  product: z.enum(["webhooks", "inboxes", "infra"]),
  /** Webhooks/Inboxes scope (admin, read, publish); for infra a list in `scopes`. */
  scope: z.string().optional(),
  scopes: z.array(z.string()).optional(),
  /** Null: a credential tied to no workspace. */
  workspace_id: z.string().nullable(),
  /** Webhooks/Inboxes: confine to a project. Infra: the key's project (default: the workspace's default). */
  project_id: z.string().nullable().default(null),
});
const sessionCreate = z.object({ workspace_id: z.string(), expired: z.boolean().default(false) });
const byValue = z.object({ key: z.string() });
/**
 * The clock moves at most CLOCK_MAX_OFFSET_SECONDS (100 years) either way from the real
 * time, in total: every date the emulator computes from it stays a valid date.
 */
export const CLOCK_MAX_OFFSET_SECONDS = 100 * 365 * 24 * 3600;
const requestQuery = z.object({ since: z.coerce.number().int().optional(), method: z.string().optional(), path_prefix: z.string().optional() });

export function controlRoutes(ctx: EmulatorContext) {
  return (app: FastifyInstance, { log, faults, limits }: BuiltApp) => {
    app.post("/reset", async () => {
      // The clock first: the fresh state is stamped with the real time.
      ctx.clockOffsetMs = 0;
      ctx.store.reset();
      log.clear();
      faults.clear();
      limits.reset();
      return ctx.defaults;
    });

    app.get("/keys", async () => ctx.defaults);

    app.post("/workspaces", async (req, reply) => {
      const body = parse(workspaceCreate, req.body ?? {});
      return reply.status(201).send(ctx.createWorkspace(body.plan, body.name));
    });

    app.get<{ Params: { id: string } }>("/workspaces/:id", async (req) => workspaceOr404(ctx, req.params.id));

    app.patch<{ Params: { id: string } }>("/workspaces/:id", async (req) => {
      const ws = workspaceOr404(ctx, req.params.id);
      Object.assign(ws, parse(workspacePatch, req.body ?? {}));
      ctx.store.changed();
      return ws;
    });

    app.post("/projects", async (req, reply) => {
      const body = parse(projectCreate, req.body ?? {});
      workspaceOr404(ctx, body.workspace_id);
      return reply.status(201).send(ctx.createProject(body.workspace_id, body.name));
    });

    app.post("/keys", async (req, reply) => {
      const body = parse(keyCreate, req.body ?? {});
      const isInfra = body.product === "infra";
      const scopes = body.scopes ?? [body.scope ?? "admin"];
      let projectId = body.project_id;
      if (isInfra && projectId === null && body.workspace_id) projectId = workspaceOr404(ctx, body.workspace_id).default_project_id;
      const key = isInfra ? newInfraKey() : newAppKey(body.product, scopes[0]!);
      ctx.addKey({ key, product: body.product, scopes, workspace_id: body.workspace_id, project_id: projectId });
      return reply.status(201).send({ key });
    });

    app.post("/keys/revoke", async (req) => {
      const { key } = parse(byValue, req.body ?? {});
      const record = ctx.state.keys[key];
      if (!record) throw notFound("key");
      record.revoked = true;
      ctx.store.changed();
      return { revoked: true };
    });

    app.post("/sessions", async (req, reply) => {
      const body = parse(sessionCreate, req.body ?? {});
      workspaceOr404(ctx, body.workspace_id);
      const token = randomBase32(32);
      ctx.state.sessions[token] = { token, workspace_id: body.workspace_id, expired: body.expired, revoked: false };
      ctx.store.changed();
      return reply.status(201).send({ session: token, cookie: `svc_session=${token}` });
    });

    app.post("/sessions/revoke", async (req) => {
      const { key } = parse(byValue, req.body ?? {});
      const s = ctx.state.sessions[key];
      if (!s) throw notFound("session");
      s.revoked = true;
      ctx.store.changed();
      return { revoked: true };
    });

    app.post("/faults", async (req, reply) => reply.status(201).send({ id: faults.add(parse(faultSpec, req.body ?? {})) }));
    app.get("/faults", async () => ({ faults: faults.list() }));
    app.delete("/faults", async (_req, reply) => {
      faults.clear();
      return reply.status(204).send();
    });

    app.get("/requests", async (req) => {
      const q = parse(requestQuery, req.query, "query");
      return { requests: log.list({ since: q.since, method: q.method, pathPrefix: q.path_prefix }), last_seq: log.lastSeq, first_seq: log.firstSeq, capacity: log.capacity };
    });
    app.delete("/requests", async (_req, reply) => {
      log.clear();
      return reply.status(204).send();
    });

    limitsRoutes(app, limits);

    app.get("/clock", async () => ({ now: ctx.nowIso(), offset_seconds: ctx.clockOffsetMs / 1000 }));
    app.post("/clock", async (req) => {
      const current = ctx.clockOffsetMs / 1000;
      const clockAdvance = z.object({
        advance_seconds: z.number().min(-CLOCK_MAX_OFFSET_SECONDS - current).max(CLOCK_MAX_OFFSET_SECONDS - current),
      });
      ctx.clockOffsetMs += parse(clockAdvance, req.body ?? {}).advance_seconds * 1000;
      return { now: ctx.nowIso(), offset_seconds: ctx.clockOffsetMs / 1000 };
    });
  };
}

function workspaceOr404(ctx: EmulatorContext, id: string) {
  const ws = ctx.state.workspaces[id];
  if (!ws) throw notFound("workspace", id);
  return ws;
}
