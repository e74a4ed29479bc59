/**
 * Ingest sources (spec document 2, "Source" and "Sources, ingest, captures";
 * design/api-assumptions.md for the response and `rotate-secret`).
 *
 * The rules (broker fields, port, queue kinds, provider secrets, broker hosts) are
 * in rules/source.ts; the broker plan gate is here (it needs the plan).
 */
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import type { FastifyInstance } from "fastify";
import { z } from "zod";
import type { EmulatorContext } from "../core/context";
import { ApiError, notEntitled, notFound } from "../core/errors";
import { newId } from "../core/store";
import { offsetPage, offsetPageQuery, parse } from "../core/validation";
import {
  BROKER_FIELDS,
  brokerHostNotAllowed,
  brokerHostPort,
  EVENT_TYPE_SOURCES,
  rotateNeedsSecret,
  SOURCE_PROVIDERS,
  sourceViolations,
  type SourceProvider,
} from "../../rules/source";
import { assertProjectVisible, auth, resolveProject, throwViolations, visible, type Principal } from "./common";
import { deleteCapturesOfSource } from "./captures";
import { dict } from "../core/dict";

/** The previous secret keeps verifying ingest this long after a rotation (spec document 1: 24 hours). */
export const SECRET_OVERLAP_MS = 24 * 60 * 60 * 1000;

export interface SourceRecord {
  id: string;
  workspace_id: string;
  project_id: string;
  provider: SourceProvider;
  name: string | null;
  event_type_source: (typeof EVENT_TYPE_SOURCES)[number];
  event_type_key: string | null;
  event_type_prefix: string | null;
  default_event_type: string | null;
  capture_enabled: boolean;
  broker_identifier: string | null;
  broker_host: string | null;
  broker_vhost: string | null;
  broker_user: string | null;
  broker_exchange: string | null;
  broker_topic: string | null;
  broker_port: number | null;
  broker_queues: string | null;
  status: "enabled" | "disabled";
  secret: string;
  /** Set by a rotation; verifies ingest until `previous_secret_expires_at`. */
  previous_secret: string | null;
  previous_secret_expires_at: string | null;
  created_at: string;
  updated_at: string;
}

type Sources = Record<string, SourceRecord>;

export function sourcesState(ctx: EmulatorContext): Sources {
  return ctx.store.product<Sources>("webhooks.sources", () => dict());
}

export function sourceOr404(ctx: EmulatorContext, principal: Principal, id: string): SourceRecord {
  const s = sourcesState(ctx)[id];
  if (!s || !visible(principal, s)) throw notFound("source", id);
  return s;
}

/** A generated source secret: `whsec_` plus 32 random bytes, base64. */
function newSourceSecret(): string {
  return `whsec_${randomBytes(32).toString("base64")}`;
}

/** `sha256=<hex>` of the body keyed with `secret`: the `X-Webhook-Signature` value (design/api-assumptions.md). */
export function signIngest(secret: string, body: Buffer): string {
  return `sha256=${createHmac("sha256", secret).update(body).digest("hex")}`;
}

const SIGNATURE = /^sha256=([0-9a-f]{64})$/i;

/**
 * Whether `header` signs `body` with the current secret or, within 24 h of a
 * rotation, the previous one. Constant-time; every failure looks the same.
 */
export function signatureVerifies(ctx: EmulatorContext, source: SourceRecord, header: unknown, body: Buffer): boolean {
  const m = typeof header === "string" ? SIGNATURE.exec(header) : null;
  if (!m) return false;
  const given = Buffer.from(m[1]!, "hex");
  const secrets = [source.secret];
  if (source.previous_secret && source.previous_secret_expires_at && ctx.now().getTime() < Date.parse(source.previous_secret_expires_at)) {
    secrets.push(source.previous_secret);
  }
  let ok = false;
  for (const secret of secrets) {
    const expected = createHmac("sha256", secret).update(body).digest();
    ok = timingSafeEqual(expected, given) || ok;
  }
  return ok;
}

export function sourceView(ctx: EmulatorContext, s: SourceRecord) {
  const { secret: _s, previous_secret: _p, previous_secret_expires_at: _e, workspace_id: _w, ...fields } = s;
  return { ...fields, ingest_url: `${ctx.baseUrl}/webhooks/v1/ingest/${s.id}` };
}

