import * as pulumi from "@pulumi/pulumi";
import * as svc from "pulumi-svc";

const config = new pulumi.Config();
const orders = new svc.webhooks.Endpoint("orders", {
  url: "https://hooks.example.com/orders",
  subscriptions: [{ eventType: "order.*" }, { eventType: "invoice.paid" }],
  customHeaders: { Authorization: pulumi.interpolate`Bearer ${config.requireSecret("teamToken")}` },
  maxAttempts: 5,
  retrySchedule: [10, 60, 600, 3600],
  description: "Order events for the fulfilment service",
});

export const endpointId = orders.id;
export const signingSecret = orders.signingSecret; // a secret output
