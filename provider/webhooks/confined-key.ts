/**
 * A project-confined Webhooks key reaches its own project only (emulator/README.md,
 * "Where the spec is silent"): it cannot change workspace-wide state (403 `forbidden`,
 * reason `project_confined`), and naming another project of the workspace is 403
 * `forbidden`, reason `project` (spec 1: "no access to the named project"). Preview
 * says so first, from ONE `GET /v1/auth/me` per operation and connection: for the
 * resources that declare workspace-wide state (workspace settings, the workspace's
 * event type policy, a workspace-wide event type), and for every resource whose
 * `projectId` names another project than the key's.
 */
import type { CheckFailure, OperationContext } from "../engine/fields";
import { unlessUnreachable } from "../engine/remote-checks";
import { containsUnknown } from "../engine/unknown";
import { authMe } from "./key-scope";

/** The project the key is confined to; undefined for a workspace key, or when it cannot be read. */
async function confinedProject(ctx: OperationContext): Promise<string | undefined> {
  const me = await authMe(ctx).catch(unlessUnreachable);
  return typeof me?.project_id === "string" && me.project_id !== "" ? me.project_id : undefined;
}

/** A preview failure on `property` when the key is confined and the resource declares workspace-wide `what`. */
export async function workspaceWideWithConfinedKey(ctx: OperationContext, property: string, what: string): Promise<CheckFailure[]> {
  const project = await confinedProject(ctx);
  if (!project) return [];
  return [
    {
      property,
      reason: `The Webhooks key is confined to project ${project}, and ${what} is workspace-wide: the service refuses the change (403 forbidden, project_confined). Set projectId: "${project}" where the resource takes one, or use a key that is not confined to a project.`,
    },
  ];
}

/**
 * A preview failure on `projectId` when the key is confined to another project than
 * the one it names. No read when `projectId` is omitted (the key's own project) or not
 * known yet.
 */
export async function otherProjectWithConfinedKey(ctx: OperationContext, projectId: unknown, noun: string): Promise<CheckFailure[]> {
  if (typeof projectId !== "string" || containsUnknown(projectId)) return [];
  const project = await confinedProject(ctx);
  if (!project || project === projectId) return [];
  return [
    {
      property: "projectId",
      reason: `The Webhooks key is confined to project ${project}, and this ${noun} names project ${projectId}: the service refuses it (403 forbidden, reason project). Set projectId to "${project}" (or omit it), or use a key of project ${projectId} or one not confined to a project (a profile).`,
    },
  ];
}
