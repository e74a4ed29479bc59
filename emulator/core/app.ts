/**
 * The HTTP server: Fastify with the cross-cutting behaviour every product shares.
 *
 * - `X-Request-ID` echoed when valid (1–128 of letters, digits, `.`, `_`, `-`), else generated.
 * - One error handler rendering the shared error shape; 404 with no details for an
 *   unknown path, 405 for a known path with another method.
 * - Bodies read as raw bytes (ingest signs them), parsed as JSON here: invalid JSON is
 *   422 `json_invalid`, and so is a body that is not UTF-8 (JSON text is UTF-8);
 *   on Inboxes a body that is not UTF-8 is 400 `bad_request` instead (spec 1);
 *   over the limit is 413 with `details.limit`.
 * - The request log and fault injection of the control plane.
 */
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from "fastify";
import FindMyWay from "find-my-way";
import { ApiError, errorBody, methodNotAllowed, payloadTooLarge, unknownPath, badRequest, validationError } from "./errors";
import type { EmulatorContext } from "./context";
import { drainBody } from "./drain";
import { answerAfterActing, FaultInjector } from "./faults";
import { MAX_JSON_DEPTH, nestsDeeperThan, tooDeepEntry } from "./json-depth";
import { TrafficLimits } from "./limits";
import { RequestLog } from "./request-log";
import { clientError, MAX_PARAM_LENGTH, requestIdFor, routerError } from "./router-errors";

declare module "fastify" {
  interface FastifyRequest {
    requestId: string;
    /** The exact bytes received (ingest verifies signatures over them). */
    rawBody?: Buffer;
    /** Set by a `drop_after_response` fault: act, then drop the connection instead of answering. */
    dropAfterHandling?: boolean;
    /** Set by a `drop_then_act_ms` fault: drop the connection once the body is read, act this much later. */
    actAfterDropMs?: number;
    /** Set by a `drop_then_act_ms` fault: told once the body is read and the connection dropped, or the body refused. */
    bodyRead?: () => void;
    /** Set by a `status_after_acting` fault: act, then answer this status instead. */
    statusAfterActing?: number;
  }
}

export interface ProductModule {
  /** Path prefix of the product, e.g. `/webhooks`. */
  prefix: string;
  /** The product's API routes, registered under `prefix`. */
  routes(app: FastifyInstance, ctx: EmulatorContext): void;
  /** Optional control-plane routes, registered under `/_emulator` + prefix. */
  control?(app: FastifyInstance, ctx: EmulatorContext): void;
}

const CONTROL_PREFIX = "/_emulator";
/** Paths whose body is the raw provider request, not an API JSON body. */
const RAW_BODY_PATHS = /^\/webhooks\/v1\/ingest\//;
// ignoreBOM: a BOM stays in the text (and JSON.parse refuses it), as before.
const utf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

export interface BuiltApp {
  app: FastifyInstance;
  log: RequestLog;
  faults: FaultInjector;
  /** Every route registered (method and URL pattern), for tests that sweep the whole API. */
  routes: { method: string; url: string }[];
  limits: TrafficLimits;
}

