/**
 * Event types and the type policy (spec document 2, "Event type and policy" and
 * "Event types"; design/api-assumptions.md for the response shapes).
 *
 * Scopes: an entry is workspace-wide (`project_id` null) or pinned to a project; a
 * project's entry shadows a workspace-wide one of the same name in that project.
 * Where a route takes `project_id` and none is given, the scope is workspace-wide. A
 * project-confined credential reads with its project as the scope (its listing includes
 * the workspace-wide entries), and is refused any workspace-wide change: registering or
 * deleting a workspace-wide entry, or setting the workspace's policy, is 403
 * `project_confined` (it must name its project).
 *
 * `checkPublish` is what every publish (API and ingest) runs before fan-out; types it
 * adds under `lenient` are workspace-wide, so that a later workspace-wide
 * registration of the same name is a loud 409, never a silently shadowed schema.
 */
import type { FastifyInstance } from "fastify";
import { z } from "zod";
import type { EmulatorContext } from "../core/context";
import { ApiError, conflict, notFound } from "../core/errors";
import { offsetPage, offsetPageQuery, parse } from "../core/validation";
import { payloadProblem, schemaProblem, type SchemaProblem } from "../../rules/event-schema";
import { assertMayChangeWorkspaceWide, assertProjectVisible, auth, type Principal } from "./common";
import { EVENT_TYPE_POLICIES, workspaceSettings, type EventTypePolicy } from "./workspace";
import { dict } from "../core/dict";
import { throwViolations } from "../core/violations";
import { eventTypeTextViolations } from "../../rules/event-type";

export type EventTypeOrigin = "manual" | "ingest" | "lenient";

export interface EventTypeRecord {
  workspace_id: string;
  project_id: string | null;
  name: string;
  description: string | null;
  payload_schema: Record<string, unknown> | null;
  origin: EventTypeOrigin;
  created_at: string;
}

/** The type ingest publishes when a source could not read a type and has no default. */
export const RECEIVED_EVENT_TYPE = "webhook.received";

type EventTypes = Record<string, EventTypeRecord>;

function eventTypesState(ctx: EmulatorContext): EventTypes {
  return ctx.store.product<EventTypes>("webhooks.eventTypes", () => dict());
}

const keyOf = (workspaceId: string, projectId: string | null, name: string) => JSON.stringify([workspaceId, projectId, name]);

/** The entry in exactly this scope. */
function entryIn(ctx: EmulatorContext, workspaceId: string, projectId: string | null, name: string): EventTypeRecord | undefined {
  return eventTypesState(ctx)[keyOf(workspaceId, projectId, name)];
}

/** The entry in force for a project: its own, else the workspace-wide one. */
export function resolveEventType(ctx: EmulatorContext, workspaceId: string, projectId: string, name: string): EventTypeRecord | undefined {
  return entryIn(ctx, workspaceId, projectId, name) ?? entryIn(ctx, workspaceId, null, name);
}

function insert(ctx: EmulatorContext, record: EventTypeRecord): EventTypeRecord {
  eventTypesState(ctx)[keyOf(record.workspace_id, record.project_id, record.name)] = record;
  ctx.store.changed();
  return record;
}

/** Add a workspace-wide entry unless the name is already in the workspace's catalog. */
export function registerIfAbsent(ctx: EmulatorContext, workspaceId: string, name: string, origin: EventTypeOrigin): void {
  if (entryIn(ctx, workspaceId, null, name)) return;
  insert(ctx, { workspace_id: workspaceId, project_id: null, name, description: null, payload_schema: null, origin, created_at: ctx.nowIso() });
}

/** The policy in force: the project's override, else the workspace's. */
export function effectivePolicy(ctx: EmulatorContext, workspaceId: string, projectId: string | null): { policy: EventTypePolicy; project_id: string | null; inherited: boolean } {
  const settings = workspaceSettings(ctx, workspaceId);
  const override = projectId === null ? undefined : settings.project_policies[projectId];
  return { policy: override ?? settings.event_type_policy, project_id: projectId, inherited: projectId !== null && override === undefined };
}

export const problemError = (p: SchemaProblem) => new ApiError(422, p.code, p.message, p.details);

/**
 * The type policy and schema of one publish (API or ingest), before fan-out:
 * under `strict` an unregistered type is 422 `unknown_event_type`; a registered
 * schema must match (422 `invalid_payload`, reason `payload`); under `lenient` an
 * unregistered type is added to the catalog with the given origin. Synchronous.
 */
export function checkPublish(ctx: EmulatorContext, workspaceId: string, projectId: string, eventType: string, payload: unknown, origin: "lenient" | "ingest"): void {
  const entry = resolveEventType(ctx, workspaceId, projectId, eventType);
  if (!entry) {
    if (effectivePolicy(ctx, workspaceId, projectId).policy === "strict") {
      throw new ApiError(422, "unknown_event_type", `Event type "${eventType}" is not registered and the policy is strict.`, { event_type: eventType });
    }
    registerIfAbsent(ctx, workspaceId, eventType, origin);
    return;
  }
  if (entry.payload_schema) {
    const problem = payloadProblem(entry.payload_schema, payload);
    if (problem) throw problemError(problem);
  }
}

function view(e: EventTypeRecord) {
  return { name: e.name, description: e.description, project_id: e.project_id, payload_schema: e.payload_schema, origin: e.origin, created_at: e.created_at };
}

