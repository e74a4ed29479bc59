import * as svc from "pulumi-svc";

// A generic ingest source: the service generates its signing secret.
const inbound = new svc.webhooks.Source("inbound", {
  provider: "generic",
  name: "partner webhooks",
  eventTypeSource: "header",
  eventTypeKey: "X-Event-Type",
  eventTypePrefix: "partner.",
});

export const ingestUrl = inbound.ingestUrl;
export const generatedSecret = inbound.generatedSecret; // a secret output
