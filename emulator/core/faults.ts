/**
 * Fault injection for the next N requests matching a method and a path glob:
 * an error status (429 with Retry-After, 500, 503, or an edge 502/504 with no
 * body), a dropped connection before or after the server acted (or while it is still
 * acting: `drop_then_act_ms`), or added latency.
 *
 * Random mode (`rate`): each matching request gets a fault with probability `rate`,
 * drawn from a PRNG seeded with `seed`, the fault picked from `choices` (default: a
 * 429 with Retry-After 1, a 500, a 503, a drop, a drop after acting, a drop with the
 * action 200 ms later, 50 ms latency).
 * `count` then caps the faults injected (default: unlimited). The same seed gives the
 * same sequence of draws, so a soak's fault schedule is reproducible for requests
 * arriving in the same order. `GET /_emulator/faults` shows how many of each were injected.
 */
import type { FastifyReply, FastifyRequest } from "fastify";
import picomatch from "picomatch";
import { z } from "zod";
import { ApiError, errorBody, rateLimited } from "./errors";

/** What happens to a faulted request. */
const faultAction = z.object({
  /** Answer with this status instead of handling the request. */
  status: z.number().int().min(400).max(599).optional(),
  /** Seconds, for 429 (header `Retry-After` and `details.retry_after`). */
  retry_after: z.number().int().min(0).optional(),
  /** Destroy the connection without answering, before the server acts. */
  drop: z.boolean().optional(),
  /** Let the server act, then destroy the connection instead of answering. */
  drop_after_response: z.boolean().optional(),
  /**
   * Destroy the connection as soon as the request is read, then act this many
   * milliseconds later: the request was still in flight inside the service when the
   * client lost it (a client that looks right away finds nothing yet).
   */
  drop_then_act_ms: z.number().int().min(1).max(60_000).optional(),
  /**
   * Let the server act, then answer with this status (500, 502, 503 or 504) instead of
   * its answer: a create that made its object although the client was told it failed.
   */
  status_after_acting: z.union([z.literal(500), z.literal(502), z.literal(503), z.literal(504)]).optional(),
  /** Delay before handling, in milliseconds. */
  latency_ms: z.number().int().min(0).max(600_000).optional(),
});
type FaultAction = z.output<typeof faultAction>;

export const faultSpec = faultAction.extend({
  /** HTTP method, or `*` for any. */
  method: z.string().default("*"),
  /** Glob over the request path without query, e.g. `/webhooks/v1/endpoints/**`. */
  path: z.string(),
  /** How many matching requests the fault applies to (random mode: how many faults at most; default unlimited). */
  count: z.number().int().min(1).optional(),
  /** Random mode: the probability that a matching request is faulted. */
  rate: z.number().gt(0).max(1).optional(),
  /** Random mode: the PRNG seed (default 1). */
  seed: z.number().int().optional(),
  /** Random mode: the faults to pick from, uniformly. */
  choices: z.array(faultAction).min(1).max(50).optional(),
});
export type FaultSpec = z.input<typeof faultSpec>;

export const DEFAULT_RANDOM_CHOICES: FaultAction[] = [
  { status: 429, retry_after: 1 },
  { status: 500 },
  { status: 503 },
  { drop: true },
  { drop_after_response: true },
  { drop_then_act_ms: 200 },
  { latency_ms: 50 },
];

interface ActiveFault {
  id: number;
  spec: z.output<typeof faultSpec>;
  remaining: number;
  matches: (path: string) => boolean;
  random?: () => number;
  /** Faults injected so far, by action (`429`, `500`, `drop`, `drop_after_response`, `latency`). */
  injected: Record<string, number>;
  /** Requests given a `drop_then_act_ms` whose body is still to be read (their connection still to be dropped). */
  unread: number;
}

/** mulberry32: a small, fast PRNG with a 32-bit seed (uniform in [0, 1)). */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const actionLabel = (a: FaultAction) =>
  a.drop ? "drop" : a.drop_after_response ? "drop_after_response" : a.drop_then_act_ms ? "drop_then_act" : a.status_after_acting ? `${a.status_after_acting}_after_acting` : a.status !== undefined ? String(a.status) : a.latency_ms ? "latency" : "none";

const STATUS_CODES: Record<number, string> = { 429: "rate_limited", 500: "internal_error", 503: "unavailable" };

