/**
 * Inboxes control plane, under `/_emulator/inboxes` (emulator only; documented in
 * emulator/docs/inboxes.md): deliver an email, set the per-inbox rate limit,
 * switch message acceptance off/on, expire an inbox now.
 */
import type { FastifyInstance } from "fastify";
import { z } from "zod";
import type { EmulatorContext } from "../core/context";
import { notFound } from "../core/errors";
import { parse } from "../core/validation";
import { acceptMessage } from "./messages";
import { inboxesState, inboxView, isLive, messageView } from "./state";

const messageIn = z.object({
  inbox_id: z.string().optional(),
  /** Alternative to inbox_id: the inbox's email address, or a bin's slug. */
  address: z.string().optional(),
  headers: z.record(z.string(), z.string()).default({}),
  // email inboxes
  from: z.string().default("sender@example.test"),
  subject: z.string().default(""),
  text: z.string().default(""),
  html: z.string().nullable().default(null),
  // http inboxes (what the bin URL would have received)
  method: z.string().default("POST"),
  path: z.string().default("/"),
  query: z.string().default(""),
  body: z.string().default(""),
  content_type: z.string().nullable().default(null),
});
const rateIn = z.object({ rate_per_min: z.number().int().min(1) });
const ingestIn = z.object({ enabled: z.boolean() });

export function inboxesControl(app: FastifyInstance, ctx: EmulatorContext): void {
  app.post("/messages", async (req, reply) => {
    const b = parse(messageIn, req.body ?? {});
    const address = b.address?.toLowerCase();
    const inbox = Object.values(inboxesState(ctx).inboxes).find(
      (i) => isLive(ctx, i) && (i.id === b.inbox_id || (address !== undefined && (i.address === address || (i.transport === "http" && i.slug === b.address)))),
    );
    if (!inbox) throw notFound("inbox", b.inbox_id ?? b.address);
    const m = inbox.transport === "email"
      ? acceptMessage(ctx, inbox, {
        from: b.from, to: inbox.address, subject: b.subject, text: b.text, html: b.html, headers: b.headers,
        size_bytes: Buffer.byteLength(b.subject + b.text + (b.html ?? "")),
      })
      : acceptMessage(ctx, inbox, {
        method: b.method.toUpperCase(), path: b.path, query: b.query, body: b.body, body_encoding: "utf8", content_type: b.content_type,
        headers: b.content_type ? { ...b.headers, "content-type": b.content_type } : b.headers, size_bytes: Buffer.byteLength(b.body),
      });
    return reply.status(201).send(messageView(m));
  });

  app.get("/settings", async () => settings(ctx));

  app.post("/rate-limit", async (req) => {
    inboxesState(ctx).rate_per_min = parse(rateIn, req.body ?? {}).rate_per_min;
    ctx.store.changed();
    return settings(ctx);
  });

  app.post("/ingest", async (req) => {
    inboxesState(ctx).ingest_enabled = parse(ingestIn, req.body ?? {}).enabled;
    ctx.store.changed();
    return settings(ctx);
  });

  app.post<{ Params: { id: string } }>("/inboxes/:id/expire", async (req) => {
    const inbox = inboxesState(ctx).inboxes[req.params.id];
    if (!inbox || !isLive(ctx, inbox)) throw notFound("inbox", req.params.id);
    inbox.expires_at = ctx.nowIso();
    ctx.store.changed();
    return inboxView(ctx, inbox);
  });
}

function settings(ctx: EmulatorContext) {
  const s = inboxesState(ctx);
  return { ingest_enabled: s.ingest_enabled, rate_per_min: s.rate_per_min };
}
