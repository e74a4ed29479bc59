/**
 * The fault injector's seeded random mode (`rate`, `seed`, `choices`): the same seed
 * gives the same schedule, the rate is honoured, `count` caps the faults, and the
 * control plane lists what was injected.
 */
import { describe, expect, it } from "vitest";
import { seededRandom } from "../../emulator/core/faults";
import { call, control, useEmulator } from "../support/emulator";

const emu = useEmulator();
const admin = () => emu().keys.webhooks.admin;

async function statuses(n: number): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i++) out.push((await call(emu(), "GET", "/webhooks/v1/endpoints", { key: admin() })).status);
  return out;
}

describe("random fault mode", () => {
  it("the same seed gives the same schedule; another seed another one", async () => {
    const spec = { method: "GET", path: "/webhooks/v1/endpoints", rate: 0.3, seed: 42, choices: [{ status: 500 }, { status: 503 }, { status: 429, retry_after: 0 }] };
    await control(emu(), "POST", "/faults", spec);
    const first = await statuses(60);
    await control(emu(), "DELETE", "/faults");
    await control(emu(), "POST", "/faults", spec);
    const second = await statuses(60);
    await control(emu(), "DELETE", "/faults");
    await control(emu(), "POST", "/faults", { ...spec, seed: 43 });
    const other = await statuses(60);
    await control(emu(), "DELETE", "/faults");
    expect(second).toEqual(first);
    expect(other).not.toEqual(first);
    expect(new Set(first)).toEqual(new Set([200, 500, 503, 429]));
  });

  it("honours the rate over many requests and lists what it injected", async () => {
    await control(emu(), "POST", "/faults", { method: "GET", path: "/webhooks/v1/endpoints", rate: 0.2, seed: 7, choices: [{ status: 503 }] });
    const got = await statuses(400);
    const faulted = got.filter((s) => s === 503).length;
    const { faults } = await control<{ faults: { injected: Record<string, number>; remaining: number | null }[] }>(emu(), "GET", "/faults");
    await control(emu(), "DELETE", "/faults");
    // The PRNG is deterministic: the count is what seed 7 gives (about 20%).
    const rng = seededRandom(7);
    let expected = 0;
    for (let i = 0; i < 400; i++) {
      if (rng() < 0.2) expected++;
      rng();
    }
    expect(faulted).toBe(expected);
    expect(faulted).toBeGreaterThan(50);
    expect(faulted).toBeLessThan(110);
    expect(faults[0]).toMatchObject({ injected: { "503": faulted }, remaining: null });
  });

  it("count caps the faults; unmatched methods and paths are never faulted; the default choices include drops", async () => {
    await control(emu(), "POST", "/faults", { method: "GET", path: "/webhooks/v1/endpoints", rate: 1, count: 3, choices: [{ status: 500 }] });
    expect(await statuses(5)).toEqual([500, 500, 500, 200, 200]);
    await control(emu(), "DELETE", "/faults");
    await control(emu(), "POST", "/faults", { method: "POST", path: "/webhooks/v1/endpoints", rate: 1, seed: 3 });
    expect(await statuses(3)).toEqual([200, 200, 200]);
    // Every default choice is reachable with rate 1: some requests lose their connection.
    const outcomes = new Set<string>();
    for (let i = 0; i < 40; i++) {
      const res = await call(emu(), "POST", "/webhooks/v1/endpoints", { key: admin(), body: { url: "not a url" } }).then(
        (r) => String(r.status),
        () => "dropped",
      );
      outcomes.add(res);
    }
    await control(emu(), "DELETE", "/faults");
    expect(outcomes).toContain("dropped");
    expect(outcomes).toContain("429");
    expect(outcomes).toContain("500");
  });
});
