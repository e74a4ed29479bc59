/**
 * `GET /v1/endpoints/{id}/stats`: computed from the endpoint's deliveries.
 *
 * A delivery counts in the window of its last attempt, by its current state:
 * `sent` is delivered, `failed` failed, `dead` dead (queued and sending deliveries
 * have no outcome yet). Latency percentiles are over every attempt in the window
 * (nearest rank). Buckets: `24h` = 24 hourly buckets, `7d` = 7 daily buckets (UTC),
 * oldest first, the last one being the current hour or day.
 */
import type { EmulatorContext } from "../core/context";
import type { EndpointRecord } from "./endpoint-store";
import { findDeliveries } from "./delivery-store";

export const STATS_WINDOWS = ["24h", "7d"] as const;
export type StatsWindow = (typeof STATS_WINDOWS)[number];

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

export function endpointStats(ctx: EmulatorContext, e: EndpointRecord, window: StatsWindow) {
  const now = ctx.now().getTime();
  const [size, count] = window === "24h" ? [HOUR, 24] : [DAY, 7];
  const first = Math.floor(now / size) * size - (count - 1) * size;
  const buckets = Array.from({ length: count }, (_, i) => ({ start: new Date(first + i * size).toISOString(), delivered: 0, failed: 0, dead: 0 }));
  const latencies: number[] = [];
  const totals = { delivered: 0, failed: 0, dead: 0 };

  for (const d of findDeliveries(ctx, (d) => d.endpoint_id === e.id && d.attempts.length > 0)) {
    for (const a of d.attempts) {
      const t = Date.parse(a.attempted_at);
      if (t >= first && t <= now) latencies.push(a.latency_ms);
    }
    const last = Date.parse(d.attempts[d.attempts.length - 1]!.attempted_at);
    if (last < first || last > now) continue;
    const key = d.status === "sent" ? "delivered" : d.status === "failed" ? "failed" : d.status === "dead" ? "dead" : undefined;
    if (!key) continue;
    totals[key]++;
    buckets[Math.floor((last - first) / size)]![key]++;
  }

  const outcomes = totals.delivered + totals.failed + totals.dead;
  latencies.sort((a, b) => a - b);
  return {
    endpoint_id: e.id,
    window,
    success_rate: outcomes === 0 ? null : totals.delivered / outcomes,
    ...totals,
    latency_ms: { p50: percentile(latencies, 50), p95: percentile(latencies, 95) },
    buckets,
  };
}

function percentile(sorted: number[], p: number): number | null {
  if (sorted.length === 0) return null;
  return sorted[Math.max(0, Math.ceil((p / 100) * sorted.length) - 1)]!;
}
