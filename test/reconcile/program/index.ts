/** Look-alike resources: several resources declaring exactly the same fields. */
import * as pulumi from "@pulumi/pulumi";
import * as svc from "pulumi-svc";

const config = new pulumi.Config("reconcile");
const bins = config.getNumber("bins") ?? 0;
const endpoints = config.getNumber("endpoints") ?? 0;
const url = config.get("url") ?? "https://hooks.example.com/look-alike";

for (let i = 0; i < bins; i++) new svc.inboxes.Inbox(`bin-${i}`, { transport: "http" });
for (let i = 0; i < endpoints; i++) new svc.webhooks.Endpoint(`endpoint-${i}`, { url, subscriptions: [{ eventType: "order.*" }] });
