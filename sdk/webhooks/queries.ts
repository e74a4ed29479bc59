/**
 * Read-only functions over the rest of Webhooks, running in the program process like
 * `getEndpoint` (sdk/webhooks/functions.ts): the credential's info, the policy in
 * force, the event type catalog, sources and deliveries. Lists walk every page.
 * They return plain camelCase data, not Outputs; no secret is ever returned.
 */
import { programContext, providerSide, runReadFunction } from "../program";
import type { EventTypePolicyValue } from "./event-type-policy";
import type { SourceInfo } from "./source";

export type { SourceInfo };

/** Connection profile of every function (see `EndpointArgs.profile`). */
export interface ProfileArgs {
  profile?: string;
}

const webhooks = async (profile: string | undefined) => (await programContext("webhooks", profile)).client;

const camel = (k: string) => k.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());
function camelKeys<T>(o: Record<string, unknown>): T {
  return Object.fromEntries(Object.entries(o).map(([k, v]) => [camel(k), v])) as T;
}

/* ---------- credential ---------- */

export interface AuthMe {
  /** `admin`, `read` or `publish`. */
  scope: string;
  workspaceId: string;
  /** Null for an API key. */
  email: string | null;
  /** Null for an API key. */
  createdAt: string | null;
  /** Other fields the service reports about the credential, camelCased. */
  [key: string]: unknown;
}

/** What the key in use is (`GET /v1/auth/me`): its scope and workspace. */
export async function getAuthMe(args: ProfileArgs = {}): Promise<AuthMe> {
  const res = await (await webhooks(args.profile)).request<Record<string, unknown>>({ method: "GET", path: "/v1/auth/me" });
  return camelKeys<AuthMe>(res.body);
}

/* ---------- event types ---------- */

export interface EventTypePolicyInfo {
  /** The policy in force: the project's override, else the workspace's. */
  policy: EventTypePolicyValue;
  projectId: string | null;
  /** True when a project has no override. */
  inherited: boolean;
}

export interface GetEventTypePolicyArgs extends ProfileArgs {
  /** Omit for the workspace's policy. */
  projectId?: string;
}

/** The event type policy in force for the workspace or a project. */
export async function getEventTypePolicy(args: GetEventTypePolicyArgs = {}): Promise<EventTypePolicyInfo> {
  const res = await (await webhooks(args.profile)).request<Record<string, unknown>>({ method: "GET", path: "/v1/event-types/policy", query: { project_id: args.projectId } });
  return camelKeys<EventTypePolicyInfo>(res.body);
}

export interface EventTypeInfo {
  name: string;
  description: string | null;
  /** Null for a workspace-wide entry. */
  projectId: string | null;
  payloadSchema: Record<string, unknown> | null;
  origin: "manual" | "ingest" | "lenient";
  createdAt: string;
}

export interface GetEventTypesArgs extends ProfileArgs {
  /** A project's catalog: its own entries plus the workspace-wide ones it does not shadow. Omit for every entry of the workspace. */
  projectId?: string;
}

/** The event type catalog (all pages). */
export async function getEventTypes(args: GetEventTypesArgs = {}): Promise<EventTypeInfo[]> {
  // An event type is named, not numbered: its scope and name tell it apart.
  const { walkList, remoteFields, eventTypeDefinition } = await providerSide();
  const items = await walkList(await webhooks(args.profile), "/v1/event-types", { project_id: args.projectId }, (e) => `${String(e["project_id"] ?? "")}\n${String(e["name"])}`);
  return items.map((e) => remoteFields(eventTypeDefinition, e) as unknown as EventTypeInfo);
}

/* ---------- sources ---------- */

/** One source by id. Fails when it does not exist or the key cannot see it. */
export async function getSource(args: { id: string } & ProfileArgs): Promise<SourceInfo> {
  return runReadFunction<SourceInfo>("webhooks:getSource", args);
}

/** Every source the key can see (all pages), optionally of one project. */
export async function getSources(args: { projectId?: string } & ProfileArgs = {}): Promise<SourceInfo[]> {
  return runReadFunction<SourceInfo[]>("webhooks:getSources", args);
}

/* ---------- deliveries ---------- */

export type DeliveryStatus = "queued" | "sending" | "sent" | "failed" | "dead";

export interface DeliveryInfo {
  id: string;
  eventId: string;
  endpointId: string;
  projectId: string;
  eventType: string;
  status: DeliveryStatus;
  /** Fields beyond these, as the service reports them, camelCased (attempt counts, times). */
  [key: string]: unknown;
}

export interface GetDeliveriesArgs extends ProfileArgs {
  status?: DeliveryStatus;
  endpointId?: string;
  eventType?: string;
  projectId?: string;
  /** ISO 8601: created at or after. */
  since?: string;
  /** ISO 8601: created at or before. */
  until?: string;
  /** Text search over ids, type and payload. */
  q?: string;
}

/**
 * Deliveries matching the filters, newest first, as they stood when the call began:
 * every page, each delivery once; deliveries created during the walk are left for the
 * next call (provider/walk.ts). An unknown status is refused by the service (422 `webhooks.unknown_delivery_status`). */
export async function getDeliveries(args: GetDeliveriesArgs = {}): Promise<DeliveryInfo[]> {
  const { profile, endpointId, eventType, projectId, ...rest } = args;
  const items = await (await providerSide()).walkNewestFirst(await webhooks(profile), "/v1/deliveries", { ...rest, endpoint_id: endpointId, event_type: eventType, project_id: projectId }, "created_at");
  return items.map((d) => camelKeys<DeliveryInfo>(d));
}
