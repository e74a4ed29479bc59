/**
 * The fault soak, sized for CI (`npm run soak` runs 200): 48 mixed resources, 20% of
 * API requests faulted on a seeded schedule (429 + Retry-After, 500, 503, drops before
 * and after acting, latency). The up converges in one run, the emulator holds exactly
 * the declared objects (no duplicate, no orphan), destroy leaves nothing. Counts come
 * from the emulator's listings, never from timing.
 */
import { expect, it } from "vitest";
import { formatSoak, runSoak } from "./scenario";

// A lost create is looked for over a short reconcile window (svc:reconcileWindowSeconds): the random faults'
// latest action lands 200 ms after its connection dropped (emulator/core/faults.ts), well inside 3 s, so
// waiting out the default 15 s proves nothing more.
process.env.SVC_RECONCILE_WINDOW_SECONDS = "3";

it("an up of 48 resources under 20% faults converges in one run; exactly the declared objects; destroy leaves nothing", async () => {
  const opts = { resources: 48, rate: 0.2, seed: 20261121, parallel: 16 };
  const report = await runSoak(opts);
  const text = formatSoak(opts, report);
  console.log(text);
  expect(report.up.errors, text).toEqual([]);
  for (const [kind, h] of Object.entries(report.holdings)) {
    expect({ kind, held: h.held, extra: h.extra, missing: h.missing }, text).toEqual({ kind, held: h.declared, extra: [], missing: [] });
  }
  expect(report.destroy.errors, text).toEqual([]);
  expect(Object.values(report.leftAfterDestroy).flat(), text).toEqual([]);
  // Faults were really injected, and every unknown outcome was reconciled (adopted or sent again), none left ambiguous.
  expect(Object.values(report.injected).reduce((a, b) => a + b, 0)).toBeGreaterThan(5);
  expect(report.stats.reconciled.filter((r) => r.result === "ambiguous")).toEqual([]);
  expect(report.converged).toBe(true);
}, 300_000);
