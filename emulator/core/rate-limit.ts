/**
 * The request-rate limit of the service (spec document 1: 429 `rate_limited` with
 * `Retry-After` and `details.retry_after`, both whole seconds): one token bucket per
 * credential, of `burst` tokens refilling at `rate` per second, continuously on the
 * emulator's clock (so `POST /_emulator/clock` refills it). Every API request that
 * presents a credential takes one token; an empty bucket answers 429 with the seconds
 * until a token is back (at least 1). Webhooks and Inboxes send no `details.reason`
 * (Inboxes' own per-inbox limit, `inbox_rate`, is separate: emulator/inboxes).
 * Requests without a credential (ingest, request bins) are not limited.
 */
import type { FastifyRequest } from "fastify";
import { rateLimited, type ApiError } from "./errors";

export interface RateLimit {
  /** Requests per second per credential. */
  rate: number;
  /** Bucket size: requests a credential may send at once after a quiet spell. */
  burst: number;
}

interface Bucket {
  tokens: number;
  atMs: number;
}

export class RateLimiter {
  private buckets = new Map<string, Bucket>();
  /** 429s answered since the last reset. */
  refused = 0;

  constructor(
    private readonly now: () => number,
    public limit: RateLimit | null,
  ) {}

  /** A new limit (or none): every bucket starts full again. */
  set(limit: RateLimit | null): void {
    this.limit = limit;
    this.buckets.clear();
  }

  resetCounters(): void {
    this.refused = 0;
    this.buckets.clear();
  }

  /** Take a token for this request's credential; the 429 to answer when there is none. */
  take(req: FastifyRequest): ApiError | undefined {
    const limit = this.limit;
    if (!limit) return undefined;
    const credential = credentialOf(req);
    if (credential === undefined) return undefined;
    const now = this.now();
    const perMs = limit.rate / 1000;
    let b = this.buckets.get(credential);
    if (!b) this.buckets.set(credential, (b = { tokens: limit.burst, atMs: now }));
    b.tokens = Math.min(limit.burst, b.tokens + Math.max(0, now - b.atMs) * perMs);
    b.atMs = now;
    if (b.tokens >= 1) {
      b.tokens -= 1;
      return undefined;
    }
    this.refused++;
    return rateLimited(Math.max(1, Math.ceil((1 - b.tokens) / perMs / 1000)));
  }
}

/** The credential a request presents (bearer, X-API-Key or session cookie), never logged or returned. */
function credentialOf(req: FastifyRequest): string | undefined {
  const auth = req.headers.authorization;
  if (typeof auth === "string" && auth.trim() !== "") return auth.trim();
  const apiKey = req.headers["x-api-key"];
  if (typeof apiKey === "string" && apiKey !== "") return `Bearer ${apiKey}`;
  const cookie = req.headers.cookie;
  return typeof cookie === "string" && cookie.includes("svc_session=") ? cookie : undefined;
}
