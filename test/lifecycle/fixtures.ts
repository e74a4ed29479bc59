/**
 * One small fixture per registered kind for the lifecycle contract (contract.test.ts):
 * valid inputs, one change per updatable field, one per replace-on-change field, an
 * out-of-band change, how to adopt. Everything else (which fields update, with which
 * call, which replace, in which order) comes from the kind's definition in
 * provider/registry.ts. A field the fixture leaves out needs a reason a reader
 * accepts, or the suite fails naming it; so does a registered kind with no fixture.
 *
 * Changes accumulate in the order written: each step changes one field from the
 * previous step's inputs (so `eventTypeKey` comes before `eventTypeSource: header`).
 * `{ $secret: "k" }` is a secret config value, `secrets.k` (never in plaintext in
 * state or output: the suite scans for it).
 */
import type { ResourceKind } from "../../sdk/tokens";
import type { Workspace } from "../provider/support";

export type Props = Record<string, unknown>;

export interface FixtureContext {
  ws: Workspace;
  /** A second project of the workspace (ws.project_id is its default one). */
  otherProject: string;
}

/** A write the suite makes with the API, relative to the product's base URL. */
export interface ApiWrite {
  method: "PATCH" | "PUT" | "POST";
  path: string;
  body: Props;
}

/** A write made behind Pulumi's back. */
export interface OutOfBandWrite extends ApiWrite {
  /** The input field refresh must show as drifted, alone. */
  field: string;
}

export interface KindFixture {
  /**
   * The workspace key of the kind's product the suite's own API calls use (default
   * admin). The stack's default infra key is the member's; `profile: "infraAdmin"`
   * in the inputs uses the admin's.
   */
  key?: "admin" | "member";
  secrets?: Record<string, string>;
  inputs(ctx: FixtureContext): Props;
  /** One new value per updatable (patch, put, action) field. */
  updates?: (ctx: FixtureContext) => Props;
  /** Replace-on-change (create-only) fields with a new value each. */
  replaces?: (ctx: FixtureContext) => Props;
  /**
   * A setting's values before the stack takes it over, written by the suite first: not
   * what the stack leaves (the fixture's last values), so that a delete putting nothing
   * back fails; and not the same in every scope, so that a replacement must find its own
   * scope's values (the engine's second Check, on empty olds) to put back the right ones.
   */
  found?: (ctx: FixtureContext) => ApiWrite[];
  /** Fields of the definition not changed above, with the reason. */
  skip?: Record<string, string>;
  /** A change made outside Pulumi to the object as the updates left it; or why the kind has none. */
  outOfBand: ((ctx: FixtureContext, id: string) => OutOfBandWrite) | { none: string };
  /**
   * Adoption of an object made outside Pulumi (created by the suite with the API from
   * these inputs), declared with the kind's own adoption input; or why it has none.
   */
  adopt: { inputs(ctx: FixtureContext): Props; declare(id: string): Props } | { none: string };
}

const INFRA_PROJECT = "an infrastructure key acts in its own project: another project needs another key";
const OTHER_SERVICE = "another service takes other limit names, so it cannot change alone; the region's replacement takes the same path";
const SINGLETON_ADOPT = "a setting that always exists: create itself takes it over (checked by the create step)";
const byAdoptId = (inputs: (ctx: FixtureContext) => Props) => ({ inputs, declare: (id: string) => ({ adoptId: id }) });

