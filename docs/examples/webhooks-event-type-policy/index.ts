import * as svc from "pulumi-svc";

// Only registered event types may be published in the workspace; the value found
// before is restored when this resource is deleted.
const policy = new svc.webhooks.EventTypePolicy("workspace-policy", { policy: "strict" });

export const previous = policy.previous;
