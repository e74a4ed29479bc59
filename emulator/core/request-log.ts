/**
 * Every API request the emulator answered (control-plane calls excluded), so tests
 * count the calls an operation made. Only method, path, query, status and timing:
 * never headers or bodies, so no credential or secret can land here.
 */
import type { FastifyRequest } from "fastify";

export interface LoggedRequest {
  seq: number;
  method: string;
  path: string;
  query: string;
  status: number;
  duration_ms: number;
  time: string;
  request_id: string;
  user_agent: string;
}

/** Bound the log so a long benchmark cannot grow memory without limit. */
const MAX_ENTRIES = 200_000;

export class RequestLog {
  private entries: LoggedRequest[] = [];
  private seq = 0;

  add(req: FastifyRequest, status: number, durationMs: number): void {
    const [path, query = ""] = req.url.split("?", 2) as [string, string?];
    this.entries.push({
      seq: ++this.seq,
      method: req.method,
      path,
      query,
      status,
      duration_ms: Math.round(durationMs * 1000) / 1000,
      time: new Date().toISOString(),
      request_id: req.requestId,
      user_agent: String(req.headers["user-agent"] ?? ""),
    });
    if (this.entries.length > MAX_ENTRIES) this.entries.splice(0, this.entries.length - MAX_ENTRIES);
  }

  /** Entries after `since` (a seq), optionally of one method or under a path prefix. */
  list(filter: { since?: number; method?: string; pathPrefix?: string } = {}): LoggedRequest[] {
    return this.entries.filter(
      (e) =>
        (filter.since === undefined || e.seq > filter.since) &&
        (filter.method === undefined || e.method === filter.method.toUpperCase()) &&
        (filter.pathPrefix === undefined || e.path.startsWith(filter.pathPrefix)),
    );
  }

  get lastSeq(): number {
    return this.seq;
  }

  clear(): void {
    this.entries = [];
  }
}
