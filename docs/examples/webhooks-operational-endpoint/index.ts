import * as svc from "pulumi-svc";

const alerts = new svc.webhooks.OperationalEndpoint("alerts", {
  url: "https://alerts.example.com/svc",
  eventTypes: ["endpoint.auto_disabled", "delivery.dead"],
  description: "Page the on-call engineer",
});

export const alertsId = alerts.id;