/** The scope a read names: `project_id` if given (and reachable), else workspace-wide or the confined project. */
function scopeOf(ctx: EmulatorContext, principal: Principal, projectId: string | null | undefined): string | null {
  if (projectId) {
    assertProjectVisible(ctx, principal, projectId);
    return projectId;
  }
  return principal.confinedProject;
}

/** The scope a change names: `project_id` if given (and reachable), else workspace-wide, which a confined credential may not change. */
function changedScopeOf(ctx: EmulatorContext, principal: Principal, projectId: string | null | undefined, what: string): string | null {
  if (projectId) return scopeOf(ctx, principal, projectId);
  assertMayChangeWorkspaceWide(principal, what);
  return null;
}

const byName = (a: EventTypeRecord, b: EventTypeRecord) =>
  a.name < b.name ? -1 : a.name > b.name ? 1 : (a.project_id ?? "") < (b.project_id ?? "") ? -1 : (a.project_id ?? "") > (b.project_id ?? "") ? 1 : 0;

/**
 * A catalog: for a project, its own entries plus the workspace-wide ones it does not
 * shadow; with no project, every entry of the workspace.
 */
function catalog(ctx: EmulatorContext, workspaceId: string, projectId: string | null): EventTypeRecord[] {
  const all = Object.values(eventTypesState(ctx)).filter((e) => e.workspace_id === workspaceId);
  if (projectId === null) return all.sort(byName);
  const own = all.filter((e) => e.project_id === projectId);
  const shadowed = new Set(own.map((e) => e.name));
  return [...own, ...all.filter((e) => e.project_id === null && !shadowed.has(e.name))].sort(byName);
}

const createBody = z.object({
  name: z.string().min(1).max(255),
  description: z.string().max(1024).nullable().optional(),
  project_id: z.string().nullable().optional(),
  payload_schema: z.record(z.string(), z.unknown()).nullable().optional(),
});
const scopeQuery = z.object({ project_id: z.string().optional() });
const listQuery = offsetPageQuery.extend(scopeQuery.shape);
const policyBody = z.object({ policy: z.enum(EVENT_TYPE_POLICIES) });

type NameParams = { Params: { name: string } };

export function registerEventTypes(app: FastifyInstance, ctx: EmulatorContext): void {
  app.get("/v1/event-types", async (req) => {
    const principal = auth(ctx, req, "read");
    const q = parse(listQuery, req.query, "query");
    return offsetPage(catalog(ctx, principal.workspace.id, scopeOf(ctx, principal, q.project_id)).map(view), q);
  });

  app.post("/v1/event-types", async (req, reply) => {
    const principal = auth(ctx, req, "admin");
    const body = parse(createBody, req.body ?? {});
    throwViolations(eventTypeTextViolations(body));
    const projectId = changedScopeOf(ctx, principal, body.project_id, "the workspace-wide event type catalog");
    const schema = body.payload_schema ?? null;
    const problem = schema === null ? undefined : schemaProblem(schema);
    if (problem) throw problemError(problem);
    // Synchronous from the check to the insert: parallel creates cannot both succeed.
    if (entryIn(ctx, principal.workspace.id, projectId, body.name)) {
      throw conflict("event_type_exists", `Event type "${body.name}" is already registered in this scope.`, { event_type: body.name });
    }
    const record = insert(ctx, {
      workspace_id: principal.workspace.id,
      project_id: projectId,
      name: body.name,
      description: body.description ?? null,
      payload_schema: schema,
      origin: "manual",
      created_at: ctx.nowIso(),
    });
    return reply.status(201).send(view(record));
  });

  app.get("/v1/event-types/policy", async (req) => {
    const principal = auth(ctx, req, "read");
    const q = parse(scopeQuery, req.query, "query");
    return effectivePolicy(ctx, principal.workspace.id, scopeOf(ctx, principal, q.project_id));
  });

  app.put("/v1/event-types/policy", async (req) => {
    const principal = auth(ctx, req, "admin");
    const q = parse(scopeQuery, req.query, "query");
    const { policy } = parse(policyBody, req.body ?? {});
    const projectId = changedScopeOf(ctx, principal, q.project_id, "the workspace-wide event type policy");
    const settings = workspaceSettings(ctx, principal.workspace.id);
    if (projectId === null) settings.event_type_policy = policy;
    else settings.project_policies[projectId] = policy;
    ctx.store.changed();
    return effectivePolicy(ctx, principal.workspace.id, projectId);
  });

  app.get<NameParams>("/v1/event-types/:name", async (req) => {
    const principal = auth(ctx, req, "read");
    const q = parse(scopeQuery, req.query, "query");
    const entry = entryIn(ctx, principal.workspace.id, scopeOf(ctx, principal, q.project_id), req.params.name);
    if (!entry) throw notFound("event_type", req.params.name);
    return view(entry);
  });

  app.delete<NameParams>("/v1/event-types/:name", async (req, reply) => {
    const principal = auth(ctx, req, "admin");
    const q = parse(scopeQuery, req.query, "query");
    const key = keyOf(principal.workspace.id, changedScopeOf(ctx, principal, q.project_id, "the workspace-wide event type catalog"), req.params.name);
    if (!eventTypesState(ctx)[key]) throw notFound("event_type", req.params.name);
    delete eventTypesState(ctx)[key];
    ctx.store.changed();
    return reply.status(204).send();
  });
}
