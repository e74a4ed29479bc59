/**
 * Added latency, standing in for a service 20-100 ms away: every API answer waits
 * `latency_ms` plus a uniform random share of `jitter_ms` before it is handled.
 * Real timers (not the emulator's clock): it is network time, not service time.
 */
export interface Latency {
  latency_ms: number;
  jitter_ms: number;
}

export function latencyDelayMs(l: Latency, random: () => number = Math.random): number {
  return l.latency_ms + (l.jitter_ms > 0 ? Math.floor(random() * (l.jitter_ms + 1)) : 0);
}

export async function waitLatency(l: Latency): Promise<void> {
  const ms = latencyDelayMs(l);
  if (ms > 0) await new Promise((r) => setTimeout(r, ms));
}
