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

const emailIn = z.object({
  inbox_id: z.string().optional(),
  /** Alternative to inbox_id: the inbox's email address. */
  address: z.string().optional(),
  from: z.string().default("sender@example.test"),
  subject: z.string().default(""),
  text: z.string().default(""),
  html: z.string().nullable().default(null),
  headers: z.record(z.string(), z.string()).default({}),
});
const rateIn = z.object({ rate_per_min: z.number().int().min(1) });
const ingestIn = z.object({ enabled: z.boolean() });

export function inboxesControl(app: FastifyInstance, ctx: EmulatorContext): void {
  app.post("/messages", async (req, reply) => {
    const body = parse(emailIn, req.body ?? {});
    const s = inboxesState(ctx);
    const inbox = Object.values(s.inboxes).find(
      (i) => isLive(ctx, i) && i.transport === "email" && (i.id === body.inbox_id || (body.address !== undefined && i.address === body.address.toLowerCase())),
    );
    if (!inbox) throw notFound("inbox", body.inbox_id ?? body.address);
    const size = Buffer.byteLength(body.subject + body.text + (body.html ?? ""));
    const m = acceptMessage(ctx, inbox, { from: body.from, to: inbox.address, subject: body.subject, text: body.text, html: body.html, headers: body.headers, size_bytes: size });
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
