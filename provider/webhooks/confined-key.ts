/**
 * A project-confined Webhooks key cannot change workspace-wide state (emulator/README.md,
 * "Where the spec is silent"): the service answers 403 `forbidden`, reason
 * `project_confined`. Preview says so first, for the resources that declare
 * workspace-wide state (workspace settings, the workspace's event type policy, a
 * workspace-wide event type), from ONE `GET /v1/auth/me` per process and connection.
 */
import type { CheckFailure, OperationContext } from "../engine/fields";
import { readForCheck } from "../engine/remote-checks";

/** The project the key is confined to; undefined for a workspace key, or when it cannot be read. */
async function confinedProject(ctx: OperationContext): Promise<string | undefined> {
  const me = await readForCheck(ctx, "webhooks:auth-me", async () => (await ctx.client.request<{ project_id?: unknown }>({ method: "GET", path: "/v1/auth/me" })).body);
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
