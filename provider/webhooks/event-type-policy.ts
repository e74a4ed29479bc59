/**
 * The event type policy of the workspace or of one project (spec document 2, "Event
 * type and policy"): `strict` or `lenient`. A setting, not an object: create reads the
 * policy found (kept in `previous`, with whether a project inherited it) and PUTs the
 * declared one; a change is one PUT; delete puts the previous value back, unless the
 * policy was changed since (by another stack or a person): then it is left, with a warning.
 *
 * The API cannot remove a project's override (design note in
 * emulator/docs/webhooks-catalog-sources.md): a project that inherited its policy gets,
 * on delete, an override equal to the workspace's policy at that moment.
 */
import { z } from "zod";
import { defineResource, type ApplyContext, type Props } from "../engine/fields";
import { otherProjectWithConfinedKey, workspaceWideWithConfinedKey } from "./confined-key";
import { projectOfScopeId, projectQuery, scopeId } from "./event-type";

const POLICY_PATH = "/v1/event-types/policy";
const POLICY_VALUE = z.enum(["strict", "lenient"]).meta({ title: "EventTypePolicyValue" });

async function putPolicy(ctx: ApplyContext, path: string, policy: unknown): Promise<void> {
  await ctx.client.request({ method: "PUT", path, body: { policy } });
}

export const eventTypePolicyDefinition = defineResource({
  kind: "webhooks:EventTypePolicy",
  description: "`svc.webhooks.EventTypePolicy`: whether unregistered event types are refused (`strict`) or added to the catalog (`lenient`), for the workspace or one project.",
  product: "webhooks",
  idDescription: "its scope: `workspace` or `project/<projectId>`",
  noun: "event type policy",
  changeNote: "The value found before is restored on delete.",
  paths: { create: POLICY_PATH, item: (id) => `${POLICY_PATH}${projectQuery(projectOfScopeId(id).projectId)}` },
  adoptHint: "The policy always exists; run `pulumi up` again.",
  fields: {
    policy: { mode: "put", api: "policy", input: POLICY_VALUE, put: { path: "", bodyKey: "policy" }, required: true, description: "`strict`: publishing an unregistered type is refused (422 `unknown_event_type`); `lenient`: it is added to the catalog. A change is one PUT." },
    // Omitted: the workspace's policy. A project's policy is its override.
    projectId: { mode: "createOnly", api: "project_id", input: z.string().min(1), uniqueName: true, description: "The project whose override this is; omit for the workspace's policy (which projects without an override follow). Changing it REPLACES the resource." },
    profile: { mode: "createOnly", input: z.string().min(1), description: "Connection profile (see `EndpointArgs.profile`). Changing it REPLACES the resource." },
    inherited: { mode: "output", api: "inherited", type: z.boolean(), description: "True while a project has no override of its own." },
    previous: {
      mode: "output",
      type: z
        .object({
          policy: POLICY_VALUE,
          inherited: z.boolean().describe("True when the project had no override. The API cannot remove an override: delete then sets the workspace's value as the project's."),
        })
        .meta({ title: "PreviousEventTypePolicy", description: "The policy found before the resource took over, put back on delete (unless someone else changed it since)." })
        .nullable(),
      description: "The policy found before the resource took over, put back on delete (unless someone else changed it since)." },
  },
  hooks: {
    checkRemote: async (inputs, ctx) =>
      inputs.projectId === undefined
        ? workspaceWideWithConfinedKey(ctx, "projectId", "the policy with no projectId (the workspace's)")
        : otherProjectWithConfinedKey(ctx, inputs.projectId, "event type policy"),
  },
  singleton: {
    idOf: (inputs) => scopeId(inputs.projectId),
    priorField: "previous",
    prior: (remote) => ({ policy: remote.policy, inherited: remote.inherited === true }),
    async restore(ctx, prior: Props) {
      const { projectId } = projectOfScopeId(ctx.id);
      if (projectId && prior.inherited === true) {
        // The nearest to "no override": the value the project would inherit now.
        const workspace = await ctx.client.request<{ policy: string }>({ method: "GET", path: POLICY_PATH });
        return putPolicy(ctx, ctx.itemPath, workspace.body.policy);
      }
      return putPolicy(ctx, ctx.itemPath, prior.policy);
    },
    // One setting, the policy: put back (as it was inherited or not) only while it holds what this resource wrote.
    unchangedSince: (prior, outputs, remote) =>
      remote.policy === outputs.policy ? { restore: prior, changed: [] } : { restore: {}, changed: [{ setting: "policy", holds: remote.policy, found: prior.policy }] },
  },
});
