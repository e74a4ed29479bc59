/**
 * What the model knows about each of the 9 kinds: valid arguments for the n-th
 * resource of a kind at a version (a change bumps the version and changes one
 * field), how to list the objects a workspace holds, and what an out-of-band change
 * or delete through the API is. Nothing here runs the program.
 */
import { DEFINITIONS } from "../../provider/registry";
import { RESOURCE_KINDS, TYPE_TOKENS, type ResourceKind } from "../../sdk/tokens";

export { RESOURCE_KINDS, TYPE_TOKENS, type ResourceKind };

export type Args = Record<string, unknown>;
export type Product = "webhooks" | "inboxes" | "infra";

/** Quotas a QuotaRequest may ask for, one open request each (the preview refuses a second). */
const REQUESTABLE = [
  { service: "network", region: "us-east-1", quota: "floating_ips" },
  { service: "network", region: "us-east-1", quota: "networks" },
  { service: "dns", quota: "dns_zones" },
  { service: "iam", quota: "users" },
] as const;

export interface KindSpec {
  product: Product;
  /** At most this many resources of the kind in one program (workspace singletons: 1). */
  max: number;
  /**
   * Resources of the kind that must differ in `n % slots` (a QuotaLimits per region):
   * a new one takes a number whose slot no present one uses.
   */
  slots?: number;
  /** Its own object can be adopted by a resource of a new name: the input that says so, given its id. */
  adopt?: (id: string) => Args;
  /**
   * Arguments of resource number `n` (unique in the sequence) at `version`. A
   * look-alike has the same arguments as every other look-alike of its kind
   * (an HTTP bin with no label, an endpoint to one URL): reconciliation cannot tell them apart.
   */
  args(n: number, version: number, lookAlike: boolean): Args;
  /** Listing of the objects the workspace holds (absent for settings, which always exist). */
  list?: { path: string; query?: string; items: "data" | "items" };
  /** Out-of-band change through the API: method, path and body for an object id. */
  change?: (id: string, tag: string) => { method: string; path: string; body: unknown };
  /** Out-of-band delete through the API (DELETE of the object's path). */
  removable?: boolean;
}

/** The API path of one object, with its product's prefix, as the provider addresses it. */
export function itemPath(kind: ResourceKind, id: string): string {
  return `/${KINDS[kind].product}${DEFINITIONS[kind]!.paths.item(id)}`;
}

/** The id the provider gives a listed object. */
export function idOfListed(kind: ResourceKind, item: Record<string, unknown>): string {
  const def = DEFINITIONS[kind]!;
  return def.idOf ? def.idOf(item) : String(item[def.idField ?? "id"]);
}

/** The regions of the QuotaLimits resources (slot 0 and 1). */
export const QUOTA_REGIONS = ["us-east-1", "eu-west-1"] as const;

const secretHeader = (n: number) => `Bearer $MARKER-h${n}`;

