/**
 * Fault injection for the next N requests matching a method and a path glob:
 * an error status (429 with Retry-After, 500, 503, or an edge 502/504 with no
 * body), a dropped connection before or after the server acted, or added latency.
 */
import type { FastifyReply, FastifyRequest } from "fastify";
import picomatch from "picomatch";
import { z } from "zod";
import { ApiError, rateLimited } from "./errors";

export const faultSpec = z.object({
  /** HTTP method, or `*` for any. */
  method: z.string().default("*"),
  /** Glob over the request path without query, e.g. `/webhooks/v1/endpoints/**`. */
  path: z.string(),
  /** How many matching requests the fault applies to. */
  count: z.number().int().min(1).default(1),
  /** Answer with this status instead of handling the request. */
  status: z.number().int().min(400).max(599).optional(),
  /** Seconds, for 429 (header `Retry-After` and `details.retry_after`). */
  retry_after: z.number().int().min(0).optional(),
  /** Destroy the connection without answering, before the server acts. */
  drop: z.boolean().optional(),
  /** Let the server act, then destroy the connection instead of answering. */
  drop_after_response: z.boolean().optional(),
  /** Delay before handling, in milliseconds. */
  latency_ms: z.number().int().min(0).max(600_000).optional(),
});
export type FaultSpec = z.output<typeof faultSpec>;

interface ActiveFault extends FaultSpec {
  id: number;
  remaining: number;
  matches: (path: string) => boolean;
}

const STATUS_CODES: Record<number, string> = { 429: "rate_limited", 500: "internal_error", 503: "unavailable" };

export class FaultInjector {
  private faults: ActiveFault[] = [];
  private nextId = 1;

  add(spec: FaultSpec): number {
    const id = this.nextId++;
    this.faults.push({ ...spec, id, remaining: spec.count, matches: picomatch(spec.path, { dot: true }) });
    return id;
  }

  list() {
    return this.faults.map(({ matches: _m, ...f }) => f);
  }

  clear(): void {
    this.faults = [];
  }

  /** Apply the first matching fault, if any. Throws an ApiError or hijacks the reply. */
  async apply(req: FastifyRequest, reply: FastifyReply): Promise<void> {
    const path = req.url.split("?")[0]!;
    const fault = this.faults.find((f) => f.remaining > 0 && (f.method === "*" || f.method.toUpperCase() === req.method) && f.matches(path));
    if (!fault) return;
    fault.remaining--;
    if (fault.remaining === 0) this.faults = this.faults.filter((f) => f !== fault);

    if (fault.latency_ms) await new Promise((r) => setTimeout(r, fault.latency_ms));
    if (fault.drop) {
      reply.hijack();
      req.raw.socket.destroy();
      return;
    }
    if (fault.drop_after_response) req.dropAfterHandling = true;
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
