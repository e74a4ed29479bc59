/**
 * One traffic controller per connection (base URL + key): the plugin process serves
 * the whole stack, so every request to one service with one key passes here.
 *
 * - A 429's `Retry-After` pauses every new request on the connection until it has
 *   passed, not only the request that drew it.
 * - Requests in flight follow AIMD, as TCP does: from DEFAULT_WINDOW, +1 per window
 *   of successes (one per round trip) in the connection's first busy second, then +1
 *   per success (doubling each round trip) until the first 429 or 503, then +1 per
 *   window of successes again; halved on a 429 or 503
 *   (once per round: answers to requests sent before the last decrease do not
 *   decrease it again).
 * - A concurrency window alone cannot settle near a rate limit when the service is
 *   close (20 req/s at 20 ms is 0.4 in flight), so a 429 while requests were queuing
 *   also sets a pace in requests/s: what the service let through since the previous
 *   429 (or since the start, pause included), which is its refill rate once its
 *   bucket is empty at both ends. The pace then grows 5% of itself per second until
 *   the next 429 measures again. A pause refills the controller's own bucket, so the
 *   service's refilled burst is used at once when it ends.
 * - `maxConcurrency` and `requestsPerSecond` (config, see provider/config.ts) are
 *   fixed ceilings over both.
 *
 * A wait longer than LOG_WAIT_MS after the service limited the connection is told
 * once per connection (an info line; never a key or a header).
 * Plugin-process state, never serialized.
 */

export interface Ceilings {
  /** Requests in flight at most. */
  maxConcurrency?: number;
  /** Requests started per second at most. */
  requestsPerSecond?: number;
}

/** How an attempt ended, as pacing needs to see it. */
export type PacingOutcome = { kind: "ok" } | { kind: "throttled"; retryAfterMs: number } | { kind: "overloaded" } | { kind: "other" };

/**
 * Requests in flight on a new connection. Everything in flight when a service's burst
 * runs out draws a 429 before the first one comes back, so this is what the first
 * round of refusals costs (bench/results/scale.md: 4 instead of 8 took issue 14's run
 * of 120 writes at 20/s, burst 20, from 7-14 answers of 429 to 6-8).
 */
export const DEFAULT_WINDOW = 4;
/**
 * During the first CAUTIOUS_MS of busy time the window grows by one per round trip (a
 * burst is commonly about a second of the service's rate); a connection that drew no
 * 429 by then doubles it each round trip.
 */
const CAUTIOUS_MS = 1_000;
/** Waits longer than this (after a 429) are reported, once per connection. */
export const LOG_WAIT_MS = 3_000;
/** How fast a learned pace grows back, per second, as a share of itself. */
const PACE_GROWTH_PER_S = 0.05;
/** Fewer successes than this between two 429s say nothing about the service's rate. */
const MIN_SAMPLE = 4;

export interface Slot {
  /** Report how the attempt ended; frees its place. */
  release(outcome: PacingOutcome): void;
}

interface Waiter {
  resolve: (slot: Slot) => void;
  since: number;
}

/** Where the once-per-connection pacing note goes: the plugin's stdout, which the engine shows as an info diagnostic. */
let note: (message: string) => void = (m) => void process.stdout.write(`${m}\n`);

/** Tests and benchmarks: send pacing notes elsewhere. */
export function setPacingNote(sink: (message: string) => void): void {
  note = sink;
}

export class Pacer {
  private window = DEFAULT_WINDOW;
  private slowStart = true;
  private inFlight = 0;
  private readonly queue: Waiter[] = [];
  private pausedUntil = 0;
  /** Requests/s learned from 429s (undefined: none seen while busy). */
  private pace: number | undefined;
  private paceAt = 0;
  /** The controller's own bucket under a pace: burst and tokens. */
  private burst = 1;
  private tokens = 1;
  private tokensAt = 0;
  /** Since the last 429 (or the first request): when, busy time then, and successes since. */
  private epochStart = 0;
  private epochBusyMs = 0;
  /** Time with requests in flight or waiting (idle spells say nothing about the service's rate). */
  private busyTotalMs = 0;
  private busySince: number | undefined;
  private epochSuccesses = 0;
  private firstEpoch = true;
  /** Requests sent before this time do not decrease the window again. */
  private decreasedAt = 0;
  private timer: NodeJS.Timeout | undefined;
  private told = false;

  constructor(
    /** For the note only: the service's host, no path, no credentials. */
    private readonly host: string,
    private ceilings: Ceilings = {},
  ) {}

  setCeilings(ceilings: Ceilings): void {
    this.ceilings = ceilings;
  }

  /** Requests/s the connection is held to now (learned pace or ceiling), if any. */
  get rate(): number | undefined {
    const learned = this.pace === undefined ? undefined : this.currentPace(Date.now());
    const ceiling = this.ceilings.requestsPerSecond;
    if (learned === undefined) return ceiling;
    return ceiling === undefined ? learned : Math.min(learned, ceiling);
  }

  /** Wait for a place; `retry` goes before new requests (it was waiting already). */
  acquire(retry = false): Promise<Slot> {
    this.busySince ??= Date.now();
    return new Promise((resolve) => {
      const waiter = { resolve, since: Date.now() };
      if (retry) this.queue.unshift(waiter);
      else this.queue.push(waiter);
      this.pump();
    });
  }

