/**
 * The workspace's settings (spec document 2, "Operational endpoints and workspace";
 * `PATCH /v1/workspace {endpoint_verification}`): a setting, not an object. Create
 * reads the value found (kept in `previous`) and PATCHes the declared one; a change
 * is one PATCH; delete PATCHes the previous value back, unless the setting was changed
 * since (by another stack or a person): then it is left, with a warning.
 */
import { z } from "zod";
import { defineResource } from "../engine/fields";
import { workspaceWideWithConfinedKey } from "./confined-key";
import { planHasFeature, readWorkspace } from "./plan-ceilings";

const VERIFICATION = z.enum(["required", "optional"]).meta({ title: "EndpointVerification" });

const OPTIONAL_FEATURE = "optional_endpoint_verification";

const notEntitledMessage = (plan?: string) =>
  `The workspace's plan${plan ? ` "${plan}"` : ""} requires endpoint verification: turning it off needs the ${OPTIONAL_FEATURE} feature (402 not_entitled). Keep endpointVerification "required", or upgrade the plan.`;

export const workspaceSettingsDefinition = defineResource({
  kind: "webhooks:WorkspaceSettings",
  description: "`svc.webhooks.WorkspaceSettings`: settings of the Webhooks workspace.",
  product: "webhooks",
  idDescription: "`workspace` (one setting per workspace)",
  noun: "workspace settings",
  changeNote: "The previous value is restored on delete.",
  paths: { create: "/v1/workspace", item: () => "/v1/workspace" },
  adoptHint: "The workspace always exists; run `pulumi up` again.",
  fields: {
    endpointVerification: { mode: "patch", api: "endpoint_verification", input: VERIFICATION, required: true, description: "`required`: endpoints must pass verification; `optional`: they need not. Turning it off on a plan without `optional_endpoint_verification` is refused (402 `not_entitled`). A change is one PATCH." },
    profile: { mode: "createOnly", input: z.string().min(1), description: "Connection profile (see `EndpointArgs.profile`): which workspace." },
    workspaceId: { mode: "output", api: "id", type: z.string(), description: "The workspace's id." },
    plan: { mode: "output", api: "plan", type: z.string(), description: "The workspace's plan, e.g. `pro`." },
    previous: { mode: "output", type: z.object({ endpointVerification: VERIFICATION }).meta({ title: "PreviousWorkspaceSettings", description: "The settings found before the resource took over." }).nullable(), description: "The settings found before the resource took over, put back on delete (unless someone else changed it since)." },
  },
  singleton: { idOf: () => "workspace", priorField: "previous" },
  hooks: {
    async checkRemote(inputs, ctx) {
      const confined = await workspaceWideWithConfinedKey(ctx, "endpointVerification", "the workspace's settings");
      if (confined.length > 0) return confined;
      if (inputs.endpointVerification !== "optional") return [];
      const ws = await readWorkspace(ctx);
      if (!ws || planHasFeature(ws.plan, OPTIONAL_FEATURE) !== false) return [];
      return [{ property: "endpointVerification", reason: notEntitledMessage(ws.plan) }];
    },
    explainError(err) {
      if (err.code === "not_entitled" && err.details.feature === OPTIONAL_FEATURE) return notEntitledMessage();
      return undefined;
    },
  },
});
