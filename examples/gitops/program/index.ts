/**
 * The GitOps example: a strict event catalog and a receiving endpoint for order
 * events, passing every svc-guardrails policy on every stack, production included
 * (https, a public host, credentials only as secrets, retries within bounds,
 * verified, closed payload schemas, every subscription matching a declared type).
 *
 *   SVC_WEBHOOKS_URL / SVC_WEBHOOKS_API_KEY    (or svc:webhooksUrl / svc:webhooksApiKey)
 *   pulumi config set --secret teamToken <token>   (optional: adds an Authorization header)
 */
import * as pulumi from "@pulumi/pulumi";
import * as svc from "pulumi-svc";

const config = new pulumi.Config();
const teamToken = config.getSecret("teamToken");

/** A closed schema (event-type-schema-closed), present on every stack (event-type-schema-in-production). */
const orderSchema = (extra: Record<string, unknown>) => ({
  type: "object",
  required: ["orderId", ...Object.keys(extra)],
  properties: { orderId: { type: "string" }, ...extra },
  additionalProperties: false,
});

// Only registered types can be published: required on production stacks (strict-event-type-policy-in-production).
const strict = new svc.webhooks.EventTypePolicy("workspace-strict", { policy: "strict" });

// The catalog: every type the endpoint subscribes to is declared here (subscriptions-match-declared-types),
// and every declared type has a subscriber (event-types-have-subscribers).
const created = new svc.webhooks.EventType("order-created", {
  name: "order.created",
  description: "An order was placed",
  payloadSchema: orderSchema({ total: { type: "number", minimum: 0 } }),
});
const shipped = new svc.webhooks.EventType("order-shipped", {
  name: "order.shipped",
  description: "An order left the warehouse",
  payloadSchema: orderSchema({ carrier: { type: "string" } }),
});

const orders = new svc.webhooks.Endpoint("orders", {
  url: config.get("receiverUrl") ?? "https://hooks.example.com/orders",
  description: "Order events for the fulfilment service",
  subscriptions: [{ eventType: "order.*" }],
  customHeaders: {
    "X-Team": "fulfilment",
    // A credential only ever as a secret: endpoint-credential-headers-secret refuses it in plain text.
    ...(teamToken ? { Authorization: pulumi.interpolate`Bearer ${teamToken}` } : {}),
  },
  maxAttempts: 5,
  retrySchedule: [10, 60, 600, 3600],
  // Production stacks must verify their endpoints (endpoint-verify-in-production).
  verify: true,
}, { dependsOn: [strict, created, shipped] });

export const endpointId = orders.id;