export function buildApp(ctx: EmulatorContext, products: ProductModule[], control: (app: FastifyInstance, built: BuiltApp) => void): BuiltApp {
  const app = Fastify({
    bodyLimit: ctx.bodyLimit,
    logger: false,
    forceCloseConnections: true,
    return503OnClosing: false,
    routerOptions: { maxParamLength: MAX_PARAM_LENGTH },
    frameworkErrors: routerError,
    clientErrorHandler: clientError,
  });
  const log = new RequestLog(ctx.options.requestLogSize);
  const faults = new FaultInjector();
  const limits = new TrafficLimits(ctx, { rate_limit: ctx.options.rateLimit ?? null, burst: ctx.options.burst ?? null, latency_ms: ctx.options.latencyMs ?? 0, jitter_ms: ctx.options.jitterMs ?? 0 });
  const built: BuiltApp = { app, log, faults, routes: [], limits };

  // Every route pattern, whatever its method: tells 405 from 404.
  const knownPaths = FindMyWay({ ignoreTrailingSlash: false, maxParamLength: MAX_PARAM_LENGTH });
  app.addHook("onRoute", (route) => {
    for (const method of [route.method].flat()) if (method !== "HEAD") built.routes.push({ method, url: route.url });
    if (!knownPaths.hasRoute("GET", route.url)) knownPaths.on("GET", route.url, () => undefined);
  });

  app.decorateRequest("requestId", "");
  app.addHook("onRequest", async (req, reply) => {
    req.requestId = requestIdFor(req.headers["x-request-id"]);
    void reply.header("x-request-id", req.requestId);
    // The service's own clock (POST /_emulator/clock moves it), as a real server dates its answers.
    void reply.header("date", ctx.now().toUTCString());
    if (req.url.startsWith(CONTROL_PREFIX)) return;
    await limits.apply(req, reply.raw);
    await faults.apply(req, reply);
  });

  app.addHook("preHandler", async (req) => {
    if (!req.actAfterDropMs) return;
    req.raw.socket?.destroy();
    req.bodyRead?.();
    await new Promise((r) => setTimeout(r, req.actAfterDropMs));
  });

  app.addHook("onSend", async (req, reply, payload) => {
    // A body refused (422, 413, 415) never reaches the preHandler that drops the connection: it ends here. Once (the
    // preHandler's drop closed the socket already), and not for a client gone before its body was sent (its socket
    // closed: it never made the request).
    if (!req.raw.socket?.destroyed) req.bodyRead?.();
    if (req.statusAfterActing) return answerAfterActing(req, reply);
    if (req.dropAfterHandling) {
      // The server acted; log what it would have answered, then lose the answer.
      log.add(req, reply.statusCode, reply.elapsedTime);
      req.raw.socket?.destroy();
    }
    return payload;
  });

  app.addHook("onResponse", async (req, reply) => {
    if (req.url.startsWith(CONTROL_PREFIX) || req.dropAfterHandling) return;
    log.add(req, reply.statusCode, reply.elapsedTime);
  });

  app.removeAllContentTypeParsers();
  app.addContentTypeParser("*", { parseAs: "buffer" }, (req: FastifyRequest, body: Buffer, done) => {
    req.rawBody = body;
    if (RAW_BODY_PATHS.test(req.url) || body.length === 0) return done(null, undefined);
    // JSON text is UTF-8 (RFC 8259): bytes that are not are never read as U+FFFD.
    let text: string;
    try {
      text = utf8.decode(body);
    } catch {
      if (req.url.startsWith("/inboxes/")) return done(badRequest("The body is not valid UTF-8."), undefined);
      return done(validationError([{ loc: ["body", 0], type: "json_invalid", msg: "JSON decode error: the body is not valid UTF-8" }]), undefined);
    }
    if (nestsDeeperThan(body)) return done(validationError([tooDeepEntry()], `The body nests deeper than ${MAX_JSON_DEPTH} levels.`), undefined);
    try {
      done(null, JSON.parse(text));
    } catch (e) {
      done(validationError([{ loc: ["body", 0], type: "json_invalid", msg: `JSON decode error: ${(e as Error).message}` }]), undefined);
    }
  });

  app.setErrorHandler(async (err: Error & { code?: string; statusCode?: number }, req, reply) => {
    // Fastify refuses an oversized body before reading it and asks to close the connection;
    // read the rest first so the 413 reaches the client instead of a reset.
    if (err.code === "FST_ERR_CTP_BODY_TOO_LARGE" && (await drainBody(req.raw))) reply.removeHeader("connection");
    sendError(reply, req, toApiError(err, req, ctx.bodyLimit));
    return reply;
  });

  app.setNotFoundHandler((req, reply) => {
    const path = req.url.split("?")[0]!;
    sendError(reply, req, knownPaths.find("GET", path) ? methodNotAllowed(req.method) : unknownPath());
  });

  for (const product of products) {
    void app.register(async (scoped) => product.routes(scoped, ctx), { prefix: product.prefix });
    if (product.control) void app.register(async (scoped) => product.control!(scoped, ctx), { prefix: CONTROL_PREFIX + product.prefix });
  }
  void app.register(async (scoped) => control(scoped, built), { prefix: CONTROL_PREFIX });
  return built;
}

function toApiError(err: Error & { code?: string; statusCode?: number }, req: FastifyRequest, bodyLimit: number): ApiError {
  if (err instanceof ApiError) return err;
  if (err.code === "FST_ERR_CTP_BODY_TOO_LARGE") {
    const length = Number(req.headers["content-length"]);
    // Inboxes also reports the measured size.
    return payloadTooLarge(bodyLimit, req.url.startsWith("/inboxes/") && Number.isFinite(length) ? length : undefined);
  }
  if (err.statusCode && err.statusCode >= 400 && err.statusCode < 500) return badRequest(err.message);
  return new ApiError(500, "internal_error", "Internal error; idempotent requests are safe to retry.");
}

export function sendError(reply: FastifyReply, req: FastifyRequest, err: ApiError): void {
  void reply.status(err.status).headers(err.headers).send(errorBody(err, req.requestId));
}
