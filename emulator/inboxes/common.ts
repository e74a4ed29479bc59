/**
 * Pieces every Inboxes route uses: authentication, the `read_api` gate, the
 * visible-inbox lookup, time bounds of message and audit lists, the audit trail.
 */
import type { FastifyRequest } from "fastify";
import { z } from "zod";
import { authenticateApp, type AppPrincipal, type AppScope } from "../core/auth";
import type { EmulatorContext } from "../core/context";
import { notEntitled, notFound } from "../core/errors";
import { newId } from "../core/store";
import { offsetPageQuery } from "../core/validation";
import { inboxesState, isLive, nextSeq, type InboxRecord } from "./state";

export function auth(ctx: EmulatorContext, req: FastifyRequest, need: AppScope): AppPrincipal {
  return authenticateApp(ctx, req, "inboxes", need);
}

/**
 * For the DELETEs, whose 402 column in spec document 3 is "none": releasing an
 * inbox or deleting messages is allowed while the workspace is frozen or suspended.
 */
export function authForDelete(ctx: EmulatorContext, req: FastifyRequest): AppPrincipal {
  return authenticateApp(ctx, req, "inboxes", "admin", { billing: false });
}

/**
 * Reading messages is gated on the credential (spec document 3, rule 3): a browser
 * session on every plan, an API key only when the plan has `read_api`.
 */
export function assertCanReadMessages(ctx: EmulatorContext, principal: AppPrincipal): void {
  if (principal.kind === "key" && !ctx.plan(principal.workspace).inboxes.read_api) throw notEntitled("read_api");
}

/** A live inbox of the caller's workspace, or 404 `not_found` reason `inbox` (released and expired read as gone). */
export function visibleInbox(ctx: EmulatorContext, principal: AppPrincipal, id: string): InboxRecord {
  const inbox = inboxesState(ctx).inboxes[id];
  if (!inbox || inbox.workspace_id !== principal.workspace.id || !isLive(ctx, inbox)) throw notFound("inbox", id);
  return inbox;
}

// ISO 8601 date or date-time; a time without an offset is UTC.
const ISO = /^(\d{4}-\d{2}-\d{2})(?:[T ](\d{2}:\d{2}(?::\d{2})?)(?:\.(\d+))?(Z|[+-]\d{2}:?\d{2})?)?$/i;

/** Parse an ISO 8601 timestamp to epoch ms (UTC), or undefined when it is not one. */
export function parseInstant(value: string): number | undefined {
  const m = ISO.exec(value.trim());
  if (!m) return undefined;
  const [, date, time, fraction, zone] = m;
  if (!time) return Date.parse(`${date}T00:00:00Z`);
  const ms = (fraction ?? "").padEnd(3, "0").slice(0, 3); // sub-millisecond digits floor away: stored times are milliseconds
  const offset = !zone || zone.toUpperCase() === "Z" ? "Z" : zone.includes(":") ? zone : `${zone.slice(0, 3)}:${zone.slice(3)}`;
  const t = Date.parse(`${date}T${time.length === 5 ? `${time}:00` : time}.${ms}${offset}`);
  return Number.isNaN(t) ? undefined : t;
}

const instant = z.string().transform((v, c) => {
  const t = parseInstant(v);
  if (t === undefined) {
    c.addIssue({ code: "custom", message: "Input should be an ISO 8601 timestamp", params: { type: "datetime_parsing" } });
    return z.NEVER;
  }
  return t;
});

/** `limit`/`offset` plus `since` (exclusive) and `until` (inclusive), both normalised to UTC. */
export const timeBoundedQuery = offsetPageQuery.extend({ since: instant.optional(), until: instant.optional() });

/** Keep items strictly after `since` and at or before `until`, newest first (ties: later arrival first). */
export function boundedNewestFirst<T extends { seq: number }>(items: T[], at: (t: T) => string, q: { since?: number; until?: number }): T[] {
  return items
    .filter((i) => {
      const t = Date.parse(at(i));
      return (q.since === undefined || t > q.since) && (q.until === undefined || t <= q.until);
    })
    .sort((a, b) => Date.parse(at(b)) - Date.parse(at(a)) || b.seq - a.seq);
}

/** Record a control-plane change of the workspace (never deleted). */
export function audit(ctx: EmulatorContext, principal: AppPrincipal, action: string, target: { type: string; id: string }, changes: Record<string, unknown> = {}): void {
  const s = inboxesState(ctx);
  s.audit.push({
    id: newId("aud"),
    seq: nextSeq(s),
    workspace_id: principal.workspace.id,
    action,
    actor: principal.kind === "session" ? "session" : `api_key:${principal.scope}`,
    target_type: target.type,
    target_id: target.id,
    changes,
    created_at: ctx.nowIso(),
  });
}
