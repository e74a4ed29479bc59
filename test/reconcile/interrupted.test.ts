/**
 * A run killed while its creates are in flight (invariant 3 of provider/README.md),
 * through the engine stand-in against the emulator: the CLI, the program and the
 * plugin are killed together (SIGKILL of the process group) after the creates reached
 * the service, which then makes the objects. The next run, `up` (the pending creates
 * kept, as the real engine keeps them) or `refresh` then `up`, leaves exactly one
 * object per resource: the provider recognises the objects its interrupted creates
 * made (the create journal) instead of creating them again.
 */
import { describe, expect, it } from "vitest";
import { control, useEmulator } from "../support/emulator";
import { errorsOf, expectOnePerResource, RUNS_TIMEOUT_MS, useReconcileStacks, type ReconcileStack } from "./support";

const emu = useEmulator();
const stack = useReconcileStacks(emu);

/** The service makes each object this long after the request (its connection dropped): the run is killed meanwhile. */
const ACTS_AFTER_MS = 3_000;
const spec = { endpoints: 2, bins: 1, windowSeconds: 10 };

async function interruptedRun(name: string): Promise<ReconcileStack> {
  const s = await stack(name);
  await control(emu(), "POST", "/faults", { method: "POST", path: "/webhooks/v1/endpoints", drop_then_act_ms: ACTS_AFTER_MS, count: 2 });
  await control(emu(), "POST", "/faults", { method: "POST", path: "/inboxes/v1/inboxes", drop_then_act_ms: ACTS_AFTER_MS, count: 1 });
  const reached = async () => ((await control<{ faults: unknown[] }>(emu(), "GET", "/faults")).faults.length === 0);
  // Killed once every create reached the service (each took its fault) and the state records them pending.
  await s.killedUp(spec, async () => s.state().pending.length === 3 && (await reached()));
  expect(s.state().ids).toEqual([]);
  // The service finishes the creates whose client is gone.
  await new Promise((r) => setTimeout(r, ACTS_AFTER_MS + 1_000));
  expect(await s.endpoints()).toHaveLength(2);
  expect(await s.bins()).toHaveLength(1);
  return s;
}


describe("a run killed mid-create", () => {
  it("the next up adopts what the interrupted creates made: exactly one object per resource", async () => {
    const s = await interruptedRun("killed-up");
    const made = [...(await s.endpoints()), ...(await s.bins())].sort();
    const up = await s.run("up", spec);
    expect(up.ok, errorsOf(up)).toBe(true);
    await expectOnePerResource(s, spec);
    expect(s.state().ids).toEqual(made);
    // The engine keeps the pending creates until a refresh clears them (as the real engine does); harmless now.
    expect(s.state().pending).toEqual(["creating", "creating", "creating"]);
    const again = await s.run("up", spec);
    expect(again.ok, errorsOf(again)).toBe(true);
    expect(again.steps.filter((st) => st.op !== "same")).toEqual([]);
  }, RUNS_TIMEOUT_MS);

  it("refresh (clearing the pending creates) then up: exactly one object per resource", async () => {
    const s = await interruptedRun("killed-refresh");
    const refresh = await s.run("refresh", spec);
    expect(refresh.ok, errorsOf(refresh)).toBe(true);
    expect(s.state().pending).toEqual([]);
    const up = await s.run("up", spec);
    expect(up.ok, errorsOf(up)).toBe(true);
    await expectOnePerResource(s, spec);
    expect(s.state().pending).toEqual([]);
  }, RUNS_TIMEOUT_MS);

  it("killed after a create was answered, before the engine saved it: the next up adopts that object instead of making a second", async () => {
    const s = await stack("killed-answered");
    const answered = { endpoints: 1, endpointStatus: "disabled" as const, windowSeconds: 10 };
    // The create's answer reaches the provider, which then PATCHes the status (create does not take it):
    // the PATCH is held, and the run killed once it reached the service, so the answer is never saved.
    await control(emu(), "POST", "/faults", { method: "PATCH", path: "/webhooks/v1/endpoints/*", latency_ms: 30_000, count: 1 });
    await s.killedUp(answered, async () => (await control<{ faults: unknown[] }>(emu(), "GET", "/faults")).faults.length === 0);
    const made = await s.endpoints();
    expect(made).toHaveLength(1);
    expect(s.state().ids).toEqual([]);

    const up = await s.run("up", answered);
    expect(up.ok, errorsOf(up)).toBe(true);
    await expectOnePerResource(s, answered);
    expect(s.state().ids).toEqual(made);
  }, RUNS_TIMEOUT_MS);
});
