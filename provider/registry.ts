/**
 * Every resource the provider serves, by kind. Adding a resource: write its
 * definition file (see README.md) and add one line here. Each keeps its own field
 * table's type: `KindInputs` / `KindOutputs` name a kind's values by field.
 */
import type { ResourceKind } from "./kinds";
import type { InputsOf, OutputsOf, ResourceDefinition } from "./engine/fields";
import { inboxDefinition } from "./inboxes/inbox";
import { quotaLimitsDefinition } from "./infra/quota-limits";
import { quotaRequestDefinition } from "./infra/quota-request";
import { endpointDefinition } from "./webhooks/endpoint";
import { eventTypeDefinition } from "./webhooks/event-type";
import { eventTypePolicyDefinition } from "./webhooks/event-type-policy";
import { operationalEndpointDefinition } from "./webhooks/operational-endpoint";
import { sourceDefinition } from "./webhooks/source";
import { workspaceSettingsDefinition } from "./webhooks/workspace-settings";

const definitions = {
  "webhooks:Endpoint": endpointDefinition,
  "webhooks:EventType": eventTypeDefinition,
  "webhooks:EventTypePolicy": eventTypePolicyDefinition,
  "webhooks:Source": sourceDefinition,
  "webhooks:OperationalEndpoint": operationalEndpointDefinition,
  "webhooks:WorkspaceSettings": workspaceSettingsDefinition,
  "inboxes:Inbox": inboxDefinition,
  "infra:QuotaRequest": quotaRequestDefinition,
  "infra:QuotaLimits": quotaLimitsDefinition,
} satisfies Record<ResourceKind, ResourceDefinition>;

/** Every kind's definition, its fields a plain table: what the generic engine and the scripts walk. */
export const DEFINITIONS: Partial<Record<ResourceKind, ResourceDefinition>> = definitions;

/** A kind's declared inputs, by field name (values unknown: see `InputsOf`). */
export type KindInputs<K extends ResourceKind> = InputsOf<(typeof definitions)[K]["fields"]>;
/** What the state keeps of a kind, by field name. */
export type KindOutputs<K extends ResourceKind> = OutputsOf<(typeof definitions)[K]["fields"]>;
