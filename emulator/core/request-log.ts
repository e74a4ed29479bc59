/**
 * Every API request the emulator answered (control-plane calls excluded), so tests
 * count the calls an operation made. Only method, path, query, status and timing:
 * never headers or bodies, so no credential or secret can land here.
 *
 * A ring of fixed size: the newest `capacity` entries are kept and adding one is O(1)
 * however long the emulator runs (a shared CI emulator answers millions of requests).
 * Sequence numbers keep counting, so `since` works across the wrap; `firstSeq` says
 * which is the oldest still held.
 */
import type { FastifyRequest } from "fastify";
import type { LoggedRequest } from "./logged-request";

export type { LoggedRequest };

/** Entries kept by default (about 15 MB): `requestLogSize` / `--request-log-size` changes it. */
export const DEFAULT_REQUEST_LOG_SIZE = 50_000;

export class RequestLog {
  private ring: (LoggedRequest | undefined)[];
  /** Seq of the last entry added (entries hold seqs lastSeq - size + 1 .. lastSeq). */
  private seq = 0;
  /** How many entries the ring holds now. */
  private size = 0;

  constructor(readonly capacity = DEFAULT_REQUEST_LOG_SIZE) {
    if (!Number.isInteger(capacity) || capacity < 1) throw new Error(`request log size must be a positive integer, got ${capacity}`);
    this.ring = new Array(capacity);
  }

  add(req: FastifyRequest, status: number, durationMs: number): void {
    const q = req.url.indexOf("?");
    const seq = ++this.seq;
    this.ring[seq % this.capacity] = {
      seq,
      method: req.method,
      path: q < 0 ? req.url : req.url.slice(0, q),
      query: q < 0 ? "" : req.url.slice(q + 1),
      status,
      duration_ms: Math.round(durationMs * 1000) / 1000,
      time: new Date().toISOString(),
      request_id: req.requestId,
      user_agent: String(req.headers["user-agent"] ?? ""),
      in_flight: req.inFlight ?? 1,
    };
    if (this.size < this.capacity) this.size++;
  }

  /** Entries after `since` (a seq), oldest first, optionally of one method or under a path prefix. */
  list(filter: { since?: number; method?: string; pathPrefix?: string } = {}): LoggedRequest[] {
    const method = filter.method?.toUpperCase();
    const out: LoggedRequest[] = [];
    for (let seq = Math.max(this.firstSeq, (filter.since ?? 0) + 1); seq <= this.seq; seq++) {
      const e = this.ring[seq % this.capacity]!;
      if ((method === undefined || e.method === method) && (filter.pathPrefix === undefined || e.path.startsWith(filter.pathPrefix))) out.push(e);
    }
    return out;
  }

  get lastSeq(): number {
    return this.seq;
  }

  /** Seq of the oldest entry held (lastSeq + 1 when empty). */
  get firstSeq(): number {
    return this.seq - this.size + 1;
  }

  clear(): void {
    this.ring = new Array(this.capacity);
    this.size = 0;
  }
}
