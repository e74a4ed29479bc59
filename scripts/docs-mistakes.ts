/**
 * For the reference pages (scripts/docs.ts): per kind, the limits of rules/ that apply
 * to it, and common mistakes whose preview messages the pages show. The messages are
 * not written here: the generator runs the provider's check on these arguments.
 */
import { ASSUMED_ENDPOINT_BOUNDS, ENDPOINT_LIMITS } from "../rules/endpoint";
import { SCHEMA_LIMITS } from "../rules/event-schema";
import { INBOX_LIMITS, INBOX_TRANSPORTS } from "../rules/inbox";
import { OPERATIONAL_EVENT_TYPES } from "../rules/operational";
import { DEFAULT_REGION, QUOTA_REQUEST_LIMITS, QUOTA_SCOPES, QUOTA_SERVICES } from "../rules/quota";
import { BROKER_PORT_RANGE, BROKER_REQUIRED_FIELDS, SOURCE_PROVIDERS } from "../rules/source";
import type { ResourceKind } from "../sdk/tokens";

export interface Mistake {
  inputs: Record<string, unknown>;
  /** How the page shows the arguments when their JSON would be unreadable. */
  shown?: string;
}

/** Each service's quotas with their default limits, and which quotas are project-wide (the others are per region). */
function quotaTables(): Record<string, unknown> {
  return {
    ...Object.fromEntries(Object.entries(QUOTA_SERVICES).map(([s, q]) => [`${s} quotas (default limit)`, q])),
    "project-wide quotas (one figure whatever the region)": Object.keys(QUOTA_SCOPES).filter((name) => QUOTA_SCOPES[name] === "project").join(", "),
  };
}

export const KIND_LIMITS: Partial<Record<ResourceKind, Record<string, unknown>>> = {
  "webhooks:Endpoint": { ...ENDPOINT_LIMITS, ...ASSUMED_ENDPOINT_BOUNDS },
  "webhooks:EventType": { ...Object.fromEntries(Object.entries(SCHEMA_LIMITS).map(([k, v]) => [`payloadSchema ${k}`, v])) },
  "webhooks:Source": { providers: SOURCE_PROVIDERS.join(", "), brokerRequiredFields: BROKER_REQUIRED_FIELDS.join(", "), brokerPort: `${BROKER_PORT_RANGE.min}–${BROKER_PORT_RANGE.max}` },
  "webhooks:OperationalEndpoint": { eventTypes: OPERATIONAL_EVENT_TYPES.join(", ") },
  "inboxes:Inbox": { ...INBOX_LIMITS, transports: INBOX_TRANSPORTS.join(", ") },
  "infra:QuotaRequest": { ...QUOTA_REQUEST_LIMITS, defaultRegion: DEFAULT_REGION, ...quotaTables() },
  "infra:QuotaLimits": quotaTables(),
};

const HOOK = "https://hooks.example.com/orders";

export const MISTAKES: Partial<Record<ResourceKind, Mistake[]>> = {
  "webhooks:Endpoint": [
    { inputs: { url: "http://hooks.example.com/orders" } },
    { inputs: { url: HOOK, subscriptions: [{ eventType: "order..created" }] } },
    { inputs: { url: HOOK, customHeaders: { "X-Team": "x".repeat(1025) } }, shown: `{"url":"${HOOK}","customHeaders":{"X-Team":"<1,025 characters>"}}` },
    { inputs: { url: HOOK, retrySchedule: [10, 700000] } },
    { inputs: { url: HOOK, deliveryTimeoutMs: 120000 } },
  ],
  "webhooks:EventType": [
    { inputs: { name: "" } },
    { inputs: { name: "order.created", payloadSchema: { type: "object", properties: { sku: { type: "string", pattern: "^(a+)+$" } } } } },
  ],
  "webhooks:EventTypePolicy": [{ inputs: { policy: "loose" } }],
  "webhooks:Source": [
    { inputs: { provider: "broker", name: "orders queue" } },
    { inputs: { provider: "sms", name: "texts" } },
  ],
  "webhooks:OperationalEndpoint": [
    { inputs: { url: "https://alerts.example.com/svc", eventTypes: ["order.created"] } },
    { inputs: { url: "http://alerts.example.com/svc", eventTypes: ["delivery.dead"] } },
  ],
  "webhooks:WorkspaceSettings": [{ inputs: { endpointVerification: "sometimes" } }],
  "inboxes:Inbox": [
    { inputs: { label: "x".repeat(201) }, shown: `{"label":"<201 characters>"}` },
    { inputs: { transport: "sms" } },
    { inputs: { expiresInMinutes: 0 } },
  ],
  "infra:QuotaRequest": [
    { inputs: { service: "compute", region: "us-east-1", limits: { cpus: 100 }, justification: "Load test of the checkout service." } },
    { inputs: { service: "gpu", limits: { gpus: 4 }, justification: "Training runs." } },
    { inputs: { service: "compute", region: "us-east-1", limits: { vms: 80 }, justification: "" } },
  ],
  "infra:QuotaLimits": [{ inputs: { service: "dns", limits: { vms: 5 } } }],
};
