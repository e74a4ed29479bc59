/**
 * The create journal's answers that no engine is known to have saved (issue 24, model
 * finding 8), through the engine stand-in against the emulator. A run killed after a
 * create's answer reached the provider leaves that answer unsaved: the next create
 * of the same resource adopts its object (test/reconcile/interrupted.test.ts and, under
 * the real CLI, interrupted-cli.test.ts). What must never happen: a look-alike resource
 * (same fields, so the same create body) adopting an object another resource of the
 * stack holds. Answers of a run the engine closed are held; answers of a killed run
 * are held once an engine names their object.
 */
import { describe, expect, it } from "vitest";
import { errorsOf, expectOnePerResource, RUNS_TIMEOUT_MS, useReconcileStacks } from "./support";
import { useEmulator } from "../support/emulator";

const emu = useEmulator();
const stack = useReconcileStacks(emu);

describe("answers the journal cannot know were saved", () => {
  it("a run the engine closed: a look-alike added in the next run, and created before the engine names the first, gets its own object", async () => {
    const s = await stack("closed-then-look-alike");
    const first = await s.run("up", { endpoints: 1, windowSeconds: 4 });
    expect(first.ok, errorsOf(first)).toBe(true);
    const [held] = await s.endpoints();

    // Declared first: endpoint-1's create comes before endpoint-0's diff.
    const up = await s.run("up", { endpoints: 2, windowSeconds: 4, reverse: true });
    expect(up.ok, errorsOf(up)).toBe(true);
    await expectOnePerResource(s, { endpoints: 2 });
    expect(await s.endpoints()).toContain(held);
  }, RUNS_TIMEOUT_MS);

  it("a run killed after its answer was saved: the next run names the object, and a look-alike added later gets its own", async () => {
    const s = await stack("saved-then-look-alike");
    // Killed once the state holds the endpoint: its answer saved, the journal not told.
    await s.killedUp({ endpoints: 1, windowSeconds: 4 }, async () => s.state().ids.length === 1);
    const [held] = await s.endpoints();
    expect(s.state().ids).toEqual([held]);

    // The engine names the endpoint (its diff): the journal learns it is held. Then endpoint-1's
    // create comes before endpoint-0's diff.
    const preview = await s.run("preview", { endpoints: 1, windowSeconds: 4 });
    expect(preview.ok, errorsOf(preview)).toBe(true);
    const up = await s.run("up", { endpoints: 2, windowSeconds: 4, reverse: true });
    expect(up.ok, errorsOf(up)).toBe(true);
    await expectOnePerResource(s, { endpoints: 2 });
    expect(await s.endpoints()).toContain(held);
  }, RUNS_TIMEOUT_MS);

  it("a run killed after its answer was saved, and a look-alike registered before the engine names the first: the look-alike gets its own object", async () => {
    const s = await stack("saved-then-race");
    await s.killedUp({ endpoints: 1, windowSeconds: 4 }, async () => s.state().ids.length === 1);
    const [held] = await s.endpoints();

    // endpoint-1's create starts first; endpoint-0's diff names the object while the create reads it.
    const up = await s.run("up", { endpoints: 2, windowSeconds: 4, reverse: true });
    expect(up.ok, errorsOf(up)).toBe(true);
    await expectOnePerResource(s, { endpoints: 2 });
    expect(await s.endpoints()).toContain(held);
  }, RUNS_TIMEOUT_MS);
});
