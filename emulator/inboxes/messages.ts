/**
 * Messages: what the inboxes receive, and the one place a message is accepted
 * (`acceptMessage`: ingest switch, billing, monthly ceiling, per-inbox rate),
 * used by the request bins (`/inboxes/bin/{slug}`) and the control plane's email
 * injection alike.
 */
import type { FastifyInstance, FastifyRequest } from "fastify";
import { z } from "zod";
import { assertWorkspaceActive } from "../core/auth";
import type { EmulatorContext } from "../core/context";
import { ApiError, notFound, quotaExceeded, rateLimited } from "../core/errors";
import { newId } from "../core/store";
import { offsetPage, parse } from "../core/validation";
import { assertCanReadMessages, audit, auth, authForDelete, boundedNewestFirst, timeBoundedQuery, visibleInbox } from "./common";
import { currentPeriod, inboxesState, isLive, messageView, nextSeq, type InboxRecord, type MessageRecord } from "./state";
import { dict } from "../core/dict";

/**
 * `extract` on message reads (the spec: "a string"). Our decision: `links`
 * (http/https URLs) or `codes` (4 to 8 digit numbers) found in the message; any
 * other value is accepted and extracts nothing.
 */
const EXTRACTORS: Record<string, RegExp> = { links: /https?:\/\/[^\s"'<>]+/g, codes: /\b\d{4,8}\b/g };
const messagesQuery = timeBoundedQuery.extend({ extract: z.string().optional() });
const oneMessageQuery = z.object({ extract: z.string().optional() });

type Content = Omit<MessageRecord, "id" | "seq" | "inbox_id" | "workspace_id" | "transport" | "received_at">;

const EMPTY: Content = {
  size_bytes: 0, headers: {}, from: null, to: null, subject: null, text: null, html: null,
  method: null, path: null, query: null, body: null, body_encoding: null, content_type: null,
};

/**
 * Accept a message into a live inbox, or throw the refusal: 503 `unavailable`
 * (`ingest_disabled`), 402 `workspace_suspended`, 402 `quota_exceeded` (`period`,
 * metric `messages`), 429 `rate_limited` (`inbox_rate`).
 */
export function acceptMessage(ctx: EmulatorContext, inbox: InboxRecord, content: Partial<Content>): MessageRecord {
  const s = inboxesState(ctx);
  if (!s.ingest_enabled) throw new ApiError(503, "unavailable", "Acceptance of incoming messages is switched off; retry with backoff.", { reason: "ingest_disabled" });
  const ws = ctx.state.workspaces[inbox.workspace_id]!;
  assertWorkspaceActive(ws, false);

  const period = currentPeriod(ctx);
  const ceiling = ctx.plan(ws).inboxes.messages_per_month;
  const used = s.monthly[ws.id]?.[period] ?? 0;
  if (ceiling !== null && used >= ceiling) throw quotaExceeded("period", "messages", ceiling, { period });

  const now = ctx.now().getTime();
  const window = (s.recent[inbox.id] ?? []).filter((t) => t > now - 60_000);
  if (window.length >= s.rate_per_min) {
    const retryAfter = Math.max(1, Math.ceil((window[0]! + 60_000 - now) / 1000));
    throw rateLimited(retryAfter, { reason: "inbox_rate", rate_per_min: s.rate_per_min });
  }

  window.push(now);
  s.recent[inbox.id] = window;
  (s.monthly[ws.id] ??= dict())[period] = used + 1;
  const message: MessageRecord = {
    ...EMPTY,
    ...content,
    id: newId("msg"),
    seq: nextSeq(s),
    inbox_id: inbox.id,
    workspace_id: ws.id,
    transport: inbox.transport,
    received_at: new Date(now).toISOString(),
  };
  s.messages[message.id] = message;
  ctx.store.changed();
  return message;
}

function extracted(m: MessageRecord, kind: string | undefined): unknown {
  if (kind === undefined) return undefined;
  const pattern = Object.hasOwn(EXTRACTORS, kind) ? EXTRACTORS[kind] : undefined;
  const source = [m.subject, m.text, m.html, m.body_encoding === "utf8" ? m.body : null].filter((x) => x).join("\n");
  return { kind, matches: pattern ? [...new Set(source.match(pattern) ?? [])] : [] };
}

/** A request to a bin, as a message. */
function httpContent(req: FastifyRequest, rest: string): Partial<Content> {
  const raw = req.rawBody ?? Buffer.alloc(0);
  let body: string | null = null;
  let encoding: "utf8" | "base64" | null = null;
  if (raw.length > 0) {
    try {
      body = new TextDecoder("utf-8", { fatal: true }).decode(raw);
      encoding = "utf8";
    } catch {
      body = raw.toString("base64");
      encoding = "base64";
    }
  }
  const headers = dict<string>();
  for (const [k, v] of Object.entries(req.headers)) if (v !== undefined) headers[k] = Array.isArray(v) ? v.join(", ") : v;
  const q = req.url.indexOf("?");
  return {
    headers, size_bytes: raw.length, method: req.method, path: `/${rest}`, query: q >= 0 ? req.url.slice(q + 1) : "",
    body, body_encoding: encoding, content_type: typeof req.headers["content-type"] === "string" ? req.headers["content-type"] : null,
  };
}

/** The live http inbox of a slug, or 404 `inbox` (the slug as id). */
function binBySlug(ctx: EmulatorContext, slug: string): InboxRecord {
  const inbox = Object.values(inboxesState(ctx).inboxes).find((i) => i.transport === "http" && i.slug === slug && isLive(ctx, i));
  if (!inbox) throw notFound("inbox", slug);
  return inbox;
}

export function registerMessages(app: FastifyInstance, ctx: EmulatorContext): void {
  type InboxParams = { Params: { inbox_id: string } };

  app.get<InboxParams>("/v1/inboxes/:inbox_id/messages", async (req) => {
    const principal = auth(ctx, req, "read");
    assertCanReadMessages(ctx, principal);
    const inbox = visibleInbox(ctx, principal, req.params.inbox_id);
    const q = parse(messagesQuery, req.query, "query");
    const items = boundedNewestFirst(Object.values(inboxesState(ctx).messages).filter((m) => m.inbox_id === inbox.id), (m) => m.received_at, q);
    const page = offsetPage(items, q);
    return { ...page, data: page.data.map((m) => messageView(m, extracted(m, q.extract))) };
  });

  app.delete<InboxParams>("/v1/inboxes/:inbox_id/messages", async (req) => {
    const principal = authForDelete(ctx, req);
    const inbox = visibleInbox(ctx, principal, req.params.inbox_id);
    const s = inboxesState(ctx);
    const doomed = Object.values(s.messages).filter((m) => m.inbox_id === inbox.id);
    for (const m of doomed) delete s.messages[m.id];
    audit(ctx, principal, "messages.deleted", { type: "inbox", id: inbox.id }, { count: doomed.length });
    ctx.store.changed();
    return { deleted: doomed.length };
  });

  app.get<{ Params: { inbox_id: string; message_id: string } }>("/v1/inboxes/:inbox_id/messages/:message_id", async (req) => {
    const principal = auth(ctx, req, "read");
    assertCanReadMessages(ctx, principal);
    const inbox = visibleInbox(ctx, principal, req.params.inbox_id);
    const q = parse(oneMessageQuery, req.query, "query");
    const m = inboxesState(ctx).messages[req.params.message_id];
    if (!m || m.inbox_id !== inbox.id) throw notFound("message", req.params.message_id);
    return messageView(m, extracted(m, q.extract));
  });

  app.get("/v1/messages", async (req) => {
    const principal = auth(ctx, req, "read");
    assertCanReadMessages(ctx, principal);
    const q = parse(messagesQuery, req.query, "query");
    const s = inboxesState(ctx);
    const mine = Object.values(s.messages).filter((m) => m.workspace_id === principal.workspace.id && isLive(ctx, s.inboxes[m.inbox_id]!));
    const page = offsetPage(boundedNewestFirst(mine, (m) => m.received_at, q), q);
    return { ...page, data: page.data.map((m) => messageView(m, extracted(m, q.extract))) };
  });

  // Request bins take any body as is (not JSON), so they get their own raw parser.
  void app.register(async (bins) => {
    bins.removeAllContentTypeParsers();
    bins.addContentTypeParser("*", { parseAs: "buffer" }, (req: FastifyRequest, body: Buffer, done) => {
      req.rawBody = body;
      done(null, undefined);
    });
    const receive = async (req: FastifyRequest<{ Params: { slug: string; "*"?: string } }>) => {
      const inbox = binBySlug(ctx, req.params.slug);
      const m = acceptMessage(ctx, inbox, httpContent(req, req.params["*"] ?? ""));
      return { accepted: true, inbox_id: inbox.id, message_id: m.id };
    };
    const methods = ["GET", "POST", "PUT", "PATCH", "DELETE"];
    bins.route({ method: methods, url: "/bin/:slug", handler: receive });
    bins.route({ method: methods, url: "/bin/:slug/*", handler: receive });
  });
}