export const KINDS: Record<ResourceKind, KindSpec> = {
  "webhooks:Endpoint": {
    product: "webhooks",
    max: 3,
    args: (n, v, lookAlike) =>
      lookAlike
        ? { url: "https://hooks.example.com/model/same", subscriptions: [{ eventType: "order.*" }], ...(v ? { description: `v${v}` } : {}) }
        : {
            url: `https://hooks.example.com/model/${n}`,
            // None at first (the create writes the owner mark there), then a PATCH changes it.
            ...(v ? { description: `endpoint ${n} v${v}` } : {}),
            subscriptions: [{ eventType: "order.*" }, { eventType: `model.e${n}` }],
            customHeaders: { "X-Model": `m${n}`, Authorization: secretHeader(n) },
            maxAttempts: 3 + (v % 3),
          },
    list: { path: "/webhooks/v1/endpoints", items: "data" },
    change: (id, tag) => ({ method: "PATCH", path: itemPath("webhooks:Endpoint", id), body: { description: `changed out of band ${tag}` } }),
    removable: true,
    adopt: (id) => ({ adoptId: id }),
  },
  "webhooks:EventType": {
    product: "webhooks",
    max: 2,
    // Any change is a replacement, deleted first (the name stays). No description: every create carries the owner mark.
    args: (n, v) => ({
      name: `model.type${n}`,
      payloadSchema: { type: "object", description: `type ${n} v${v}`, required: ["id"], properties: { id: { type: "string" } } },
    }),
    list: { path: "/webhooks/v1/event-types", items: "data" },
    removable: true,
    adopt: () => ({ adoptExisting: true }),
  },
  "webhooks:EventTypePolicy": {
    product: "webhooks",
    max: 1,
    args: (_n, v) => ({ policy: v % 2 ? "lenient" : "strict" }),
  },
  "webhooks:Source": {
    product: "webhooks",
    max: 2,
    // No name: every create carries the owner mark; a prefix change is a PATCH.
    args: (n, v) => ({ provider: "generic", eventTypePrefix: `s${n}v${v}.`, secret: `$MARKER-src${n}` }),
    list: { path: "/webhooks/v1/sources", items: "data" },
    change: (id, tag) => ({ method: "PATCH", path: itemPath("webhooks:Source", id), body: { name: `changed out of band ${tag}` } }),
    removable: true,
  },
  "webhooks:OperationalEndpoint": {
    product: "webhooks",
    max: 2,
    // Every field is create-only: any change is a replacement.
    args: (n, v) => ({ url: `https://ops.example.com/model/${n}/v${v}`, eventTypes: ["endpoint.auto_disabled", "delivery.dead"] }),
    list: { path: "/webhooks/v1/operational-endpoints", items: "data" },
    removable: true,
    adopt: (id) => ({ adoptId: id }),
  },
  "webhooks:WorkspaceSettings": {
    product: "webhooks",
    max: 1,
    args: (_n, v) => ({ endpointVerification: v % 2 ? "optional" : "required" }),
  },
  "inboxes:Inbox": {
    product: "inboxes",
    max: 3,
    // A status change is a PATCH; an expiry change (every third version) a replacement. No label: every create carries the owner mark.
    args: (n, v, lookAlike) =>
      lookAlike
        ? { transport: "http", ...(v ? { status: v % 2 ? "paused" : "active" } : {}) }
        : { expiresInMinutes: 600 + 60 * Math.floor(v / 3), status: v % 2 ? "paused" : "active" },
    list: { path: "/inboxes/v1/inboxes", items: "data" },
    change: (id, tag) => ({ method: "PATCH", path: itemPath("inboxes:Inbox", id), body: { label: `changed out of band ${tag}` } }),
    removable: true,
  },
  "infra:QuotaRequest": {
    product: "infra",
    max: REQUESTABLE.length,
    args: (n, v) => {
      const q = REQUESTABLE[n % REQUESTABLE.length]!;
      return { service: q.service, ...("region" in q ? { region: q.region } : {}), limits: { [q.quota]: 60 + v }, justification: `model request ${n} v${v}` };
    },
    // Only open requests are held; a withdrawn one is history.
    list: { path: "/infra/api/v1/quota-request/list", query: "states=pending,needs_updates", items: "items" },
    change: (id, tag) => ({ method: "PATCH", path: "/infra/api/v1/quota-request/", body: { id, justification: `changed out of band ${tag}` } }),
    removable: true,
  },
  "infra:QuotaLimits": {
    product: "infra",
    // One per region: each manages `vms` in its own region alone.
    max: 2,
    slots: 2,
    args: (n, v) => ({ service: "compute", region: QUOTA_REGIONS[n % 2], limits: { vms: (n % 2 ? 70 : 60) + v } }),
  },
};

/** The resource kind of a state entry's type token, if it is one of ours. */
export function kindOfType(type: string): ResourceKind | undefined {
  return RESOURCE_KINDS.find((k) => TYPE_TOKENS[k] === type);
}

/** QuotaRequests must not share a quota: resource number n uses quota n mod 4, so the model numbers them apart. */
export const REQUESTABLE_COUNT = REQUESTABLE.length;
