/**
 * Invariant 1 of provider/README.md with look-alike resources, through the engine
 * stand-in against the emulator: ten request bins with no label and six endpoints to
 * one URL with one subscription, some of whose creates lose their answers (the
 * service acted, the connection dropped), or lose them while the service is still
 * acting. After the up the emulator holds exactly the declared objects, each held by
 * one resource of the state, and a second up adds none. Counts come from the
 * emulator's listings and the state file, never from timing.
 */
import { describe, expect, it } from "vitest";
import { control, useEmulator } from "../support/emulator";
import { errorsOf, RUNS_TIMEOUT_MS, useReconcileStacks, type ReconcileStack } from "./support";

const emu = useEmulator();
const stack = useReconcileStacks(emu);

describe("look-alike resources whose creates lost their answers", () => {
  it("ten bins with no label and six identical endpoints: exactly sixteen objects, one per resource; a second up adds none", async () => {
    const s = await stack("look-alikes");
    const spec = { bins: 10, endpoints: 6, windowSeconds: 4 };
    // The service makes the object, then the answer is lost: three bins and two endpoints;
    // one more bin whose create is still being made inside the service when its connection drops.
    await control(emu(), "POST", "/faults", { method: "POST", path: "/inboxes/v1/inboxes", drop_after_response: true, count: 3 });
    await control(emu(), "POST", "/faults", { method: "POST", path: "/inboxes/v1/inboxes", drop_then_act_ms: 1_000, count: 1 });
    await control(emu(), "POST", "/faults", { method: "POST", path: "/webhooks/v1/endpoints", drop_after_response: true, count: 2 });

    const up = await s.run("up", spec);
    expect(up.ok, errorsOf(up)).toBe(true);
    await control(emu(), "DELETE", "/faults");
    const bins = await s.bins();
    const endpoints = await s.endpoints();
    expect(bins).toHaveLength(10);
    expect(endpoints).toHaveLength(6);
    // Each object held by exactly one resource: no two resources share one, none is left over.
    expect(s.state().ids).toEqual([...bins, ...endpoints].sort());

    const again = await s.run("up", spec);
    expect(again.ok, errorsOf(again)).toBe(true);
    expect(again.steps.filter((st) => st.op !== "same")).toEqual([]);
    expect(await s.bins()).toEqual(bins);
    expect(await s.endpoints()).toEqual(endpoints);
  }, RUNS_TIMEOUT_MS);
});
