/** Look-alike resources: several resources declaring exactly the same fields. */
import * as pulumi from "@pulumi/pulumi";
import * as svc from "pulumi-svc";

const config = new pulumi.Config("reconcile");
const bins = config.getNumber("bins") ?? 0;
const endpoints = config.getNumber("endpoints") ?? 0;
const url = config.get("url") ?? "https://hooks.example.com/look-alike";
/** `disabled`: each endpoint's create is followed by a PATCH of its status (create does not take it). */
const endpointStatus = config.get("endpointStatus") as "enabled" | "disabled" | undefined;
/** Updatable values every endpoint declares, when set. */
const description = config.get("description");
const maxAttempts = config.getNumber("maxAttempts");

for (let i = 0; i < bins; i++) new svc.inboxes.Inbox(`bin-${i}`, { transport: "http" });
/** `reverse`: the endpoints are declared last first, so a look-alike added at the end registers before the ones the state holds. */
const order = [...Array(endpoints).keys()];
if (config.get("order") === "reverse") order.reverse();
for (const i of order) new svc.webhooks.Endpoint(`endpoint-${i}`, { url, subscriptions: [{ eventType: "order.*" }], ...(endpointStatus ? { status: endpointStatus } : {}), ...(description === undefined ? {} : { description }), ...(maxAttempts === undefined ? {} : { maxAttempts }) });
/** `holdMs`: an update's program (and so the run) ends only after this long, whatever the steps took; a preview's at once. */
const holdMs = pulumi.runtime.isDryRun() ? undefined : config.getNumber("holdMs");
export const held = holdMs === undefined ? undefined : new Promise<boolean>((resolve) => setTimeout(() => resolve(true), holdMs));
