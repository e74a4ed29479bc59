/**
 * Quickstart: a receiving endpoint for order events, with a custom header whose
 * value comes from a secret, and a retry policy.
 *
 *   pulumi config set svc:webhooksUrl <webhooks address>     (or SVC_WEBHOOKS_URL)
 *   pulumi config set --secret svc:webhooksApiKey <key>      (or SVC_WEBHOOKS_API_KEY)
 *   pulumi config set --secret teamToken <token>
 *   pulumi up
 */
import * as pulumi from "@pulumi/pulumi";
import * as svc from "pulumi-svc";

const config = new pulumi.Config();
const teamToken = config.requireSecret("teamToken");

const orders = new svc.webhooks.Endpoint("orders", {
  url: config.get("receiverUrl") ?? "https://hooks.example.com/orders",
  description: config.get("description") ?? "Order events for the fulfilment service",
  subscriptions: [{ eventType: "order.*" }, { eventType: "invoice.paid" }],
  customHeaders: {
    "X-Team": "fulfilment",
    // Kept secret end to end: in the state, in the CLI output, and never returned by the service.
    Authorization: pulumi.interpolate`Bearer ${teamToken}`,
  },
  maxAttempts: 5,
  retrySchedule: [10, 60, 600, 3600],
  deliveryTimeoutMs: 10_000,
});

export const endpointId = orders.id;
export const endpointStatus = orders.status;
export const subscribedTo = orders.subscriptions;