/**
 * The answer that replaces the server's own after a `status_after_acting` fault (the
 * app's onSend hook calls it): the error body of the status (an edge's 502/504 has none).
 */
export function answerAfterActing(req: FastifyRequest, reply: FastifyReply): string {
  const status = req.statusAfterActing!;
  void reply.code(status);
  if (status === 502 || status === 504) {
    void reply.removeHeader("x-request-id").header("content-type", "text/plain");
    return "Bad gateway";
  }
  void reply.header("content-type", "application/json; charset=utf-8");
  return JSON.stringify(errorBody(new ApiError(status, STATUS_CODES[status] ?? "internal_error", "Injected fault after acting."), req.requestId));
}

export class FaultInjector {
  private faults: ActiveFault[] = [];
  private nextId = 1;

  add(input: FaultSpec): number {
    const spec = faultSpec.parse(input);
    const id = this.nextId++;
    const random = spec.rate !== undefined ? seededRandom(spec.seed ?? 1) : undefined;
    const remaining = spec.count ?? (random ? Number.POSITIVE_INFINITY : 1);
    this.faults.push({ id, spec, remaining, matches: picomatch(spec.path, { dot: true }), random, injected: {}, unread: 0 });
    return id;
  }

  list() {
    return this.faults.map((f) => ({ ...f.spec, id: f.id, remaining: Number.isFinite(f.remaining) ? f.remaining : null, injected: f.injected }));
  }

  clear(): void {
    this.faults = [];
  }

  /**
   * A fault used up leaves the list, so an empty list tells a test every faulted request reached the service; a
   * `drop_then_act_ms` one only once each body is read and the connection dropped, or the body refused (a client
   * killed before its body was sent never made the request). A random fault stays listed (with its counts) until
   * cleared.
   */
  private retire(f: ActiveFault): void {
    if (f.remaining === 0 && f.unread === 0 && !f.random) this.faults = this.faults.filter((x) => x !== f);
  }

  /** Apply the first matching fault, if any. Throws an ApiError or hijacks the reply. */
  async apply(req: FastifyRequest, reply: FastifyReply): Promise<void> {
    const path = req.url.split("?")[0]!;
    let fault: FaultAction | undefined;
    for (const f of this.faults) {
      if (f.remaining <= 0 || !(f.spec.method === "*" || f.spec.method.toUpperCase() === req.method) || !f.matches(path)) continue;
      let action: FaultAction = f.spec;
      if (f.random) {
        // One draw decides, a second picks the fault: the sequence depends only on the seed.
        const hit = f.random() < f.spec.rate!;
        const choices = f.spec.choices ?? DEFAULT_RANDOM_CHOICES;
        const pick = choices[Math.floor(f.random() * choices.length)]!;
        if (!hit) continue;
        action = pick;
      }
      f.remaining--;
      const label = actionLabel(action);
      f.injected[label] = (f.injected[label] ?? 0) + 1;
      if (action.drop_then_act_ms) {
        f.unread++;
        req.bodyRead = () => {
          f.unread--;
          this.retire(f);
        };
      }
      this.retire(f);
      fault = action;
      break;
    }
    if (!fault) return;

    if (fault.latency_ms) await new Promise((r) => setTimeout(r, fault.latency_ms));
    if (fault.drop) {
      reply.hijack();
      req.raw.socket.destroy();
      return;
    }
    if (fault.drop_after_response) req.dropAfterHandling = true;
    if (fault.drop_then_act_ms) {
      // The socket goes once the body is read (preHandler, in app.ts); the handler runs later.
      req.actAfterDropMs = fault.drop_then_act_ms;
      req.dropAfterHandling = true;
    }
    if (fault.status_after_acting) req.statusAfterActing = fault.status_after_acting;
    if (fault.status === undefined) return;
    if (fault.status === 502 || fault.status === 504) {
      // Edge responses carry neither the error body nor X-Request-ID (spec document 1, rule 4).
      reply.hijack();
      reply.raw.writeHead(fault.status, { "content-type": "text/plain" });
      reply.raw.end("Bad gateway");
      return;
    }
    if (fault.status === 429) throw rateLimited(fault.retry_after ?? 1);
    throw new ApiError(fault.status, STATUS_CODES[fault.status] ?? "internal_error", "Injected fault.");
  }
}
