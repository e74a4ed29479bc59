/**
 * Deliveries and their attempts (`ctx.store.product("webhooks.deliveries")`), the
 * state machine the control plane and the worker drive, the monthly usage count,
 * and the Webhooks delivery settings (auto-disable threshold, redeliver bucket).
 *
 * States: queued -> sending -> sent | failed (retry waiting while `next_attempt_at`
 * is set) | dead. Re-arming (redeliver, replay by range) puts a delivery back to
 * `queued` with no retry pending.
 */
import type { EmulatorContext } from "../core/context";
import { newId, type Workspace } from "../core/store";
import type { EndpointRecord } from "./endpoint-store";
import type { Principal } from "./common";
import { notFound } from "../core/errors";
import { newestFirst, visible } from "./common";
import { dict } from "../core/dict";

export const DELIVERY_STATES = ["queued", "sending", "sent", "failed", "dead"] as const;
export type DeliveryState = (typeof DELIVERY_STATES)[number];

/** Used when an endpoint's `retry_schedule` is null (seconds after attempt 1, 2, ...). */
export const DEFAULT_RETRY_SCHEDULE = [5, 300, 1800, 7200, 18000, 36000, 86400];
/** Used when an endpoint's `max_attempts` is null (capped by the plan's ceiling). */
export const DEFAULT_MAX_ATTEMPTS = 5;

export interface AttemptRecord {
  id: string;
  number: number;
  attempted_at: string;
  outcome: "delivered" | "failed";
  status_code: number | null;
  failure_reason: string | null;
  error: string | null;
  latency_ms: number;
}

export interface DeliveryRecord {
  id: string;
  workspace_id: string;
  project_id: string;
  event_id: string;
  event_type: string;
  endpoint_id: string;
  status: DeliveryState;
  /** Set while a `failed` delivery waits for its next try. */
  next_attempt_at: string | null;
  attempts: AttemptRecord[];
  created_at: string;
  updated_at: string;
}

export interface DeliverySettings {
  /** Deliveries moved to `dead` in a row (no `sent` between) that auto-disable an enabled endpoint. */
  auto_disable_after_dead: number;
  /** Size of the shared redeliver bucket, per workspace per minute. */
  redeliver_per_minute: number;
  /** Automatic worker pass interval in ms; 0 = passes only on request (delivery-worker.ts). */
  auto_deliver_ms: number;
}

export const DEFAULT_DELIVERY_SETTINGS: DeliverySettings = { auto_disable_after_dead: 5, redeliver_per_minute: 60, auto_deliver_ms: 0 };

interface DeliveriesState {
  byId: Record<string, DeliveryRecord>;
  settings: DeliverySettings;
  /** Deliveries created per `<workspace>:<period start>` (the monthly ceiling reads this, not every row). */
  usage: Record<string, number>;
  /** Control-plane additions to a workspace's usage in one period (to test ceilings without publishing 10,000 times). */
  extraUsage: Record<string, { period: string; deliveries: number }>;
}

export function deliveriesState(ctx: EmulatorContext): DeliveriesState {
  const state = ctx.store.product<DeliveriesState>("webhooks.deliveries", () => ({ byId: dict(), settings: { ...DEFAULT_DELIVERY_SETTINGS }, usage: dict(), extraUsage: dict() }));
  // State files written before these existed.
  state.usage ??= dict();
  state.settings = { ...DEFAULT_DELIVERY_SETTINGS, ...state.settings };
  return state;
}

export function deliverySettings(ctx: EmulatorContext): DeliverySettings {
  return deliveriesState(ctx).settings;
}

/** Deliveries matching `pred`, newest first. */
export function findDeliveries(ctx: EmulatorContext, pred: (d: DeliveryRecord) => boolean): DeliveryRecord[] {
  return newestFirst(Object.values(deliveriesState(ctx).byId).filter(pred));
}

export function deliveryOr404(ctx: EmulatorContext, principal: Principal, id: string): DeliveryRecord {
  const d = deliveriesState(ctx).byId[id];
  if (!d || !visible(principal, d)) throw notFound("delivery", id);
  return d;
}

/** Queued, sending, or failed and waiting for a retry: what blocks an endpoint's delete. */
export function isPending(d: DeliveryRecord): boolean {
  return d.status === "queued" || d.status === "sending" || (d.status === "failed" && d.next_attempt_at !== null);
}

export function createDelivery(ctx: EmulatorContext, event: { id: string; event_type: string; workspace_id: string; project_id: string }, endpoint: EndpointRecord): DeliveryRecord {
  const now = ctx.nowIso();
  const d: DeliveryRecord = {
    id: newId("dlv"),
    workspace_id: event.workspace_id,
    project_id: event.project_id,
    event_id: event.id,
    event_type: event.event_type,
    endpoint_id: endpoint.id,
    status: "queued",
    next_attempt_at: null,
    attempts: [],
    created_at: now,
    updated_at: now,
  };
  const state = deliveriesState(ctx);
  state.byId[d.id] = d;
  const usageKey = `${d.workspace_id}:${billingPeriodStart(ctx.state.workspaces[d.workspace_id]!, ctx.now())}`;
  state.usage[usageKey] = (state.usage[usageKey] ?? 0) + 1;
  ctx.store.changed();
  return d;
}

export function effectiveMaxAttempts(ctx: EmulatorContext, endpoint: EndpointRecord | undefined, ws: Workspace): number {
  const ceiling = ctx.plan(ws).webhooks.max_attempts;
  return Math.min(endpoint?.max_attempts ?? DEFAULT_MAX_ATTEMPTS, ceiling);
}

export interface AttemptInput {
  outcome: "delivered" | "failed";
  status_code?: number | null;
  failure_reason?: string | null;
  error?: string | null;
  latency_ms?: number;
}

