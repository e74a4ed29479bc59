/**
 * Counters of the client in this process: what the retry policy did and every
 * request whose outcome was unknown, so a soak or a benchmark can report them
 * (`clientStats()`), and what the engine's reconciliation made of unknown creates.
 * Plugin-process state, never serialized; nothing here holds a body or a header.
 */

export interface UnknownOutcome {
  method: string;
  path: string;
  requestId: string;
  /** What happened: `no answer: UND_ERR_SOCKET`, `the service answered 503`. */
  what: string;
}

export interface ReconcileOutcome {
  kind: string;
  path: string;
  /**
   * adopted: the object carrying the create's owner mark was found and taken; recreated: none existed, sent again;
   * ambiguous: unmarked candidates matched (failed, naming them; the state keeps the question).
   */
  result: "adopted" | "recreated" | "ambiguous";
  id?: string;
  candidates?: string[];
}

export interface ClientStats {
  /** Logical requests (a request and its retries count once). */
  requests: number;
  /** HTTP attempts, retries included. */
  attempts: number;
  retries: number;
  /** Retries by cause: `429`, `500`, `503`, `network`. */
  retriesByCause: Record<string, number>;
  /** Total time spent waiting before retries (backoff and Retry-After), ms. */
  waitedMs: number;
  /** Requests that failed for good, by cause. */
  failures: Record<string, number>;
  unknownOutcomes: UnknownOutcome[];
  reconciled: ReconcileOutcome[];
}

const fresh = (): ClientStats => ({ requests: 0, attempts: 0, retries: 0, retriesByCause: {}, waitedMs: 0, failures: {}, unknownOutcomes: [], reconciled: [] });

let stats = fresh();

/** The counters so far (a copy). */
export function clientStats(): ClientStats {
  return structuredClone(stats);
}

/** Start counting from zero. */
export function resetClientStats(): void {
  stats = fresh();
}

/** For the transport and the engine only. */
export const record = {
  request(): void {
    stats.requests++;
  },
  attempt(): void {
    stats.attempts++;
  },
  retry(cause: string, delayMs: number): void {
    stats.retries++;
    stats.retriesByCause[cause] = (stats.retriesByCause[cause] ?? 0) + 1;
    stats.waitedMs += delayMs;
  },
  failure(cause: string): void {
    stats.failures[cause] = (stats.failures[cause] ?? 0) + 1;
  },
  unknownOutcome(o: UnknownOutcome): void {
    stats.unknownOutcomes.push(o);
  },
  reconciled(o: ReconcileOutcome): void {
    stats.reconciled.push(o);
  },
};
