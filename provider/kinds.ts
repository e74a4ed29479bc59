/**
 * Every resource kind the provider serves: product and type name. The SDK builds its
 * type tokens from these (sdk/tokens.ts); the provider, below the SDK, never imports it.
 */
export const RESOURCE_KINDS = [
  "webhooks:Endpoint",
  "webhooks:EventType",
  "webhooks:EventTypePolicy",
  "webhooks:Source",
  "webhooks:OperationalEndpoint",
  "webhooks:WorkspaceSettings",
  "inboxes:Inbox",
  "infra:QuotaRequest",
  "infra:QuotaLimits",
] as const;

/** A resource kind such as `webhooks:Endpoint`: product and type name. */
export type ResourceKind = (typeof RESOURCE_KINDS)[number];
