/**
 * Receiving endpoints: the record kept in `ctx.store.product("webhooks.endpoints")`,
 * its response shape (shared/design/api-assumptions.md), and read helpers other
 * Webhooks modules use.
 */
import { randomBytes } from "node:crypto";
import type { EmulatorContext } from "../core/context";
import { notFound } from "../core/errors";
import { visible, type Principal } from "./common";
import { dict } from "../core/dict";

export type EndpointStatus = "enabled" | "disabled" | "auto_disabled";
export type SuspensionCause = "abuse" | "non_payment" | "plan_downgrade";
/** Most serious first: a suspension with several causes reports the first present. */
export const SUSPENSION_CAUSES: SuspensionCause[] = ["abuse", "non_payment", "plan_downgrade"];

export interface EndpointRecord {
  id: string;
  workspace_id: string;
  project_id: string;
  url: string;
  description: string | null;
  subscriptions: { event_type: string }[];
  secret: string;
  max_attempts: number | null;
  retry_schedule: number[] | null;
  delivery_timeout_ms: number | null;
  /** Values are write-only: never rendered. */
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

/** The endpoint response: no secret, header names only (sorted). */
export function endpointView(e: EndpointRecord) {
  const cause = suspensionCause(e);
  return {
    id: e.id,
    url: e.url,
    subscriptions: e.subscriptions.map((s) => ({ event_type: s.event_type })),
    project_id: e.project_id,
    description: e.description,
    max_attempts: e.max_attempts,
    retry_schedule: e.retry_schedule,
    delivery_timeout_ms: e.delivery_timeout_ms,
    status: e.status,
    verified: e.verified,
    custom_header_names: Object.keys(e.custom_headers).sort(),
    suspension: cause ? { cause } : null,
    created_at: e.created_at,
    updated_at: e.updated_at,
  };
}
