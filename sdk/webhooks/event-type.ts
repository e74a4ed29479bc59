/**
 * `svc.webhooks.EventType`: an entry of the Webhooks event type catalog.
 *
 *   new svc.webhooks.EventType("order-created", {
 *     name: "order.created",
 *     description: "An order was placed",
 *     payloadSchema: { type: "object", required: ["id"], properties: { id: { type: "string" } } },
 *   });
 */
import * as pulumi from "@pulumi/pulumi";
import * as dynamic from "@pulumi/pulumi/dynamic";
import { programName, resourceProps } from "../props";
import { providerShim } from "../shim";
import { moduleAndType, TYPE_TOKENS } from "../tokens";

const KIND = "webhooks:EventType";

export interface EventTypeArgs {
  /** The type name, unique in its scope (1 to 255 characters). Changing it REPLACES the entry. */
  name: pulumi.Input<string>;
  /** Free text, at most 1024 characters. The API has no update: changing it REPLACES the entry (deleted first). */
  description?: pulumi.Input<string>;
  /**
   * Project the entry belongs to; it shadows a workspace-wide entry of the same name in
   * that project. Omit for a workspace-wide entry. Changing it REPLACES the entry.
   */
  projectId?: pulumi.Input<string>;
  /**
   * JSON Schema (draft 7) every published payload of the type must match. Local
   * `$ref`s only; at most 64 KiB, depth 32, 1,000 members, 500 enum values, 100 safe
   * patterns of at most 1,000 characters (checked at preview). Compared ignoring key
   * order. Changing it REPLACES the entry (deleted first: the API has no update).
   */
  payloadSchema?: pulumi.Input<Record<string, unknown>>;
  /**
   * Take over an entry of this name that already exists in this scope instead of
   * failing the preview (409 `event_type_exists`): create reads it and replaces it only
   * if its description or schema differ. (Pulumi's `import` does not work for dynamic
   * resources.) Default false.
   */
  adoptExisting?: pulumi.Input<boolean>;
  /** Connection profile (see `EndpointArgs.profile`). Changing it REPLACES the entry. */
  profile?: string;
}

export interface EventTypeState {
  profile?: string;
}

export class EventType extends dynamic.Resource {
  static readonly __pulumiType: string = TYPE_TOKENS[KIND];

  /** Read an existing entry; the id is `workspace/<name>` or `project/<projectId>/<name>`. */
  static get(name: string, id: pulumi.Input<pulumi.ID>, opts?: pulumi.CustomResourceOptions, state?: EventTypeState): EventType {
    return new EventType(name, { ...(state ?? {}) } as EventTypeArgs, { ...opts, id });
  }

  declare readonly name: pulumi.Output<string>;
  declare readonly description: pulumi.Output<string | null>;
  /** The project, or null for a workspace-wide entry. */
  declare readonly projectId: pulumi.Output<string | null>;
  declare readonly payloadSchema: pulumi.Output<Record<string, unknown> | null>;
  /** `manual` (registered by request), `ingest` or `lenient` (added by traffic). */
  declare readonly origin: pulumi.Output<"manual" | "ingest" | "lenient">;
  /** ISO 8601 UTC. */
  declare readonly createdAt: pulumi.Output<string>;
  declare readonly adoptExisting: pulumi.Output<boolean>;
  declare readonly profile: pulumi.Output<string | null>;
  /** The resource's name in the program, set by the SDK: an adoption of an object another resource of the program holds fails naming it. */
  declare readonly resourceName: pulumi.Output<string | null>;

  constructor(name: string, args: EventTypeArgs, opts?: pulumi.CustomResourceOptions) {
    const { module, type } = moduleAndType(KIND);
    const props = resourceProps(name, args, ["name", "description", "projectId", "payloadSchema", "adoptExisting", "profile"], ["origin", "createdAt"]);
    props.resourceName = programName(name, opts);
    super(providerShim(KIND), name, props, opts, module, type);
  }
}
