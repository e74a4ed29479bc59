/**
 * Every resource the provider serves, by kind. Adding a resource: write its
 * definition file (see README.md) and add one line here.
 */
import type { ResourceKind } from "./kinds";
import type { ResourceDefinition } from "./engine/fields";
import { inboxDefinition } from "./inboxes/inbox";
import { quotaLimitsDefinition } from "./infra/quota-limits";
import { quotaRequestDefinition } from "./infra/quota-request";
import { endpointDefinition } from "./webhooks/endpoint";
import { eventTypeDefinition } from "./webhooks/event-type";
import { eventTypePolicyDefinition } from "./webhooks/event-type-policy";
import { operationalEndpointDefinition } from "./webhooks/operational-endpoint";
import { sourceDefinition } from "./webhooks/source";
import { workspaceSettingsDefinition } from "./webhooks/workspace-settings";

export const DEFINITIONS: Partial<Record<ResourceKind, ResourceDefinition>> = {
  "webhooks:Endpoint": endpointDefinition,
  "webhooks:EventType": eventTypeDefinition,
  "webhooks:EventTypePolicy": eventTypePolicyDefinition,
  "webhooks:Source": sourceDefinition,
  "webhooks:OperationalEndpoint": operationalEndpointDefinition,
  "webhooks:WorkspaceSettings": workspaceSettingsDefinition,
  "inboxes:Inbox": inboxDefinition,
  "infra:QuotaRequest": quotaRequestDefinition,
  "infra:QuotaLimits": quotaLimitsDefinition,
};
