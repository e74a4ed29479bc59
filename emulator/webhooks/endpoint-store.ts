/**
 * Receiving endpoints: the record kept in `ctx.store.product("webhooks.endpoints")`,
 * its response shape (shared/design/api-assumptions.md), and read helpers other
 * Webhooks modules use.
 */
import { randomBytes } from "node:crypto";
import { z } from "zod";
import { ASSUMED_ENDPOINT_BOUNDS as BOUNDS } from "../../rules/endpoint";
import type { EmulatorContext } from "../core/context";
import { notFound } from "../core/errors";
import { visible, type Principal } from "./common";
import { dict } from "../core/dict";

export type EndpointStatus = "enabled" | "disabled" | "auto_disabled";
export type SuspensionCause = "abuse" | "non_payment" | "plan_downgrade";
/** Most serious first: a suspension with several causes reports the first present. */
export const SUSPENSION_CAUSES: SuspensionCause[] = ["abuse", "non_payment", "plan_downgrade"];

/**
 * The fields create and PATCH set as given (PATCH: each optional; null resets it to the
 * service default), stored and rendered under the same name. A plain new field is one
 * line here.
 */
export const MUTABLE_FIELDS = {
  max_attempts: z.number().int().min(1),
  retry_schedule: z.array(z.number()).max(BOUNDS.retryScheduleMaxEntries),
  description: z.string().max(BOUNDS.descriptionMaxLength),
  /** Values are write-only: never rendered (the view shows `custom_header_names`). */
  custom_headers: z.record(z.string(), z.string()),
  delivery_timeout_ms: z.number().int(),
};
type MutableName = keyof typeof MUTABLE_FIELDS;
type Mutable = { [K in MutableName]: z.infer<(typeof MUTABLE_FIELDS)[K]> | null };
const MUTABLE_NAMES = Object.keys(MUTABLE_FIELDS) as MutableName[];
/** What an omitted (or null) field holds when not null. */
const STORED_WHEN_NULL: Partial<Mutable> = { custom_headers: {} };

export interface EndpointRecord extends Omit<Mutable, "custom_headers"> {
  id: string;
  workspace_id: string;
  project_id: string;
  url: string;
  subscriptions: { event_type: string }[];
  secret: string;
  custom_headers: Record<string, string>;
  status: EndpointStatus;
  verified: boolean;
  /** Every cause currently set (control plane); the response shows the most serious. */
  suspension_causes: SuspensionCause[];
  /** Deliveries moved to `dead` since the last `sent`; drives auto-disable. */
  consecutive_dead: number;
  created_at: string;
  updated_at: string;
}

type Endpoints = Record<string, EndpointRecord>;

export function endpointsState(ctx: EmulatorContext): Endpoints {
  return ctx.store.product<Endpoints>("webhooks.endpoints", () => dict());
}

/** Every endpoint of a workspace, oldest first. */
export function endpointsOfWorkspace(ctx: EmulatorContext, workspaceId: string): EndpointRecord[] {
  return Object.values(endpointsState(ctx)).filter((e) => e.workspace_id === workspaceId);
}

/** The endpoint if the caller can see it, else 404 `endpoint`. */
export function endpointOr404(ctx: EmulatorContext, principal: Principal, id: string): EndpointRecord {
  const e = endpointsState(ctx)[id];
  if (!e || !visible(principal, e)) throw notFound("endpoint", id);
  return e;
}

/** The most serious suspension cause, or undefined when not suspended. */
export function suspensionCause(e: EndpointRecord): SuspensionCause | undefined {
  return SUSPENSION_CAUSES.find((c) => e.suspension_causes.includes(c));
}

/** A new signing secret: `whsec_` plus 32 random bytes, base64. */
export function newSigningSecret(): string {
  return `whsec_${randomBytes(32).toString("base64")}`;
}

/** The mutable fields of a create body: each as given, else null (or its STORED_WHEN_NULL). */
export function mutableOnCreate(body: Partial<Mutable>): EndpointRecordMutable {
  return Object.fromEntries(MUTABLE_NAMES.map((k) => [k, body[k] ?? STORED_WHEN_NULL[k] ?? null])) as EndpointRecordMutable;
}

/** A PATCH's mutable fields applied: absent leaves a field, null resets it. */
export function patchMutable(e: EndpointRecord, body: Partial<Mutable>): void {
  for (const k of MUTABLE_NAMES) if (body[k] !== undefined) Object.assign(e, { [k]: body[k] ?? STORED_WHEN_NULL[k] ?? null });
}

type EndpointRecordMutable = Pick<EndpointRecord, MutableName>;

/** The endpoint response: no secret, header names only (sorted). */
export function endpointView(e: EndpointRecord) {
  const cause = suspensionCause(e);
  return {
    id: e.id,
    url: e.url,
    subscriptions: e.subscriptions.map((s) => ({ event_type: s.event_type })),
    project_id: e.project_id,
    ...Object.fromEntries(MUTABLE_NAMES.filter((k) => k !== "custom_headers").map((k) => [k, e[k]])),
    status: e.status,
    verified: e.verified,
    custom_header_names: Object.keys(e.custom_headers).sort(),
    suspension: cause ? { cause } : null,
    created_at: e.created_at,
    updated_at: e.updated_at,
  };
}
