/**
 * A test environment on the svc platform:
 *
 * - a request bin that records every webhook delivered to it, and an email inbox for
 *   sign-up mails, both expiring with the environment;
 * - a Webhooks endpoint delivering order events to the bin's URL;
 * - a quota request for more VMs in the test region, waited for when asked.
 *
 *   pulumi config set svc:inboxesUrl <inboxes address>      (or SVC_INBOXES_URL)
 *   pulumi config set --secret svc:inboxesApiKey <key>
 *   pulumi config set svc:webhooksUrl <webhooks address>    (or SVC_WEBHOOKS_URL)
 *   pulumi config set --secret svc:webhooksApiKey <key>
 *   pulumi config set svc:infraUrl <infrastructure address> (or SVC_INFRA_URL)
 *   pulumi config set --secret svc:infraApiKey <key>
 *   pulumi up
 *
 * The endpoint needs an https:// URL. The service reports a bin's public https URL; the
 * emulator reports http://127.0.0.1/... unless started with `--bin-public-url
 * https://bins.svc.test` (emulator/docs/inboxes.md). Where the bin's URL is not https,
 * set `receiverUrl` to a receiver of your own: the preview fails with the endpoint's
 * own rule otherwise, never later.
 */
import * as pulumi from "@pulumi/pulumi";
import * as svc from "pulumi-svc";

const config = new pulumi.Config();
const hours = config.getNumber("lifetimeHours") ?? 24;

const bin = new svc.inboxes.Inbox("webhook-bin", {
  transport: "http",
  label: `${pulumi.getStack()}: webhook deliveries`,
  expiresInMinutes: hours * 60,
});

const signups = new svc.inboxes.Inbox("signup-mail", {
  label: `${pulumi.getStack()}: sign-up mails`,
  expiresInMinutes: hours * 60,
});

const receiverUrl = config.get("receiverUrl");
const deliveries = new svc.webhooks.Endpoint("orders-to-bin", {
  url: receiverUrl ?? bin.url.apply((url) => url ?? ""),
  description: `Order events of ${pulumi.getStack()}, recorded by the bin`,
  subscriptions: [{ eventType: "order.*" }],
  maxAttempts: 3,
});

const moreVms = new svc.infra.QuotaRequest("more-vms", {
  service: "compute",
  region: config.get("region") ?? "us-east-1",
  limits: { vms: config.getNumber("vms") ?? 80 },
  justification: config.get("justification") ?? "Load tests of the test environment",
  waitForDecision: config.getNumber("waitForDecision") ?? 0,
});

export const binUrl = bin.url;
export const signupAddress = signups.address;
export const endpointId = deliveries.id;
export const quotaRequestId = moreVms.id;
export const quotaRequestState = moreVms.state;