export const FIXTURES: Partial<Record<ResourceKind, KindFixture>> = {
  "webhooks:Endpoint": {
    secrets: { headerValue: "Bearer lc-header-value-8d2f1", signing: "whsec_lcSigningSecretA7e91c", signing2: "whsec_lcSigningSecretB3f02d" },
    inputs: () => ({
      url: "https://hooks.example.com/lc",
      description: "lifecycle",
      subscriptions: [{ eventType: "order.*" }],
      customHeaders: { "X-Team": "orders", Authorization: { $secret: "headerValue" } },
      maxAttempts: 3,
      retrySchedule: [10, 60],
      deliveryTimeoutMs: 5000,
      secret: { $secret: "signing" },
    }),
    updates: () => ({
      url: "https://hooks.example.com/lc2",
      description: "lifecycle 2",
      subscriptions: [{ eventType: "order.*" }, { eventType: "invoice.paid" }],
      customHeaders: { "X-Team": "billing", Authorization: { $secret: "headerValue" } },
      maxAttempts: 4,
      retrySchedule: [10, 60, 600],
      deliveryTimeoutMs: 6000,
      status: "disabled",
      secretRotation: 1,
    }),
    replaces: (ctx) => ({ secret: { $secret: "signing2" }, projectId: ctx.otherProject }),
    outOfBand: (_ctx, id) => ({ method: "PATCH", path: `/v1/endpoints/${id}`, body: { description: "changed by hand" }, field: "description" }),
    adopt: byAdoptId(() => ({ url: "https://hooks.example.com/adopted", subscriptions: [{ eventType: "order.*" }], maxAttempts: 3 })),
  },

  "webhooks:EventType": {
    inputs: () => ({ name: "lc.created", description: "lifecycle", payloadSchema: { type: "object", required: ["id"], properties: { id: { type: "string" } } } }),
    // The description first: a replacement that keeps the unique name (deleted first) in the first round.
    replaces: (ctx) => ({
      description: "lifecycle 2",
      name: "lc.renamed",
      payloadSchema: { type: "object", required: ["id", "n"], properties: { id: { type: "string" }, n: { type: "integer" } } },
      projectId: ctx.otherProject,
    }),
    outOfBand: { none: "the catalog has no update route: an event type changes only by replacement" },
    adopt: { inputs: () => ({ name: "lc.adopted", description: "made outside" }), declare: () => ({ adoptExisting: true }) },
  },

  "webhooks:EventTypePolicy": {
    // Strict in the workspace, which the stack leaves lenient (put back when the replacement moves away); lenient in
    // the other project, where the replacement goes and which it leaves lenient: a put-back there with the
    // workspace's value (a replacement's Check reusing the first one's olds) writes strict.
    found: (ctx) => [
      { method: "PUT", path: "/v1/event-types/policy", body: { policy: "strict" } },
      { method: "PUT", path: `/v1/event-types/policy?project_id=${ctx.otherProject}`, body: { policy: "lenient" } },
    ],
    inputs: () => ({ policy: "strict" }),
    updates: () => ({ policy: "lenient" }),
    replaces: (ctx) => ({ projectId: ctx.otherProject }),
    outOfBand: () => ({ method: "PUT", path: "/v1/event-types/policy", body: { policy: "strict" }, field: "policy" }),
    adopt: { none: SINGLETON_ADOPT },
  },

  "webhooks:Source": {
    secrets: { sourceSecret: "lc-source-secret-5b7e0a", sourceSecret2: "lc-source-secret-9c4d21" },
    inputs: () => ({ provider: "generic", name: "lc source", secret: { $secret: "sourceSecret" } }),
    updates: (ctx) => ({
      name: "lc source 2",
      projectId: ctx.otherProject,
      eventTypeKey: "X-Event-Type",
      eventTypeSource: "header",
      eventTypePrefix: "partner.",
      defaultEventType: "partner.other",
      captureEnabled: true,
      status: "disabled",
      secret: { $secret: "sourceSecret2" },
    }),
    replaces: () => ({ provider: "payments" }),
    skip: Object.fromEntries(
      ["brokerIdentifier", "brokerHost", "brokerVhost", "brokerUser", "brokerExchange", "brokerTopic", "brokerPort", "brokerQueues"].map((f) => [
        f,
        "taken only by a broker source (provider: broker), which needs the broker_sources plan feature; test/provider/source.test.ts changes them",
      ]),
    ),
    outOfBand: (_ctx, id) => ({ method: "PATCH", path: `/v1/sources/${id}`, body: { name: "renamed by hand" }, field: "name" }),
    adopt: byAdoptId(() => ({ provider: "generic", name: "adopted source" })),
  },

  "webhooks:OperationalEndpoint": {
    inputs: () => ({ url: "https://ops.example.com/lc", eventTypes: ["delivery.dead"], description: "lifecycle" }),
    replaces: (ctx) => ({ url: "https://ops.example.com/lc2", eventTypes: ["delivery.dead", "endpoint.auto_disabled"], description: "lifecycle 2", projectId: ctx.otherProject }),
    outOfBand: { none: "operational endpoints have no update route: any change replaces" },
    adopt: byAdoptId(() => ({ url: "https://ops.example.com/adopted", eventTypes: ["delivery.dead"] })),
  },

  "webhooks:WorkspaceSettings": {
    // Not the plan's default (optional), which is what the stack leaves.
    found: () => [{ method: "PATCH", path: "/v1/workspace", body: { endpoint_verification: "required" } }],
    inputs: () => ({ endpointVerification: "required" }),
    updates: () => ({ endpointVerification: "optional" }),
    outOfBand: () => ({ method: "PATCH", path: "/v1/workspace", body: { endpoint_verification: "required" }, field: "endpointVerification" }),
    adopt: { none: SINGLETON_ADOPT },
  },

  "inboxes:Inbox": {
    inputs: () => ({ label: "lc inbox", expiresInMinutes: 600 }),
    updates: () => ({ label: "lc inbox 2", phrase: true, status: "paused" }),
    replaces: () => ({ expiresInMinutes: 900, transport: "http" }),
    outOfBand: (_ctx, id) => ({ method: "PATCH", path: `/v1/inboxes/${id}`, body: { label: "relabelled by hand" }, field: "label" }),
    adopt: byAdoptId(() => ({ label: "adopted inbox" })),
  },

  "infra:QuotaRequest": {
    key: "member",
    inputs: () => ({ service: "compute", region: "eu-west-1", limits: { vms: 60 }, justification: "lifecycle" }),
    updates: () => ({ limits: { vms: 70 }, justification: "lifecycle 2" }),
    replaces: () => ({ region: "us-east-1" }),
    skip: { service: OTHER_SERVICE, projectId: INFRA_PROJECT },
    outOfBand: (_ctx, id) => ({ method: "PATCH", path: "/api/v1/quota-request/", body: { id, justification: "edited by hand" }, field: "justification" }),
    adopt: byAdoptId(() => ({ service: "dns", limits: { dns_zones: 60 }, justification: "made outside" })),
  },

  "infra:QuotaLimits": {
    // Neither the service's default (10) nor what the stack leaves (14), and not the same in the two regions.
    found: () => [
      { method: "PATCH", path: "/api/v1/quota/network", body: { region: "eu-west-1", limits: { networks: 11 } } },
      { method: "PATCH", path: "/api/v1/quota/network", body: { region: "us-east-1", limits: { networks: 13 } } },
    ],
    inputs: () => ({ service: "network", region: "eu-west-1", limits: { networks: 12 }, profile: "infraAdmin" }),
    updates: () => ({ limits: { networks: 14 } }),
    replaces: () => ({ region: "us-east-1" }),
    skip: { service: OTHER_SERVICE, projectId: INFRA_PROJECT },
    outOfBand: () => ({ method: "PATCH", path: "/api/v1/quota/network", body: { limits: { networks: 30 }, region: "eu-west-1" }, field: "limits" }),
    adopt: { none: SINGLETON_ADOPT },
  },
};
