/**
 * Inboxes: disposable email addresses and HTTP request bins.
 * POST/GET /v1/inboxes, GET/PATCH/DELETE /v1/inboxes/{inbox_id}.
 */
import type { FastifyInstance } from "fastify";
import { z } from "zod";
import type { EmulatorContext } from "../core/context";
import { notEntitled, quotaExceeded } from "../core/errors";
import { newId, randomBase32, type Workspace } from "../core/store";
import { offsetPage, offsetPageQuery, parse } from "../core/validation";
import { INBOX_DEFAULT_TRANSPORT, PHRASE_FEATURE, inboxNeedsPhraseGate, inboxViolations, type InboxStatus, type InboxTransport } from "../../rules/inbox";
import { objectBody, throwViolations } from "../core/violations";
import { audit, auth, authForDelete, visibleInbox } from "./common";
import { EMAIL_DOMAIN, inboxView, inboxesState, isLive, type InboxRecord } from "./state";

const listQuery = offsetPageQuery.extend({ address: z.string().optional() });
type Params = { Params: { inbox_id: string } };

/** The plan ceiling each transport counts against (402 `quota_exceeded`, reason `allocation`). */
const ALLOCATION_METRIC: Record<InboxTransport, "inboxes" | "http_bins"> = { email: "inboxes", http: "http_bins" };

export function liveInboxes(ctx: EmulatorContext, workspaceId: string): InboxRecord[] {
  return Object.values(inboxesState(ctx).inboxes).filter((i) => i.workspace_id === workspaceId && isLive(ctx, i));
}

function assertPhraseEntitled(ctx: EmulatorContext, ws: Workspace, body: Record<string, unknown>): void {
  if (inboxNeedsPhraseGate(body) && !ctx.plan(ws).inboxes.optional_phrase_gate) throw notEntitled(PHRASE_FEATURE);
}

function assertAllocationFree(ctx: EmulatorContext, ws: Workspace, transport: InboxTransport): void {
  const metric = ALLOCATION_METRIC[transport];
  const limit = ctx.plan(ws).inboxes[metric];
  const current = liveInboxes(ctx, ws.id).filter((i) => i.transport === transport).length;
  if (limit !== null && current >= limit) throw quotaExceeded("allocation", metric, limit, { current });
}

/** `?address=`: an email address, a bin slug or a bin URL (`.../bin/<slug>`). */
function matchesAddress(inbox: InboxRecord, value: string): boolean {
  const v = value.trim();
  const bin = /\/bin\/([^/?#]+)/.exec(v);
  if (bin) return inbox.transport === "http" && inbox.slug === decodeURIComponent(bin[1]!);
  if (v.includes("@")) return inbox.address !== null && inbox.address.toLowerCase() === v.toLowerCase();
  return inbox.transport === "http" && inbox.slug === v;
}

export function registerInboxes(app: FastifyInstance, ctx: EmulatorContext): void {
  app.post("/v1/inboxes", async (req, reply) => {
    const principal = auth(ctx, req, "admin");
    const body = objectBody(req.body);
    throwViolations(inboxViolations(body, { creating: true }));
    assertPhraseEntitled(ctx, principal.workspace, body);
    const transport = (body.transport as InboxTransport | undefined) ?? INBOX_DEFAULT_TRANSPORT;
    assertAllocationFree(ctx, principal.workspace, transport);

    const now = ctx.now();
    const minutes = body.expires_in_minutes as number | null | undefined;
    const slug = randomBase32(16);
    const inbox: InboxRecord = {
      id: newId("inb"),
      workspace_id: principal.workspace.id,
      label: (body.label as string | undefined) ?? null,
      phrase: (body.phrase as boolean | undefined) ?? false,
      transport,
      status: "active",
      address: transport === "email" ? `${slug}@${EMAIL_DOMAIN}` : null,
      slug,
      expires_at: minutes ? new Date(now.getTime() + minutes * 60_000).toISOString() : null,
      created_at: now.toISOString(),
      updated_at: now.toISOString(),
      released_at: null,
    };
    inboxesState(ctx).inboxes[inbox.id] = inbox;
    audit(ctx, principal, "inbox.created", { type: "inbox", id: inbox.id }, { transport, label: inbox.label, phrase: inbox.phrase, expires_at: inbox.expires_at });
    ctx.store.changed();
    return reply.status(201).send(inboxView(ctx, inbox));
  });

  app.get("/v1/inboxes", async (req) => {
    const principal = auth(ctx, req, "read");
    const q = parse(listQuery, req.query, "query");
    let items = liveInboxes(ctx, principal.workspace.id).reverse();
    if (q.address) items = items.filter((i) => matchesAddress(i, q.address!)).slice(0, 1);
    return offsetPage(items.map((i) => inboxView(ctx, i)), q);
  });

  app.get<Params>("/v1/inboxes/:inbox_id", async (req) => {
    const principal = auth(ctx, req, "read");
    return inboxView(ctx, visibleInbox(ctx, principal, req.params.inbox_id));
  });

  app.patch<Params>("/v1/inboxes/:inbox_id", async (req) => {
    const principal = auth(ctx, req, "admin");
    const inbox = visibleInbox(ctx, principal, req.params.inbox_id);
    const body = objectBody(req.body);
    throwViolations(inboxViolations(body, { creating: false }));
    assertPhraseEntitled(ctx, principal.workspace, body);
    // null sets a field back to its default: no label, phrase off, active.
    if (body.label !== undefined) inbox.label = body.label as string | null;
    if (body.phrase !== undefined) inbox.phrase = (body.phrase as boolean | null) ?? false;
    if (body.status !== undefined) inbox.status = (body.status as InboxStatus | null) ?? "active";
    inbox.updated_at = ctx.nowIso();
    audit(ctx, principal, "inbox.updated", { type: "inbox", id: inbox.id }, body);
    ctx.store.changed();
    return inboxView(ctx, inbox);
  });

  app.delete<Params>("/v1/inboxes/:inbox_id", async (req, reply) => {
    const principal = authForDelete(ctx, req);
    const inbox = visibleInbox(ctx, principal, req.params.inbox_id);
    const s = inboxesState(ctx);
    inbox.released_at = ctx.nowIso();
    for (const m of Object.values(s.messages)) if (m.inbox_id === inbox.id) delete s.messages[m.id];
    delete s.recent[inbox.id];
    audit(ctx, principal, "inbox.released", { type: "inbox", id: inbox.id });
    ctx.store.changed();
    return reply.status(204).send();
  });
}
