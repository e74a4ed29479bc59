/**
 * Captures (spec document 2, "Capture" and "Sources, ingest, captures"): one row per
 * distinct request a source with `capture_enabled` received; a retry of the same
 * request (same `X-Webhook-Id`, or with no id the same body) increments `seen_count`
 * and takes the latest outcome.
 *
 * Retention (the spec is silent; unsigned requests are captured too, so anyone who knows
 * an ingest URL can send them): per source at most MAX_CAPTURES_PER_SOURCE rows and
 * MAX_CAPTURE_BYTES_PER_SOURCE of stored bodies and headers; the least recently seen
 * row goes first; a body over MAX_CAPTURE_BODY_BYTES is stored cut at that length
 * (`body_truncated`, `size` is what was received). A retained row keeps its `seen_count`.
 * An in-memory index (rebuilt from the state when needed) makes each sighting O(1).
 */
import { createHash } from "node:crypto";
import type { FastifyInstance } from "fastify";
import { z } from "zod";
import type { EmulatorContext } from "../core/context";
import { notFound } from "../core/errors";
import { newId } from "../core/store";
import { offsetPage, offsetPageQuery, parse } from "../core/validation";
import { assertProjectVisible, auth, visible, type Principal } from "./common";
import { sourceOr404, type SourceRecord } from "./sources";
import { dict } from "../core/dict";

export const MAX_CAPTURES_PER_SOURCE = 1000;
/** Body bytes stored per capture (64 KiB); the rest is dropped. */
export const MAX_CAPTURE_BODY_BYTES = 64 * 1024;
/** Body and header bytes stored per source (8 MiB). */
export const MAX_CAPTURE_BYTES_PER_SOURCE = 8 * 1024 * 1024;

/**
 * What became of a received request (an open set; these are the values sent):
 *   accepted            verified and published (a provider retry of an accepted id stays accepted: the original event stands)
 *   signature_invalid   the signature did not verify (the provider got 401)
 *   unknown_event_type  refused by the strict policy (the provider got 202)
 *   invalid_payload     the payload failed its type's schema (the provider got 202)
 *   id_conflict         the provider's event id was seen before with a different body; the original stands (202)
 *   quota_exceeded, workspace_frozen, workspace_suspended   refused by plan or billing (the provider got that 402)
 */
export type CaptureOutcome = string;

export interface CaptureRecord {
  id: string;
  workspace_id: string;
  project_id: string;
  source_id: string;
  /** Identity of "the same request" within the source. */
  request_key: string;
  outcome: CaptureOutcome;
  event_type: string | null;
  event_id: string | null;
  webhook_id: string | null;
  seen_count: number;
  first_seen_at: string;
  last_seen_at: string;
  /** Increases on every sighting: orders rows seen within the same millisecond. */
  last_seen_seq: number;
  content_type: string | null;
  size: number;
  headers: Record<string, string>;
  body_base64: string;
  /** True when the stored body is the first MAX_CAPTURE_BODY_BYTES of a longer one. */
  body_truncated?: boolean;
}

interface CapturesState {
  byId: Record<string, CaptureRecord>;
  seq: number;
}

function capturesState(ctx: EmulatorContext): CapturesState {
  return ctx.store.product<CapturesState>("webhooks.captures", () => ({ byId: dict(), seq: 0 }));
}

/** Headers never stored. */
const NOT_CAPTURED = new Set(["authorization", "cookie", "x-api-key"]);

export interface ReceivedRequest {
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
  webhookId: string | null;
}

/** Record one sighting of a request to a source (no-op unless the source captures). Synchronous. */
export function recordCapture(
  ctx: EmulatorContext,
  source: SourceRecord,
  request: ReceivedRequest,
  result: { outcome: CaptureOutcome; event_type: string | null; event_id: string | null },
): CaptureRecord | undefined {
  if (!source.capture_enabled) return undefined;
  const state = capturesState(ctx);
  const requestKey = request.webhookId !== null ? `id:${request.webhookId}` : `sha256:${createHash("sha256").update(request.body).digest("hex")}`;
  const now = ctx.nowIso();
  const headers = dict<string>();
  for (const [name, value] of Object.entries(request.headers)) {
    if (value !== undefined && !NOT_CAPTURED.has(name)) headers[name] = Array.isArray(value) ? value.join(", ") : value;
  }
  const stored = request.body.subarray(0, MAX_CAPTURE_BODY_BYTES);
  const seen = {
    last_seen_at: now,
    last_seen_seq: ++state.seq,
    headers,
    body_base64: stored.toString("base64"),
    body_truncated: stored.length < request.body.length,
    size: request.body.length,
    content_type: headers["content-type"] ?? null,
  };
  const index = sourceIndex(state, source.id);
  let row = index.rows.get(requestKey);
  if (row) {
    index.forget(row);
    Object.assign(row, seen, { seen_count: row.seen_count + 1, outcome: result.outcome, event_type: result.event_type ?? row.event_type, event_id: result.event_id ?? row.event_id });
  } else {
    row = {
      id: newId("cap"),
      workspace_id: source.workspace_id,
      project_id: source.project_id,
      source_id: source.id,
      request_key: requestKey,
      webhook_id: request.webhookId,
      seen_count: 1,
      first_seen_at: now,
      ...seen,
      outcome: result.outcome,
      event_type: result.event_type,
      event_id: result.event_id,
    };
    state.byId[row.id] = row;
  }
  index.remember(row);
  // The least recently seen rows go until the source is within both bounds (the newest always stays).
  for (const oldest of index.rows.values()) {
    if (index.rows.size <= MAX_CAPTURES_PER_SOURCE && index.bytes <= MAX_CAPTURE_BYTES_PER_SOURCE) break;
    if (oldest === row) break;
    index.forget(oldest);
    delete state.byId[oldest.id];
  }
  ctx.store.changed();
  return row;
}

