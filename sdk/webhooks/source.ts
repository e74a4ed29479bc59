/**
 * `svc.webhooks.Source`: an inbound provider webhook ingest source.
 *
 *   const payments = new svc.webhooks.Source("payments", {
 *     provider: "payments",
 *     secret: config.requireSecret("paymentsSigningSecret"),
 *     eventTypePrefix: "payments.",
 *   });
 *   export const paymentsIngestUrl = payments.ingestUrl;
 */
import * as pulumi from "@pulumi/pulumi";
import * as dynamic from "@pulumi/pulumi/dynamic";
import { programName, resourceProps } from "../props";
import { providerShim } from "../shim";
import { moduleAndType, TYPE_TOKENS } from "../tokens";

const KIND = "webhooks:Source";

export type SourceProvider = "payments" | "codehost" | "broker" | "generic";
export type SourceEventTypeSource = "provider" | "header" | "path";
export type BrokerQueueKind = "transient" | "durable" | "quorum";

export interface SourceArgs {
  /** Who sends the webhooks. Changing it REPLACES the source. */
  provider: pulumi.Input<SourceProvider>;
  /** A name for people to recognise the source by. Omit for none. */
  name?: pulumi.Input<string>;
  /** The project the source belongs to. Omit for the workspace's default project. Changing it moves the source (one PATCH). */
  projectId?: pulumi.Input<string>;
  /** Where the event type is read: `provider` (default), a `header`, or a `path` into the JSON body. */
  eventTypeSource?: pulumi.Input<SourceEventTypeSource>;
  /** The header name or body path locating the type; required for `header` and `path`. */
  eventTypeKey?: pulumi.Input<string>;
  /** Prefixed to every type read, e.g. `payments.`. */
  eventTypePrefix?: pulumi.Input<string>;
  /** Used when the type cannot be read (otherwise `webhook.received`). */
  defaultEventType?: pulumi.Input<string>;
  /** Store received requests as captures. Default false. */
  captureEnabled?: pulumi.Input<boolean>;
  /**
   * The provider's signing secret (`payments`, `codehost`) or the broker's password
   * (`broker`): required for those (the preview fails without it). For `generic`,
   * optional: omitted, one is generated and returned once as `generatedSecret`.
   * Changing it calls `rotate-secret` with the new value (no replacement; the previous
   * one keeps verifying for 24 hours). Always stored as a Pulumi secret.
   */
  secret?: pulumi.Input<string>;
  /** `broker` sources: the broker's identifier. A broker source needs it, `brokerHost`, `brokerUser`, `brokerExchange` and `brokerTopic` (the preview fails without them). */
  brokerIdentifier?: pulumi.Input<string>;
  /** A public host name: the API will not connect to private or local addresses. */
  brokerHost?: pulumi.Input<string>;
  /** `broker` sources: the virtual host on the broker. */
  brokerVhost?: pulumi.Input<string>;
  /** `broker` sources: the user to connect as (its password is `secret`). */
  brokerUser?: pulumi.Input<string>;
  /** `broker` sources: the exchange to bind to. */
  brokerExchange?: pulumi.Input<string>;
  /** `broker` sources: the topic (routing key) received. */
  brokerTopic?: pulumi.Input<string>;
  /** 1 to 65535 (default 5672 at the service). */
  brokerPort?: pulumi.Input<number>;
  /** `broker` sources: the kind of queue, `transient`, `durable` or `quorum`. */
  brokerQueues?: pulumi.Input<BrokerQueueKind>;
  /** `enabled` or `disabled` (a disabled source answers 404 on ingest). Omit to leave it to the service. */
  status?: pulumi.Input<"enabled" | "disabled">;
  /** Id of an existing source to take over instead of creating one (read, then PATCH and rotate-secret as needed). */
  adoptId?: pulumi.Input<string>;
  /** Connection profile (see `EndpointArgs.profile`). Changing it REPLACES the source. */
  profile?: string;
}

const SOURCE_INPUTS = [
  "provider", "name", "projectId", "eventTypeSource", "eventTypeKey", "eventTypePrefix", "defaultEventType", "captureEnabled", "secret",
  "brokerIdentifier", "brokerHost", "brokerVhost", "brokerUser", "brokerExchange", "brokerTopic", "brokerPort", "brokerQueues", "status", "adoptId", "profile",
] as const satisfies readonly (keyof SourceArgs)[];

export class Source extends dynamic.Resource {
  static readonly __pulumiType: string = TYPE_TOKENS[KIND];

  /** Read an existing source into the program (no changes are made to it). */
  static get(name: string, id: pulumi.Input<pulumi.ID>, opts?: pulumi.CustomResourceOptions, state?: { profile?: string }): Source {
    return new Source(name, { ...(state ?? {}) } as SourceArgs, { ...opts, id });
  }

  declare readonly provider: pulumi.Output<SourceProvider>;
  declare readonly name: pulumi.Output<string | null>;
  declare readonly projectId: pulumi.Output<string>;
  declare readonly eventTypeSource: pulumi.Output<SourceEventTypeSource>;
  declare readonly eventTypeKey: pulumi.Output<string | null>;
  declare readonly eventTypePrefix: pulumi.Output<string | null>;
  declare readonly defaultEventType: pulumi.Output<string | null>;
  declare readonly captureEnabled: pulumi.Output<boolean>;
  /** A seal of the secret last applied (`hmac-sha256:...`, keyed by the API key; never the value), or null when the service generated it. */
  declare readonly secret: pulumi.Output<string | null>;
  /** A generic source's generated secret, from create or a rotation without a value (secret); null when `secret` is given. */
  declare readonly generatedSecret: pulumi.Output<string | null>;
  declare readonly brokerIdentifier: pulumi.Output<string | null>;
  declare readonly brokerHost: pulumi.Output<string | null>;
  declare readonly brokerVhost: pulumi.Output<string | null>;
  declare readonly brokerUser: pulumi.Output<string | null>;
  declare readonly brokerExchange: pulumi.Output<string | null>;
  declare readonly brokerTopic: pulumi.Output<string | null>;
  declare readonly brokerPort: pulumi.Output<number | null>;
  declare readonly brokerQueues: pulumi.Output<BrokerQueueKind | null>;
  declare readonly status: pulumi.Output<"enabled" | "disabled">;
  /** Where the provider sends its webhooks (`POST /v1/ingest/{id}`). */
  declare readonly ingestUrl: pulumi.Output<string>;
  /** ISO 8601 UTC. */
  declare readonly createdAt: pulumi.Output<string>;
  /** ISO 8601 UTC. */
  declare readonly updatedAt: pulumi.Output<string>;
  declare readonly adoptId: pulumi.Output<string | null>;
  declare readonly profile: pulumi.Output<string | null>;
  /** The resource's name in the program, set by the SDK: an adoption of an object another resource of the program holds fails naming it. */
  declare readonly resourceName: pulumi.Output<string | null>;

  constructor(name: string, args: SourceArgs, opts?: pulumi.CustomResourceOptions) {
    const { module, type } = moduleAndType(KIND);
    const props = resourceProps(name, args, SOURCE_INPUTS, ["generatedSecret", "ingestUrl", "createdAt", "updatedAt"]);
    props.resourceName = programName(name, opts);
    props.secret = args.secret === undefined ? undefined : pulumi.secret(args.secret);
    const secretOutputs = ["secret", "generatedSecret"];
    super(providerShim(KIND), name, props, { ...opts, additionalSecretOutputs: [...(opts?.additionalSecretOutputs ?? []), ...secretOutputs] }, module, type);
  }
}
