/**
 * `svc.webhooks.EventTypePolicy`: whether unregistered event types are refused
 * (`strict`) or added to the catalog (`lenient`), for the workspace or one project.
 *
 *   new svc.webhooks.EventTypePolicy("production-strict", { policy: "strict", projectId: production.id });
 *
 * The policy always exists: creating the resource takes it over (the value found is
 * kept in `previous`), deleting it puts that value back.
 */
import * as pulumi from "@pulumi/pulumi";
import * as dynamic from "@pulumi/pulumi/dynamic";
import { resourceProps } from "../props";
import { providerShim } from "../shim";
import { moduleAndType, TYPE_TOKENS } from "../tokens";

const KIND = "webhooks:EventTypePolicy";

export type EventTypePolicyValue = "strict" | "lenient";

export interface EventTypePolicyArgs {
  /** `strict`: publishing an unregistered type is refused (422 `unknown_event_type`); `lenient`: it is added to the catalog. A change is one PUT. */
  policy: pulumi.Input<EventTypePolicyValue>;
  /**
   * The project whose override this is; omit for the workspace's policy (which
   * projects without an override follow). Changing it REPLACES the resource.
   */
  projectId?: pulumi.Input<string>;
  /** Connection profile (see `EndpointArgs.profile`). Changing it REPLACES the resource. */
  profile?: string;
}

/** The policy found before the resource took over, put back on delete (unless someone else changed it since). */
export interface PreviousEventTypePolicy {
  policy: EventTypePolicyValue;
  /** True when the project had no override. The API cannot remove an override: delete then sets the workspace's value as the project's. */
  inherited: boolean;
}

export class EventTypePolicy extends dynamic.Resource {
  static readonly __pulumiType: string = TYPE_TOKENS[KIND];

  /** Read the policy of a scope; the id is `workspace` or `project/<projectId>`. Deleting a resource read this way changes nothing. */
  static get(name: string, id: pulumi.Input<pulumi.ID>, opts?: pulumi.CustomResourceOptions, state?: { profile?: string }): EventTypePolicy {
    return new EventTypePolicy(name, { ...(state ?? {}) } as EventTypePolicyArgs, { ...opts, id });
  }

  declare readonly policy: pulumi.Output<EventTypePolicyValue>;
  declare readonly projectId: pulumi.Output<string | null>;
  /** True while a project has no override of its own. */
  declare readonly inherited: pulumi.Output<boolean>;
  /** The policy found before the resource took over, put back on delete (unless someone else changed it since). */
  declare readonly previous: pulumi.Output<PreviousEventTypePolicy | null>;
  declare readonly profile: pulumi.Output<string | null>;

  constructor(name: string, args: EventTypePolicyArgs, opts?: pulumi.CustomResourceOptions) {
    const { module, type } = moduleAndType(KIND);
    const props = resourceProps(name, args, ["policy", "projectId", "profile"], ["inherited", "previous"]);
    super(providerShim(KIND), name, props, opts, module, type);
  }
}
