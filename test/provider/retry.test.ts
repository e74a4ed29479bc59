import { describe, expect, it } from "vitest";
import { decideRetry, retryAfterMs, DEFAULT_RETRY_POLICY, type AttemptOutcome } from "../../provider/client/retry";

const resp = (status: number, retryAfterHeader?: string, retryAfterDetail?: unknown): AttemptOutcome => ({ kind: "response", status, retryAfterHeader, retryAfterDetail });
const policy = { ...DEFAULT_RETRY_POLICY, budgetMs: 10_000 };

describe("decideRetry", () => {
  it.each([
    { name: "429 with Retry-After", outcome: resp(429, "2"), safe: false, retry: true, delay: 2000 },
    { name: "429 with details.retry_after only", outcome: resp(429, undefined, 3), safe: false, retry: true, delay: 3000 },
    { name: "429 with an EMPTY Retry-After (infra quota): never", outcome: resp(429, ""), safe: true, retry: false },
    { name: "429 asking beyond the budget", outcome: resp(429, "60"), safe: true, retry: false },
    { name: "500 on a GET", outcome: resp(500), safe: true, retry: true },
    { name: "503 on a create", outcome: resp(503), safe: false, retry: false },
    { name: "409: never", outcome: resp(409), safe: true, retry: false },
    { name: "422: never", outcome: resp(422), safe: true, retry: false },
    { name: "dropped after sending, GET", outcome: { kind: "network", maybeSent: true } as AttemptOutcome, safe: true, retry: true },
    { name: "dropped after sending, create", outcome: { kind: "network", maybeSent: true } as AttemptOutcome, safe: false, retry: false },
    { name: "never sent (refused), create", outcome: { kind: "network", maybeSent: false } as AttemptOutcome, safe: false, retry: true },
  ])("$name", ({ outcome, safe, retry, delay }) => {
    const d = decideRetry(outcome, { retriesSoFar: 0, elapsedMs: 0, safeToRepeat: safe, policy, random: () => 1 });
    expect(d.retry).toBe(retry);
    if (delay !== undefined && d.retry) expect(d.delayMs).toBe(delay);
  });

  it("backs off exponentially with jitter, within the cap", () => {
    const delays = [0, 1, 2, 3, 4].map((n) => {
      const d = decideRetry(resp(500), { retriesSoFar: n, elapsedMs: 0, safeToRepeat: true, policy: { ...policy, maxRetries: 10 }, random: () => 1 });
      return d.retry ? d.delayMs : -1;
    });
    expect(delays).toEqual([250, 500, 1000, 2000, 4000]);
    const low = decideRetry(resp(500), { retriesSoFar: 0, elapsedMs: 0, safeToRepeat: true, policy, random: () => 0 });
    expect(low.retry && low.delayMs).toBe(125);
  });

  it("stops after maxRetries", () => {
    expect(decideRetry(resp(500), { retriesSoFar: policy.maxRetries, elapsedMs: 0, safeToRepeat: true, policy }).retry).toBe(false);
  });

  it("parses Retry-After seconds and dates", () => {
    expect(retryAfterMs("1.5", undefined)).toBe(1500);
    expect(retryAfterMs(undefined, 2)).toBe(2000);
    expect(retryAfterMs(new Date(Date.now() + 5000).toUTCString(), undefined)).toBeGreaterThan(3000);
    expect(retryAfterMs("", 4)).toBe(4000);
  });
});