/**
 * Record one attempt and move the delivery: delivered -> `sent`; failed -> `failed`
 * with a retry time while attempts remain, else `dead`. A `dead` counts towards the
 * endpoint's auto-disable; a `sent` resets the count.
 */
export function recordAttempt(ctx: EmulatorContext, d: DeliveryRecord, endpoint: EndpointRecord | undefined, a: AttemptInput): void {
  const ws = ctx.state.workspaces[d.workspace_id]!;
  const next: DeliveryState = a.outcome === "delivered" ? "sent" : d.attempts.length + 1 >= effectiveMaxAttempts(ctx, endpoint, ws) ? "dead" : "failed";
  moveDelivery(ctx, d, endpoint, next, a);
}

/**
 * Put a delivery in `to` (control plane and worker). Moving to sent/failed/dead
 * records an attempt (defaults: 200 for sent, http_status 500 otherwise).
 */
export function moveDelivery(ctx: EmulatorContext, d: DeliveryRecord, endpoint: EndpointRecord | undefined, to: DeliveryState, a: Partial<AttemptInput> = {}): void {
  const now = ctx.now();
  if (to === "sent" || to === "failed" || to === "dead") {
    const delivered = to === "sent";
    const statusCode = a.status_code ?? (delivered ? 200 : 500);
    const reason = delivered ? null : (a.failure_reason ?? "http_status");
    d.attempts.push({
      id: newId("att"),
      number: d.attempts.length + 1,
      attempted_at: now.toISOString(),
      outcome: delivered ? "delivered" : "failed",
      status_code: reason === "http_status" || delivered ? statusCode : (a.status_code ?? null),
      failure_reason: reason,
      error: delivered ? null : (a.error ?? defaultError(reason, statusCode)),
      latency_ms: a.latency_ms ?? 0,
    });
  }
  d.status = to;
  d.next_attempt_at = to === "failed" ? retryAt(ctx, d, endpoint, now) : null;
  d.updated_at = now.toISOString();
  if (endpoint) countTowardsAutoDisable(ctx, endpoint, to);
  ctx.store.changed();
}

/** Re-arm for a fresh attempt (redeliver, bulk redeliver, replay by range). */
export function rearm(ctx: EmulatorContext, d: DeliveryRecord): void {
  d.status = "queued";
  d.next_attempt_at = null;
  d.updated_at = ctx.nowIso();
  ctx.store.changed();
}

function retryAt(ctx: EmulatorContext, d: DeliveryRecord, endpoint: EndpointRecord | undefined, now: Date): string | null {
  const ws = ctx.state.workspaces[d.workspace_id]!;
  if (d.attempts.length >= effectiveMaxAttempts(ctx, endpoint, ws)) return null;
  const schedule = endpoint?.retry_schedule?.length ? endpoint.retry_schedule : DEFAULT_RETRY_SCHEDULE;
  const delay = schedule[Math.min(d.attempts.length - 1, schedule.length - 1)] ?? 0;
  return new Date(now.getTime() + Math.max(0, delay) * 1000).toISOString();
}

function countTowardsAutoDisable(ctx: EmulatorContext, endpoint: EndpointRecord, to: DeliveryState): void {
  if (to === "sent") endpoint.consecutive_dead = 0;
  if (to !== "dead") return;
  endpoint.consecutive_dead++;
  if (endpoint.status === "enabled" && endpoint.consecutive_dead >= deliverySettings(ctx).auto_disable_after_dead) {
    endpoint.status = "auto_disabled";
    endpoint.updated_at = ctx.nowIso();
  }
}

function defaultError(reason: string | null, statusCode: number | null): string {
  return reason === "http_status" ? `The endpoint answered HTTP ${statusCode}.` : `Delivery failed: ${reason}.`;
}

export function deliveryView(d: DeliveryRecord) {
  const last = d.attempts[d.attempts.length - 1];
  return {
    id: d.id,
    event_id: d.event_id,
    endpoint_id: d.endpoint_id,
    project_id: d.project_id,
    event_type: d.event_type,
    status: d.status,
    attempts: d.attempts.length,
    next_attempt_at: d.next_attempt_at,
    last_attempt_at: last?.attempted_at ?? null,
    last_status_code: last?.status_code ?? null,
    last_failure_reason: last?.failure_reason ?? null,
    created_at: d.created_at,
    updated_at: d.updated_at,
  };
}

export function attemptView(d: DeliveryRecord, a: AttemptRecord) {
  return { delivery_id: d.id, ...a };
}

/**
 * First day (UTC) of the billing cycle containing `now`. A cycle starts on the
 * day of the month the workspace was created (days after the 28th start on the 28th).
 */
export function billingPeriodStart(ws: Workspace, now: Date): string {
  const anchor = Math.min(new Date(ws.created_at).getUTCDate(), 28);
  let y = now.getUTCFullYear();
  let m = now.getUTCMonth();
  if (now.getUTCDate() < anchor) {
    m -= 1;
    if (m < 0) {
      m = 11;
      y -= 1;
    }
  }
  return new Date(Date.UTC(y, m, anchor)).toISOString().slice(0, 10);
}

/** Deliveries created in the workspace's current billing cycle (plus control-plane additions). */
export function deliveriesThisPeriod(ctx: EmulatorContext, ws: Workspace): { period: string; count: number } {
  const state = deliveriesState(ctx);
  const period = billingPeriodStart(ws, ctx.now());
  const extra = state.extraUsage[ws.id];
  return { period, count: (state.usage[`${ws.id}:${period}`] ?? 0) + (extra && extra.period === period ? extra.deliveries : 0) };
}
