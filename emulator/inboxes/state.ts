/**
 * The Inboxes product state (kept in the store under `inboxes`, so `reset` and
 * `--state-file` cover it) and the views the API returns.
 */
import type { EmulatorContext } from "../core/context";
import type { InboxStatus, InboxTransport } from "../../rules/inbox";
import { dict } from "../core/dict";

export interface InboxRecord {
  id: string;
  workspace_id: string;
  label: string | null;
  phrase: boolean;
  transport: InboxTransport;
  status: InboxStatus;
  /** Email transport: `<slug>@inbox.svc.test`. */
  address: string | null;
  /** Both transports have a slug; http serves `/inboxes/bin/<slug>`. */
  slug: string;
  expires_at: string | null;
  created_at: string;
  updated_at: string;
  released_at: string | null;
}

export interface MessageRecord {
  id: string;
  /** Arrival order: breaks ties between equal timestamps (newest first). */
  seq: number;
  inbox_id: string;
  workspace_id: string;
  transport: InboxTransport;
  received_at: string;
  size_bytes: number;
  headers: Record<string, string>;
  // email
  from: string | null;
  to: string | null;
  subject: string | null;
  text: string | null;
  html: string | null;
  // http
  method: string | null;
  path: string | null;
  query: string | null;
  body: string | null;
  body_encoding: "utf8" | "base64" | null;
  content_type: string | null;
}

export interface AuditRecord {
  id: string;
  seq: number;
  workspace_id: string;
  action: string;
  actor: string;
  target_type: string;
  target_id: string;
  changes: Record<string, unknown>;
  created_at: string;
}

export interface InboxesState {
  inboxes: Record<string, InboxRecord>;
  messages: Record<string, MessageRecord>;
  audit: AuditRecord[];
  seq: number;
  /** Accepted messages per workspace per UTC month `YYYY-MM` (deleting messages does not give them back). */
  monthly: Record<string, Record<string, number>>;
  /** Acceptance times (ms) of the last minute, per inbox, for the per-inbox rate limit. */
  recent: Record<string, number[]>;
  /** Switched by the control plane. */
  ingest_enabled: boolean;
  /** Per-inbox acceptance limit per minute (our default; the spec shows no number). */
  rate_per_min: number;
}

export const DEFAULT_RATE_PER_MIN = 60;
export const EMAIL_DOMAIN = "inbox.svc.test";

export function inboxesState(ctx: EmulatorContext): InboxesState {
  return ctx.store.product<InboxesState>("inboxes", () => ({
    inboxes: dict(), messages: dict(), audit: [], seq: 0, monthly: dict(), recent: dict(), ingest_enabled: true, rate_per_min: DEFAULT_RATE_PER_MIN,
  }));
}

export function nextSeq(s: InboxesState): number {
  return ++s.seq;
}

/** Live: not released and not past `expires_at` (by the emulator clock). */
export function isLive(ctx: EmulatorContext, inbox: InboxRecord): boolean {
  return inbox.released_at === null && (inbox.expires_at === null || ctx.now().getTime() < Date.parse(inbox.expires_at));
}

/** The month a message counts in: `YYYY-MM` (UTC). */
export function currentPeriod(ctx: EmulatorContext): string {
  return ctx.nowIso().slice(0, 7);
}

/** The bin's URL as the API reports it: under `binPublicUrl` when set, else the emulator's own address. */
export function binUrl(ctx: EmulatorContext, slug: string): string {
  const base = ctx.options.binPublicUrl?.replace(/\/+$/, "") ?? `${ctx.baseUrl}/inboxes`;
  return `${base}/bin/${slug}`;
}

/** The inbox as the API returns it (api-assumptions: every key always present, null when not applicable). */
export function inboxView(ctx: EmulatorContext, i: InboxRecord) {
  const http = i.transport === "http";
  return {
    id: i.id,
    label: i.label,
    phrase: i.phrase,
    transport: i.transport,
    status: i.status,
    address: i.address,
    slug: http ? i.slug : null,
    url: http ? binUrl(ctx, i.slug) : null,
    expires_at: i.expires_at,
    created_at: i.created_at,
  };
}

export function messageView(m: MessageRecord, extracted?: unknown) {
  const { seq: _seq, workspace_id: _ws, ...view } = m;
  return extracted === undefined ? view : { ...view, extracted };
}
