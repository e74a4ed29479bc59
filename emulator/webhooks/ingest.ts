/**
 * Inbound provider webhooks: `POST /v1/ingest/{source_id}` (spec document 2, ingest
 * rules 1–4; design/api-assumptions.md for the signature and id headers).
 *
 *   1. Unknown or disabled source: 404 `not_found` reason `source` (indistinguishable).
 *   2. `X-Webhook-Signature: sha256=<hex HMAC-SHA256 of the raw body>` with the current
 *      secret or, within 24 h of a rotation, the previous one; every failure is the same
 *      401 `unauthorized` reason `invalid`.
 *   3. The event type: read per `event_type_source` (below), prefixed with
 *      `event_type_prefix`; if it cannot be read, `default_event_type` as is; with no
 *      default, `webhook.received` (added to the workspace catalog, so it passes strict).
 *   4. Published through the normal pipeline (`publishEvent`) in the source's project,
 *      with `X-Webhook-Id` as the idempotency key `ingest:<source_id>:<id>`, so a
 *      provider retry replays instead of fanning out twice.
 *   5. 202 with the outcome. A type refused by the strict policy or a payload failing
 *      its schema is still 202 (the provider's delivery was received; retrying cannot
 *      help) and shows as that outcome in captures; plan and billing refusals (402)
 *      pass through to the provider.
 */
import type { FastifyInstance, FastifyRequest } from "fastify";
import { assertWorkspaceActive } from "../core/auth";
import type { EmulatorContext } from "../core/context";
import { ApiError, notFound, unauthorized } from "../core/errors";
import type { SourceProvider } from "../../rules/source";
import type { Principal } from "./common";
import { recordCapture, type CaptureOutcome } from "./captures";
import { RECEIVED_EVENT_TYPE, registerIfAbsent } from "./event-types";
import { publishEvent } from "./events";
import { signatureVerifies, sourcesState, type SourceRecord } from "./sources";
import { nestsDeeperThan } from "../core/json-depth";

/**
 * Where `event_type_source: provider` reads the type, per provider (the emulator's
 * stand-ins for the real providers' conventions): a JSON body member or a header.
 */
export const PROVIDER_EVENT_TYPE_LOCATION: Record<SourceProvider, { path: string } | { header: string }> = {
  payments: { path: "type" },
  codehost: { header: "x-codehost-event" },
  broker: { path: "routing_key" },
  generic: { path: "type" },
};

const utf8 = new TextDecoder("utf-8", { fatal: true });

/** The body as JSON, or undefined when it is not JSON (or nests past MAX_JSON_DEPTH: then it is handled as a non-JSON body). */
function parseJson(body: Buffer): unknown {
  if (nestsDeeperThan(body)) return undefined;
  try {
    return JSON.parse(utf8.decode(body));
  } catch {
    return undefined;
  }
}

/** A dot path into JSON (`data.object.type`; numeric segments index arrays). */
function atPath(value: unknown, path: string): unknown {
  let v = value;
  for (const seg of path.split(".")) {
    if (v === null || typeof v !== "object" || !Object.prototype.hasOwnProperty.call(v, seg)) return undefined;
    v = (v as Record<string, unknown>)[seg];
  }
  return v;
}

function headerValue(req: FastifyRequest, name: string): string | undefined {
  const v = req.headers[name.toLowerCase()];
  return typeof v === "string" && v !== "" ? v : undefined;
}

/** Longest event type name, as on `POST /v1/events`; a longer one counts as unreadable. */
const MAX_EVENT_TYPE_LENGTH = 255;

/** The event type read from the request with the source's prefix, or undefined when it cannot be read. */
function readEventType(source: SourceRecord, req: FastifyRequest, json: unknown): string | undefined {
  const where =
    source.event_type_source === "header" ? { header: source.event_type_key ?? "" }
    : source.event_type_source === "path" ? { path: source.event_type_key ?? "" }
    : PROVIDER_EVENT_TYPE_LOCATION[source.provider];
  const value = "header" in where ? headerValue(req, where.header) : atPath(json, where.path);
  const full = typeof value === "string" && value !== "" ? (source.event_type_prefix ?? "") + value : undefined;
  return full !== undefined && full.length <= MAX_EVENT_TYPE_LENGTH ? full : undefined;
}

/** The payload: the JSON body when it is an object, else the bytes wrapped. */
function payloadOf(json: unknown, body: Buffer, contentType: string | undefined): Record<string, unknown> {
  if (json !== null && typeof json === "object" && !Array.isArray(json)) return json as Record<string, unknown>;
  return { body_base64: body.toString("base64"), content_type: contentType ?? null };
}

/** The outcome a refusal is captured as, and whether the provider still gets 202. */
function refusalOutcome(err: ApiError): { outcome: CaptureOutcome; accepted: boolean } {
  if (err.status === 422) return { outcome: err.code, accepted: true };
  if (err.status === 409) return { outcome: "id_conflict", accepted: true };
  return { outcome: err.code, accepted: false };
}

type Params = { Params: { id: string } };

export function registerIngest(app: FastifyInstance, ctx: EmulatorContext): void {
  app.post<Params>("/v1/ingest/:id", async (req, reply) => {
    const source = sourcesState(ctx)[req.params.id];
    if (!source || source.status !== "enabled") throw notFound("source", req.params.id);
    const body = req.rawBody ?? Buffer.alloc(0);
    const webhookId = headerValue(req, "x-webhook-id") ?? null;
    const received = { headers: req.headers, body, webhookId };

    if (!signatureVerifies(ctx, source, req.headers["x-webhook-signature"], body)) {
      recordCapture(ctx, source, received, { outcome: "signature_invalid", event_type: null, event_id: null });
      throw unauthorized("invalid", "The request signature did not verify.");
    }

    const ws = ctx.state.workspaces[source.workspace_id]!;
    const json = parseJson(body);
    const eventType = readEventType(source, req, json) ?? source.default_event_type ?? RECEIVED_EVENT_TYPE;
    const principal: Principal = { kind: "key", workspace: ws, confinedProject: null, scope: "admin" };
    let result: { outcome: CaptureOutcome; event_type: string; event_id: string | null; replayed: boolean };
    let refusal: ApiError | undefined;
    try {
      assertWorkspaceActive(ws, true);
      if (eventType === RECEIVED_EVENT_TYPE) registerIfAbsent(ctx, ws.id, RECEIVED_EVENT_TYPE, "ingest");
      const published = publishEvent(
        ctx,
        principal,
        { event_type: eventType, payload: payloadOf(json, body, req.headers["content-type"]), project_id: source.project_id, source: source.id },
        { idempotencyKey: webhookId === null ? undefined : `ingest:${source.id}:${webhookId}`, origin: "ingest" },
      );
      result = { outcome: "accepted", event_type: eventType, event_id: published.event.id, replayed: published.replayed ?? false };
    } catch (e) {
      if (!(e instanceof ApiError)) throw e;
      const { outcome, accepted } = refusalOutcome(e);
      result = { outcome, event_type: eventType, event_id: null, replayed: false };
      if (!accepted) refusal = e;
    }
    const capture = recordCapture(ctx, source, received, result);
    if (refusal) throw refusal;
    return reply.status(202).send({ ...result, capture_id: capture?.id ?? null });
  });
}
