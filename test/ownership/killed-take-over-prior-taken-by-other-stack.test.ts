/**
 * Adversary finding F5 (issue 24, scenario 4): the journal's "value found before" of a
 * killed take-over (the `p` lines) is the killed resource's alone (its identity, as
 * answers are matched). With the default journal dir (~/.pulumi-svc/journal, shared by
 * every stack on the machine), another stack of the project taking over the same
 * setting before the killed stack reruns must neither take that value nor settle it:
 * the killed stack's rerun gets it back (not its own killed write, the bug of model
 * finding 10, test/ownership/killed-take-over.test.ts), and destroying both, the
 * killed stack last, leaves the workspace's original.
 */
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { call, useEmulator } from "../support/emulator";
import { CLI_MISSING, errorsOf, RUNS_TIMEOUT_MS, upKilledAfterPut, useOwnershipStacks, type Declared } from "./support";

const emu = useEmulator();
const stack = useOwnershipStacks(emu);

describe.skipIf(CLI_MISSING !== undefined)("a killed take-over, then another stack sharing the journal dir takes over the same setting", () => {
  it("the killed stack's rerun still keeps the value found before its killed write; destroying both restores it", async () => {
    const dev = await stack("kto-dev");
    const staging = await stack("kto-staging", dev.ws);
    const journal = join(dev.dir, "machine-journal");
    const policy = async () => (await call(emu(), "GET", "/webhooks/v1/event-types/policy", { key: dev.ws.webhooks.admin })).body.policy;
    const found = await policy();
    expect(found).toBe("lenient");
    const strict: Declared = { kind: "webhooks:EventTypePolicy", name: "policy", inputs: { policy: "strict" } };

    // dev's up killed after its write reached the service (as in killed-take-over.test.ts).
    const killed = await upKilledAfterPut(emu(), dev, [strict], "/webhooks/v1/event-types/policy", { journal });
    expect(killed.ok).toBe(false);
    expect(await policy()).toBe("strict");

    // staging (same machine, same journal dir) takes over the same setting first.
    const upStaging = await staging.run("up", [strict], { journal });
    expect(upStaging.ok, errorsOf(upStaging)).toBe(true);
    const rerun = await dev.run("up", [strict], { journal });
    expect(rerun.ok, errorsOf(rerun)).toBe(true);
    const previous = { dev: dev.state()[0]!.outputs.previous, staging: staging.state()[0]!.outputs.previous };
    const notes = { staging: JSON.stringify(upStaging.diagnostics.map((d) => d.message)), dev: JSON.stringify(rerun.diagnostics.map((d) => d.message)) };
    console.log(JSON.stringify({ previous, notes }));
    // staging found dev's killed write and keeps it (its own take-over); the note of a killed take-over is dev's rerun's alone.
    expect(previous.staging).toEqual({ policy: "strict", inherited: false });
    expect(notes.staging).not.toMatch(/killed/);
    expect(notes.dev).toMatch(/taken over by an earlier run of this resource that was killed/);

    const downStaging = await staging.run("destroy", [strict], { journal });
    expect(downStaging.ok, errorsOf(downStaging)).toBe(true);
    const downDev = await dev.run("destroy", [strict], { journal });
    expect(downDev.ok, errorsOf(downDev)).toBe(true);
    const final = await policy();
    console.log(JSON.stringify({ final }));

    // dev's value found before its (killed) take-over was "lenient", not its own killed write.
    expect(previous.dev).toEqual({ policy: found, inherited: false });
    expect(final).toBe(found);
  }, RUNS_TIMEOUT_MS);
});