  private limitOfWindow(): number {
    const max = this.ceilings.maxConcurrency;
    const w = Math.max(1, Math.floor(this.window));
    return max === undefined ? w : Math.min(w, max);
  }

  private currentPace(now: number): number {
    return this.pace! * (1 + (PACE_GROWTH_PER_S * Math.max(0, now - this.paceAt)) / 1000);
  }

  /** Start every waiter that may start now; else wake when one may. */
  private pump(): void {
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
    while (this.queue.length > 0 && this.inFlight < this.limitOfWindow()) {
      const now = Date.now();
      if (now < this.pausedUntil) return this.wakeAt(this.pausedUntil);
      const rate = this.rate;
      if (rate !== undefined) {
        this.tokens = Math.min(this.burst, this.tokens + ((now - this.tokensAt) * rate) / 1000);
        this.tokensAt = now;
        if (this.tokens < 1) return this.wakeAt(now + Math.ceil(((1 - this.tokens) * 1000) / rate));
        this.tokens -= 1;
      }
      const waiter = this.queue.shift()!;
      this.inFlight++;
      this.maybeTell(now - waiter.since);
      waiter.resolve(this.slot(now));
    }
  }

  private busyMs(now: number): number {
    return this.busyTotalMs + (this.busySince === undefined ? 0 : now - this.busySince);
  }

  private wakeAt(time: number): void {
    this.timer = setTimeout(() => this.pump(), Math.max(1, time - Date.now()));
  }

  private slot(sentAt: number): Slot {
    let released = false;
    return {
      release: (outcome) => {
        if (released) return;
        released = true;
        this.inFlight--;
        this.settle(outcome, sentAt);
        this.pump();
        if (this.inFlight === 0 && this.queue.length === 0 && this.busySince !== undefined) {
          this.busyTotalMs += Date.now() - this.busySince;
          this.busySince = undefined;
        }
      },
    };
  }

  private settle(outcome: PacingOutcome, sentAt: number): void {
    const now = Date.now();
    if (outcome.kind === "ok") {
      this.epochSuccesses++;
      // Grow only while the window is what holds requests back.
      if (this.queue.length > 0 || this.inFlight + 1 >= this.limitOfWindow()) this.window += this.slowStart && this.busyMs(now) >= CAUTIOUS_MS ? 1 : 1 / this.window;
      const max = this.ceilings.maxConcurrency;
      if (max !== undefined && this.window > max) this.window = max;
      return;
    }
    if (outcome.kind === "other") return;
    if (sentAt >= this.decreasedAt) {
      this.window = Math.max(1, this.window / 2);
      this.slowStart = false;
      this.decreasedAt = now;
    }
    if (outcome.kind !== "throttled") return;
    this.pausedUntil = Math.max(this.pausedUntil, now + outcome.retryAfterMs);
    // A 429 of a request sent before the last 429 came back says nothing new about the rate.
    if (sentAt < this.epochStart) return;
    this.learnPace(now, outcome.retryAfterMs);
    this.epochStart = now;
    this.epochBusyMs = this.busyMs(now);
    this.epochSuccesses = 0;
    this.firstEpoch = false;
  }

  /**
   * What the service let through since the last 429: from the start, the pause is
   * counted in (the first bucket held a burst); then it is its refill rate.
   */
  private learnPace(now: number, retryAfterMs: number): void {
    const busy = this.queue.length > 0 || this.inFlight > 0;
    const successes = this.epochSuccesses;
    if (!busy || successes < MIN_SAMPLE) return;
    const seconds = (this.busyMs(now) - this.epochBusyMs + (this.firstEpoch ? retryAfterMs : 0)) / 1000;
    const measured = successes / Math.max(seconds, 0.001);
    // Never below half the pace so far in one step (multiplicative decrease).
    this.pace = this.pace === undefined ? measured : Math.max(measured, this.currentPace(now) / 2);
    this.paceAt = now;
    // The first run of successes shows how much the service takes at once.
    // (a little under: requests still in flight may have taken some of the service's refill).
    if (this.firstEpoch) this.burst = Math.max(1, Math.floor(0.9 * Math.min(successes, this.pace)));
    this.tokens = 0;
    this.tokensAt = now;
  }

  private maybeTell(waitedMs: number): void {
    if (this.told || waitedMs < LOG_WAIT_MS || this.pace === undefined) return;
    this.told = true;
    note(`svc ${this.host}: rate limited by the service; pacing to about ${Math.max(1, Math.round(this.rate!))} requests/s`);
  }
}

const pacers = new Map<string, Pacer>();

/** The controller of one connection; the latest ceilings given apply. */
export function pacerFor(baseUrl: string, apiKey: string, ceilings?: Ceilings): Pacer {
  const id = `${baseUrl}\u0000${apiKey}`;
  let pacer = pacers.get(id);
  if (!pacer) pacers.set(id, (pacer = new Pacer(hostOf(baseUrl), ceilings)));
  else if (ceilings) pacer.setCeilings(ceilings);
  return pacer;
}

/** Forget every connection's controller (tests that need a fresh start). */
export function resetPacers(): void {
  pacers.clear();
}

function hostOf(baseUrl: string): string {
  try {
    return new URL(baseUrl).host;
  } catch {
    return "service";
  }
}
