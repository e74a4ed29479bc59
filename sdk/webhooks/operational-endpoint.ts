/**
 * `svc.webhooks.OperationalEndpoint`: receives a project's operational events
 * (`delivery.dead`, `endpoint.auto_disabled`, ...), plus workspace-wide ones.
 *
 *   new svc.webhooks.OperationalEndpoint("on-call", {
 *     url: "https://ops.example.com/webhooks",
 *     eventTypes: ["delivery.dead", "endpoint.auto_disabled"],
 *   });
 *
 * The API has no update: any change REPLACES it.
 */
import * as pulumi from "@pulumi/pulumi";
import * as dynamic from "@pulumi/pulumi/dynamic";
import { programName, resourceProps } from "../props";
import { providerShim } from "../shim";
import { moduleAndType, TYPE_TOKENS } from "../tokens";

const KIND = "webhooks:OperationalEndpoint";

/** The operational event type names the service knows. */
export type OperationalEventType = "endpoint.auto_disabled" | "endpoint.enabled" | "delivery.dead" | "source.signature_failed" | "quota.warning" | "usage.threshold_reached";

export interface OperationalEndpointArgs {
  /** An absolute `https://` URL. */
  url: pulumi.Input<string>;
  /** 1 to 50 operational type names (an unknown name fails the preview); order and repeats do not matter. */
  eventTypes: pulumi.Input<pulumi.Input<OperationalEventType>[]>;
  /** The project whose operational events it receives. Omit for the workspace's default project. */
  projectId?: pulumi.Input<string>;
  /** Free text, at most 1024 characters. */
  description?: pulumi.Input<string>;
  /** Id of an existing operational endpoint to take over instead of creating one (its fields must match). */
  adoptId?: pulumi.Input<string>;
  /** Connection profile (see `EndpointArgs.profile`). */
  profile?: string;
}

export class OperationalEndpoint extends dynamic.Resource {
  static readonly __pulumiType: string = TYPE_TOKENS[KIND];

  static get(name: string, id: pulumi.Input<pulumi.ID>, opts?: pulumi.CustomResourceOptions, state?: { profile?: string }): OperationalEndpoint {
    return new OperationalEndpoint(name, { ...(state ?? {}) } as OperationalEndpointArgs, { ...opts, id });
  }

  declare readonly url: pulumi.Output<string>;
  declare readonly eventTypes: pulumi.Output<OperationalEventType[]>;
  declare readonly projectId: pulumi.Output<string | null>;
  declare readonly description: pulumi.Output<string | null>;
  /** ISO 8601 UTC. */
  declare readonly createdAt: pulumi.Output<string>;
  declare readonly adoptId: pulumi.Output<string | null>;
  declare readonly profile: pulumi.Output<string | null>;
  /** The resource's name in the program, set by the SDK: an adoption of an object another resource of the program holds fails naming it. */
  declare readonly resourceName: pulumi.Output<string | null>;

  constructor(name: string, args: OperationalEndpointArgs, opts?: pulumi.CustomResourceOptions) {
    const { module, type } = moduleAndType(KIND);
    const props = resourceProps(name, args, ["url", "eventTypes", "projectId", "description", "adoptId", "profile"], ["createdAt"]);
    props.resourceName = programName(name, opts);
    super(providerShim(KIND), name, props, opts, module, type);
  }
}