const str = z.string().max(255).nullable().optional();
/** Settable on create and PATCH; on PATCH null puts the field back to its default. */
const fields = {
  name: str,
  project_id: z.string().nullable().optional(),
  event_type_source: z.enum(EVENT_TYPE_SOURCES).nullable().optional(),
  event_type_key: str,
  event_type_prefix: str,
  default_event_type: str,
  capture_enabled: z.boolean().nullable().optional(),
  broker_identifier: str,
  broker_host: str,
  broker_vhost: str,
  broker_user: str,
  broker_exchange: str,
  broker_topic: str,
  // Range and enum are rules (rules/source.ts), so they are checked in one place.
  broker_port: z.number().int().nullable().optional(),
  broker_queues: z.string().nullable().optional(),
};
const createBody = z.object({ provider: z.enum(SOURCE_PROVIDERS), secret: z.string().max(1024).nullable().optional(), ...fields });
const patchBody = z.object({ ...fields, status: z.enum(["enabled", "disabled"]).nullable().optional() });
const rotateBody = z.object({ secret: z.string().max(1024).nullable().optional() });
const listQuery = offsetPageQuery.extend({ project_id: z.string().optional() });

const DEFAULTS = {
  name: null,
  event_type_source: "provider",
  event_type_key: null,
  event_type_prefix: null,
  default_event_type: null,
  capture_enabled: false,
  broker_identifier: null,
  broker_host: null,
  broker_vhost: null,
  broker_user: null,
  broker_exchange: null,
  broker_topic: null,
  broker_port: null,
  broker_queues: null,
} satisfies Partial<SourceRecord>;
type SettableFields = Pick<SourceRecord, keyof typeof DEFAULTS>;
type Settable = { [K in keyof SettableFields]?: SettableFields[K] | null };

/** The settable fields after applying a body: absent keeps, null resets to the default. */
function applyFields(current: SettableFields, body: Settable): SettableFields {
  const out = dict<unknown>();
  for (const k of Object.keys(DEFAULTS) as (keyof SettableFields)[]) {
    const v = body[k];
    out[k] = v === undefined ? current[k] : (v ?? DEFAULTS[k]);
  }
  return out as SettableFields;
}

/** Below a plan with `broker_sources`, a broker source may only be renamed, disabled, or otherwise left alone. */
function assertBrokerEntitled(ctx: EmulatorContext, principal: Principal, touchesBroker: boolean): void {
  if (touchesBroker && !ctx.plan(principal.workspace).webhooks.broker_sources) throw notEntitled("broker_sources");
}

/** 422 `broker_not_allowed` for a broker the API will not connect to. */
function assertBrokerHostAllowed(s: { provider: string; broker_host: string | null; broker_port: number | null }): void {
  if (s.provider !== "broker" || !s.broker_host || !brokerHostNotAllowed(s.broker_host)) return;
  const host = brokerHostPort(s.broker_host, s.broker_port);
  throw new ApiError(422, "broker_not_allowed", `The API will not connect to the broker at ${host}: it is not a public address.`, { host });
}

type Params = { Params: { id: string } };

