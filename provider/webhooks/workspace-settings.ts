/**
 * The workspace's settings (spec document 2, "Operational endpoints and workspace";
 * `PATCH /v1/workspace {endpoint_verification}`): a setting, not an object. Create
 * reads the value found (kept in `previous`) and PATCHes the declared one; a change
 * is one PATCH; delete PATCHes the previous value back.
 */
import { z } from "zod";
import type { ResourceDefinition } from "../engine/fields";
import { workspaceWideWithConfinedKey } from "./confined-key";
import { planHasFeature, readWorkspace } from "./plan-ceilings";

const OPTIONAL_FEATURE = "optional_endpoint_verification";

const notEntitledMessage = (plan?: string) =>
  `The workspace's plan${plan ? ` "${plan}"` : ""} requires endpoint verification: turning it off needs the ${OPTIONAL_FEATURE} feature (402 not_entitled). Keep endpointVerification "required", or upgrade the plan.`;

export const workspaceSettingsDefinition: ResourceDefinition = {
  kind: "webhooks:WorkspaceSettings",
  product: "webhooks",
  noun: "workspace settings",
  paths: { create: "/v1/workspace", item: () => "/v1/workspace" },
  adoptHint: "The workspace always exists; run `pulumi up` again.",
  fields: {
    endpointVerification: { mode: "patch", api: "endpoint_verification", input: z.enum(["required", "optional"]) },
    profile: { mode: "createOnly", input: z.string().min(1) },
    workspaceId: { mode: "output", api: "id" },
    plan: { mode: "output", api: "plan" },
    /** What was found before the resource took over; PATCHed back on delete. */
    previous: { mode: "output" },
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
};
