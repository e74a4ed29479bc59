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
import { errorsOf, expectOnePerResource, RUNS_TIMEOUT_MS, useReconcileStacks, type ReconcileStack } from "./support";
import { useEmulator } from "../support/emulator";

const emu = useEmulator();
const stack = useReconcileStacks(emu);

/**
 * One endpoint up, killed once the state holds it: its answer saved, the journal not told.
 * The program holds the run open meanwhile, so the kill always comes before the engine
 * closes the plugin (without it the run could end first). The endpoint's id.
 */
async function killedAfterTheSave(s: ReconcileStack): Promise<string> {
  await s.killedUp({ endpoints: 1, windowSeconds: 4, holdMs: 60_000 }, async () => s.state().ids.length === 1);
  const [held] = await s.endpoints();
  expect(s.state().ids).toEqual([held]);
  return held!;
}

/** A look-alike added and declared first (it registers, and its create starts, before the held one's diff): it gets its own object. */
async function expectTheLookAlikeGetsItsOwn(s: ReconcileStack, held: string): Promise<void> {
  const up = await s.run("up", { endpoints: 2, windowSeconds: 4, reverse: true });
  expect(up.ok, errorsOf(up)).toBe(true);
  await expectOnePerResource(s, { endpoints: 2 });
  expect(await s.endpoints()).toContain(held);
}

describe("answers the journal cannot know were saved", () => {
  it("a run the engine closed: a look-alike added in the next run, declared first, gets its own object", async () => {
    const s = await stack("closed-then-look-alike");
    const first = await s.run("up", { endpoints: 1, windowSeconds: 4 });
    expect(first.ok, errorsOf(first)).toBe(true);
    const [held] = await s.endpoints();
    await expectTheLookAlikeGetsItsOwn(s, held!);
  }, RUNS_TIMEOUT_MS);

  it("a run killed after its answer was saved: a preview names the object, and a look-alike added later gets its own", async () => {
    const s = await stack("saved-then-look-alike");
    const held = await killedAfterTheSave(s);
    // The engine names the endpoint (its diff): the journal records that a resource holds it.
    const preview = await s.run("preview", { endpoints: 1, windowSeconds: 4 });
    expect(preview.ok, errorsOf(preview)).toBe(true);
    await expectTheLookAlikeGetsItsOwn(s, held);
  }, RUNS_TIMEOUT_MS);

  it("a run killed after its answer was saved, and a look-alike declared first in the next run: the look-alike gets its own object", async () => {
    const s = await stack("saved-then-race");
    await expectTheLookAlikeGetsItsOwn(s, await killedAfterTheSave(s));
  }, RUNS_TIMEOUT_MS);
});
