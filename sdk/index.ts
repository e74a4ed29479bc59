/**
 * pulumi-svc: Pulumi resources for the svc platform.
 *
 *   import * as svc from "pulumi-svc";
 *   new svc.webhooks.Endpoint("orders", { url: "https://example.com/hooks", subscriptions: [{ eventType: "order.*" }] });
 */
export * as webhooks from "./webhooks";
export * as inboxes from "./inboxes";
export * as infra from "./infra";
export { RESOURCE_KINDS, TYPE_TOKENS, typeToken, type ResourceKind } from "./tokens";
