/**
 * Model finding 10 (test/model/README.md, seed 20261152), under the real CLI against the
 * emulator: a workspace setting taken over by an `up` killed (SIGKILL of `pulumi`) once
 * the service logged its first write, before the engine saved the take-over. The next
 * take-over must keep the value the workspace had before, not the killed run's own write,
 * so that destroy puts the workspace back as it was (provider/engine/create-journal.ts,
 * the `p` lines).
 */
import { describe, expect, it } from "vitest";
import { call, useEmulator } from "../support/emulator";
import { CLI_MISSING, errorsOf, RUNS_TIMEOUT_MS, upKilledAfterPut, useOwnershipStacks, type Declared } from "./support";

const emu = useEmulator();
const stack = useOwnershipStacks(emu);

describe.skipIf(CLI_MISSING !== undefined)("a workspace setting taken over by an up killed after its first write", () => {
  it("the rerun keeps the value found before the killed run wrote, and destroy puts it back", async () => {
    const s = await stack("killed-take-over");
    const policy = async () => (await call(emu(), "GET", "/webhooks/v1/event-types/policy", { key: s.ws.webhooks.admin })).body.policy;
    const found = await policy();
    expect(found).toBe("lenient");
    const strict: Declared = { kind: "webhooks:EventTypePolicy", name: "policy", inputs: { policy: "strict" } };

    const killed = await upKilledAfterPut(emu(), s, [strict], "/webhooks/v1/event-types/policy");
    expect(killed.ok).toBe(false);
    expect(s.state()).toEqual([]);
    expect(await policy()).toBe("strict");

    const rerun = await s.run("up", [strict]);
    expect(rerun.ok, errorsOf(rerun)).toBe(true);
    expect(await policy()).toBe("strict");
    expect(s.state()[0]!.outputs.previous).toEqual({ policy: found, inherited: false });

    const destroyed = await s.run("destroy", [strict]);
    expect(destroyed.ok, errorsOf(destroyed)).toBe(true);
    expect(await policy()).toBe(found);
  }, RUNS_TIMEOUT_MS);
});
