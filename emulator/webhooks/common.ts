/**
 * Pieces every Webhooks route uses: authentication with the product's scopes,
 * and project resolution (explicit, the credential's confinement, or the workspace's
 * default).
 */
import type { FastifyRequest } from "fastify";
import { authenticateApp, type AppPrincipal, type AppScope } from "../core/auth";
import type { EmulatorContext } from "../core/context";
import { ApiError, forbidden, notFound } from "../core/errors";

export type Principal = AppPrincipal;

export function auth(ctx: EmulatorContext, req: FastifyRequest, need: AppScope): Principal {
  return authenticateApp(ctx, req, "webhooks", need);
}

/**
 * The project a write applies to: the given one (404 `project` if not in the
 * workspace or outside a confined credential's reach), else the credential's
 * confinement, else the workspace's default project (404 `default_project` when none).
 */
export function resolveProject(ctx: EmulatorContext, principal: Principal, projectId: string | null | undefined): string {
  if (projectId) {
    assertProjectVisible(ctx, principal, projectId);
    return projectId;
  }
  if (principal.confinedProject) return principal.confinedProject;
  const id = principal.workspace.default_project_id;
  if (!id) throw new ApiError(404, "not_found", "The workspace has no default project; name one.", { reason: "default_project" });
  return id;
}

/**
 * A project the caller names (`project_id`): 404 `project` unless it is in the
 * caller's workspace; 403 `forbidden`, reason `project` (spec 1: "no access to the
 * named project") when a project-confined credential names another project of its
 * workspace. Another project's objects, reached by their ids, stay 404 (`visible`).
 */
export function assertProjectVisible(ctx: EmulatorContext, principal: Principal, projectId: string): void {
  const project = ctx.state.projects[projectId];
  if (!project || project.workspace_id !== principal.workspace.id) throw notFound("project", projectId);
  if (principal.confinedProject && principal.confinedProject !== projectId) {
    throw forbidden("project", `This key is confined to project ${principal.confinedProject}; it has no access to project ${projectId}. Use a key of that project, or one that is not confined to a project.`);
  }
}

/** A resource is visible when it is in the caller's workspace and, for a confined credential, its project. */
export function visible(principal: Principal, record: { workspace_id: string; project_id: string | null }): boolean {
  return record.workspace_id === principal.workspace.id && (!principal.confinedProject || record.project_id === principal.confinedProject || record.project_id === null);
}

/**
 * A project-confined credential reaches its own project's objects and reads the
 * workspace-wide entries its project's listings include, but never changes
 * workspace-wide state (the workspace's settings, the workspace-wide event type policy
 * and catalog, workspace-wide operational endpoints): 403 `forbidden`, reason
 * `project_confined` (spec document 1's reason for a credential limited to a project).
 */
export function assertMayChangeWorkspaceWide(principal: Principal, what: string): void {
  if (principal.confinedProject) {
    throw forbidden("project_confined", `This key is confined to project ${principal.confinedProject}; it cannot change ${what}. Name the project, or use a key that is not confined to a project.`);
  }
}

/** The one rule-to-422 helper lives in the core; re-exported for the Webhooks routes. */
export { throwViolations } from "../core/violations";

/**
 * Records newest first, by `created_at`; records made in the same millisecond stay newest first too (the
 * store keeps insertion order, and the sort is stable).
 */
export const newestFirst = <T extends { created_at: string }>(records: T[]): T[] =>
  records.reverse().sort((a, b) => (a.created_at < b.created_at ? 1 : a.created_at > b.created_at ? -1 : 0));
