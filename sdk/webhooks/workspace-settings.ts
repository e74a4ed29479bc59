/**
 * `svc.webhooks.WorkspaceSettings`: settings of the Webhooks workspace.
 *
 *   new svc.webhooks.WorkspaceSettings("settings", { endpointVerification: "required" });
 *
 * The workspace always exists: creating the resource takes the settings over (the
 * values found are kept in `previous`); deleting it puts those values back.
 */
import * as pulumi from "@pulumi/pulumi";
import * as dynamic from "@pulumi/pulumi/dynamic";
import { resourceProps } from "../props";
import { providerShim } from "../shim";
import { moduleAndType, TYPE_TOKENS } from "../tokens";

const KIND = "webhooks:WorkspaceSettings";

export interface WorkspaceSettingsArgs {
  /**
   * `required`: endpoints must pass verification; `optional`: they need not. Turning it
   * off on a plan without `optional_endpoint_verification` is refused (402 `not_entitled`).
   * A change is one PATCH.
   */
  endpointVerification: pulumi.Input<"required" | "optional">;
  /** Connection profile (see `EndpointArgs.profile`): which workspace. */
  profile?: string;
}

/** The settings found before the resource took over. */
export interface PreviousWorkspaceSettings {
  endpointVerification: "required" | "optional";
}

export class WorkspaceSettings extends dynamic.Resource {
  static readonly __pulumiType: string = TYPE_TOKENS[KIND];

  declare readonly endpointVerification: pulumi.Output<"required" | "optional">;
  /** The workspace's id. */
  declare readonly workspaceId: pulumi.Output<string>;
  /** The workspace's plan, e.g. `pro`. */
  declare readonly plan: pulumi.Output<string>;
  /** The settings found before the resource took over, put back on delete (unless someone else changed it since). */
  declare readonly previous: pulumi.Output<PreviousWorkspaceSettings | null>;
  declare readonly profile: pulumi.Output<string | null>;

  constructor(name: string, args: WorkspaceSettingsArgs, opts?: pulumi.CustomResourceOptions) {
    const { module, type } = moduleAndType(KIND);
    const props = resourceProps(name, args, ["endpointVerification", "profile"], ["workspaceId", "plan", "previous"]);
    super(providerShim(KIND), name, props, opts, module, type);
  }
}