export function registerSources(app: FastifyInstance, ctx: EmulatorContext): void {
  app.get("/v1/sources", async (req) => {
    const principal = auth(ctx, req, "read");
    const q = parse(listQuery, req.query, "query");
    if (q.project_id) assertProjectVisible(ctx, principal, q.project_id);
    const items = Object.values(sourcesState(ctx)).filter((s) => visible(principal, s) && (!q.project_id || s.project_id === q.project_id));
    return offsetPage(items.map((s) => sourceView(ctx, s)), q);
  });

  app.post("/v1/sources", async (req, reply) => {
    const principal = auth(ctx, req, "admin");
    const body = parse(createBody, req.body ?? {});
    assertBrokerEntitled(ctx, principal, body.provider === "broker");
    const settable = applyFields(DEFAULTS, body);
    throwViolations(sourceViolations({ ...settable, provider: body.provider, secret: body.secret }, { creating: true }));
    assertBrokerHostAllowed({ ...settable, provider: body.provider });
    const projectId = resolveProject(ctx, principal, body.project_id);
    const generated = body.secret ? undefined : newSourceSecret();
    const now = ctx.nowIso();
    const source: SourceRecord = {
      id: newId("src"),
      workspace_id: principal.workspace.id,
      project_id: projectId,
      provider: body.provider,
      ...settable,
      status: "enabled",
      secret: body.secret || generated!,
      previous_secret: null,
      previous_secret_expires_at: null,
      created_at: now,
      updated_at: now,
    };
    sourcesState(ctx)[source.id] = source;
    ctx.store.changed();
    return reply.status(201).send({ ...sourceView(ctx, source), ...(generated ? { secret: generated } : {}) });
  });

  app.get<Params>("/v1/sources/:id", async (req) => sourceView(ctx, sourceOr404(ctx, auth(ctx, req, "read"), req.params.id)));

  app.patch<Params>("/v1/sources/:id", async (req) => {
    const principal = auth(ctx, req, "admin");
    const body = parse(patchBody, req.body ?? {});
    const source = sourceOr404(ctx, principal, req.params.id);
    if (source.provider === "broker") {
      // Enabling, or setting any broker_* field (even to its current value), needs the feature.
      assertBrokerEntitled(ctx, principal, body.status === "enabled" || BROKER_FIELDS.some((f) => body[f] !== undefined));
    }
    const settable = applyFields(source, body);
    throwViolations(sourceViolations({ ...settable, provider: source.provider }, { creating: false }));
    if (body.broker_host !== undefined || body.broker_port !== undefined) assertBrokerHostAllowed({ ...settable, provider: source.provider });
    const projectId = body.project_id !== undefined ? resolveProject(ctx, principal, body.project_id) : source.project_id;
    Object.assign(source, settable, { project_id: projectId, status: body.status ?? source.status, updated_at: ctx.nowIso() });
    ctx.store.changed();
    return sourceView(ctx, source);
  });

  app.delete<Params>("/v1/sources/:id", async (req, reply) => {
    const source = sourceOr404(ctx, auth(ctx, req, "admin"), req.params.id);
    delete sourcesState(ctx)[source.id];
    deleteCapturesOfSource(ctx, source.id);
    ctx.store.changed();
    return reply.status(204).send();
  });

  app.post<Params>("/v1/sources/:id/rotate-secret", async (req) => {
    const principal = auth(ctx, req, "admin");
    // The body is required (spec); `{}` is enough for a generic source.
    const body = parse(rotateBody, req.body);
    const source = sourceOr404(ctx, principal, req.params.id);
    if (!body.secret && rotateNeedsSecret(source.provider)) {
      const what = source.provider === "broker" ? "the broker's new password" : "the provider's new signing secret";
      throw new ApiError(422, "provider_secret_required", `Rotating a ${source.provider} source needs ${what} in "secret".`, { provider: source.provider });
    }
    const generated = body.secret ? undefined : newSourceSecret();
    source.previous_secret = source.secret;
    source.previous_secret_expires_at = new Date(ctx.now().getTime() + SECRET_OVERLAP_MS).toISOString();
    source.secret = body.secret || generated!;
    source.updated_at = ctx.nowIso();
    ctx.store.changed();
    return { ...sourceView(ctx, source), ...(generated ? { secret: generated } : {}) };
  });
}

/**
 * Control-plane routes under `/_emulator/webhooks` (emulator/docs/webhooks-catalog-sources.md):
 *   POST /sources/:id/sign    {body | body_base64} -> {header, signature} with the current secret
 *   GET  /sources/:id/secret  -> {secret, previous_secret, previous_secret_expires_at}
 */
export function registerSourcesControl(app: FastifyInstance, ctx: EmulatorContext): void {
  const signBody = z.object({ body: z.string().optional(), body_base64: z.string().optional() });
  const byId = (id: string) => {
    const s = sourcesState(ctx)[id];
    if (!s) throw notFound("source", id);
    return s;
  };
  app.post<Params>("/sources/:id/sign", async (req) => {
    const source = byId(req.params.id);
    const b = parse(signBody, req.body ?? {});
    const raw = b.body_base64 !== undefined ? Buffer.from(b.body_base64, "base64") : Buffer.from(b.body ?? "", "utf8");
    return { header: "X-Webhook-Signature", signature: signIngest(source.secret, raw) };
  });
  app.get<Params>("/sources/:id/secret", async (req) => {
    const s = byId(req.params.id);
    return { secret: s.secret, previous_secret: s.previous_secret, previous_secret_expires_at: s.previous_secret_expires_at };
  });
}
