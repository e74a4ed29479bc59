import * as svc from "pulumi-svc";

const created = new svc.webhooks.EventType("order-created", {
  name: "order.created",
  description: "An order was placed",
  payloadSchema: {
    type: "object",
    required: ["orderId", "total"],
    properties: { orderId: { type: "string" }, total: { type: "number", minimum: 0 } },
    additionalProperties: false,
  },
});

export const eventTypeId = created.id;
