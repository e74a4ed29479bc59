/**
 * How the emulator stands in for a remote, rate-limited service: the request-rate
 * limit per credential (rate-limit.ts) and added latency (latency.ts), both off by
 * default, set at start (`--rate-limit R --burst B --latency MS --jitter MS`) or at run
 * time (`PUT /_emulator/limits`), and the concurrency the service observes (requests
 * in flight, the highest since the last reset), so tests can check a client's
 * ceilings. The control plane (`/_emulator/*`) is never delayed, limited or counted.
 */
import type { FastifyInstance, FastifyRequest } from "fastify";
import { z } from "zod";
import type { EmulatorContext } from "./context";
import { waitLatency, type Latency } from "./latency";
import { RateLimiter, type RateLimit } from "./rate-limit";
import { parse } from "./validation";

declare module "fastify" {
  interface FastifyRequest {
    /** API requests in progress when this one arrived, itself included (in the request log). */
    inFlight?: number;
  }
}

export const limitsSpec = z.object({
  /** Requests per second per credential; null or absent: no limit. */
  rate_limit: z.number().positive().max(1_000_000).nullable().default(null),
  /** Bucket size (requests at once); default the rate, at least 1. */
  burst: z.number().int().min(1).max(1_000_000).nullable().default(null),
  latency_ms: z.number().int().min(0).max(60_000).default(0),
  jitter_ms: z.number().int().min(0).max(60_000).default(0),
});
export type LimitsSpec = z.input<typeof limitsSpec>;

export class TrafficLimits {
  private latency: Latency;
  private readonly limiter: RateLimiter;
  private inFlight = 0;
  private maxInFlight = 0;

  constructor(
    ctx: EmulatorContext,
    /** What `POST /_emulator/reset` goes back to: the start options. */
    private readonly initial: LimitsSpec = {},
  ) {
    const spec = limitsSpec.parse(initial);
    this.latency = { latency_ms: spec.latency_ms, jitter_ms: spec.jitter_ms };
    this.limiter = new RateLimiter(() => ctx.now().getTime(), rateLimitOf(spec));
  }

  /** For every API request (not the control plane): count it, delay it, then take a token or throw the 429. */
  async apply(req: FastifyRequest, raw: { once(event: "close", listener: () => void): unknown }): Promise<void> {
    req.inFlight = ++this.inFlight;
    if (this.inFlight > this.maxInFlight) this.maxInFlight = this.inFlight;
    // 'close' comes once the answer is sent or the connection is gone (a dropped request too).
    raw.once("close", () => this.inFlight--);
    await waitLatency(this.latency);
    const refusal = this.limiter.take(req);
    if (refusal) throw refusal;
  }

  set(input: unknown): void {
    const spec = parse(limitsSpec, input ?? {});
    this.latency = { latency_ms: spec.latency_ms, jitter_ms: spec.jitter_ms };
    this.limiter.set(rateLimitOf(spec));
    this.resetCounters();
  }

  reset(): void {
    this.set(this.initial);
  }

  resetCounters(): void {
    this.limiter.resetCounters();
    this.maxInFlight = this.inFlight;
  }

  describe() {
    const limit = this.limiter.limit;
    return {
      rate_limit: limit?.rate ?? null,
      burst: limit?.burst ?? null,
      ...this.latency,
      in_flight: this.inFlight,
      max_in_flight: this.maxInFlight,
      rate_limited: this.limiter.refused,
    };
  }
}

function rateLimitOf(spec: z.output<typeof limitsSpec>): RateLimit | null {
  if (spec.rate_limit === null) return null;
  return { rate: spec.rate_limit, burst: spec.burst ?? Math.max(1, Math.ceil(spec.rate_limit)) };
}

/** `GET /_emulator/limits` (settings and observed concurrency), `PUT` (replace the settings, reset the counters), `DELETE /_emulator/limits/counters`. */
export function limitsRoutes(app: FastifyInstance, limits: TrafficLimits): void {
  app.get("/limits", async () => limits.describe());
  app.put("/limits", async (req) => {
    limits.set(req.body);
    return limits.describe();
  });
  app.delete("/limits/counters", async (_req, reply) => {
    limits.resetCounters();
    return reply.status(204).send();
  });
}