/** Stored bytes of a row, as the per-source bound counts them. */
const storedBytes = (c: CaptureRecord) => c.body_base64.length + Object.entries(c.headers).reduce((n, [k, v]) => n + k.length + v.length, 0);

/** One source's rows by request key, least recently seen first, and their stored bytes. */
class SourceIndex {
  readonly rows = new Map<string, CaptureRecord>();
  bytes = 0;

  remember(c: CaptureRecord): void {
    this.rows.set(c.request_key, c);
    this.bytes += storedBytes(c);
  }

  forget(c: CaptureRecord): void {
    this.rows.delete(c.request_key);
    this.bytes -= storedBytes(c);
  }
}

/** Not persisted: rebuilt from the state after a start from a state file, a reset or a delete. */
const indexes = new WeakMap<CapturesState, Map<string, SourceIndex>>();

function sourceIndex(state: CapturesState, sourceId: string): SourceIndex {
  let bySource = indexes.get(state);
  if (!bySource) {
    bySource = new Map();
    for (const c of Object.values(state.byId).sort((a, b) => a.last_seen_seq - b.last_seen_seq)) {
      let index = bySource.get(c.source_id);
      if (!index) bySource.set(c.source_id, (index = new SourceIndex()));
      index.remember(c);
    }
    indexes.set(state, bySource);
  }
  let index = bySource.get(sourceId);
  if (!index) bySource.set(sourceId, (index = new SourceIndex()));
  return index;
}

export function deleteCapturesOfSource(ctx: EmulatorContext, sourceId: string): void {
  const state = capturesState(ctx);
  for (const c of Object.values(state.byId)) if (c.source_id === sourceId) delete state.byId[c.id];
  indexes.delete(state);
  ctx.store.changed();
}

function captureOr404(ctx: EmulatorContext, principal: Principal, id: string): CaptureRecord {
  const c = capturesState(ctx).byId[id];
  if (!c || !visible(principal, c)) throw notFound("capture", id);
  return c;
}

function listView(c: CaptureRecord) {
  return {
    id: c.id,
    source_id: c.source_id,
    project_id: c.project_id,
    outcome: c.outcome,
    event_type: c.event_type,
    event_id: c.event_id,
    webhook_id: c.webhook_id,
    seen_count: c.seen_count,
    first_seen_at: c.first_seen_at,
    last_seen_at: c.last_seen_at,
    content_type: c.content_type,
    size: c.size,
  };
}

const detailView = (c: CaptureRecord) => ({ ...listView(c), headers: c.headers, body: c.body_base64, body_truncated: c.body_truncated === true });

const listQuery = offsetPageQuery.extend({ source_id: z.string().optional(), outcome: z.string().optional(), project_id: z.string().optional() });

type Params = { Params: { id: string } };

export function registerCaptures(app: FastifyInstance, ctx: EmulatorContext): void {
  app.get("/v1/captures", async (req) => {
    const principal = auth(ctx, req, "read");
    const q = parse(listQuery, req.query, "query");
    if (q.source_id) sourceOr404(ctx, principal, q.source_id);
    if (q.project_id) assertProjectVisible(ctx, principal, q.project_id);
    const rows = Object.values(capturesState(ctx).byId)
      .filter((c) => visible(principal, c) && (!q.source_id || c.source_id === q.source_id) && (!q.outcome || c.outcome === q.outcome) && (!q.project_id || c.project_id === q.project_id))
      .sort((a, b) => (a.last_seen_at === b.last_seen_at ? b.last_seen_seq - a.last_seen_seq : a.last_seen_at < b.last_seen_at ? 1 : -1));
    return offsetPage(rows.map(listView), q);
  });

  app.get<Params>("/v1/captures/:id", async (req) => detailView(captureOr404(ctx, auth(ctx, req, "read"), req.params.id)));

  // Allowed with a read key (spec).
  app.delete<Params>("/v1/captures/:id", async (req, reply) => {
    const capture = captureOr404(ctx, auth(ctx, req, "read"), req.params.id);
    const state = capturesState(ctx);
    delete state.byId[capture.id];
    indexes.delete(state);
    ctx.store.changed();
    return reply.status(204).send();
  });
}
