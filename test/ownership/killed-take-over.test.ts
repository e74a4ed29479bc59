/**
 * Model finding 10 (test/model/README.md, seed 20261152), under the real CLI against the
 * emulator: a workspace setting taken over by an `up` killed (SIGKILL of `pulumi`) once
 * the service logged its first write, before the engine saved the take-over. The next
 * take-over must keep the value the workspace had before, not the killed run's own write,
 * so that destroy puts the workspace back as it was (provider/engine/create-journal.ts,
 * the `p` lines).
 */
import { describe, expect, it } from "vitest";
import { call, control, useEmulator } from "../support/emulator";
import { pulumiSync, stackProcesses } from "../support/pulumi-cli";
import { CLI_MISSING, errorsOf, RUNS_TIMEOUT_MS, useOwnershipStacks, type Declared } from "./support";

const emu = useEmulator();
const stack = useOwnershipStacks(emu);

async function until(cond: () => boolean | Promise<boolean>): Promise<void> {
  // No deadline of its own: the test's timeout bounds it.
  while (!(await cond())) await new Promise((r) => setTimeout(r, 100));
}

describe.skipIf(CLI_MISSING !== undefined)("a workspace setting taken over by an up killed after its first write", () => {
  it("the rerun keeps the value found before the killed run wrote, and destroy puts it back", async () => {
    const s = await stack("killed-take-over");
    const policy = async () => (await call(emu(), "GET", "/webhooks/v1/event-types/policy", { key: s.ws.webhooks.admin })).body.policy;
    const found = await policy();
    expect(found).toBe("lenient");
    const strict: Declared = { kind: "webhooks:EventTypePolicy", name: "policy", inputs: { policy: "strict" } };

    // The first PUT is done and its answer lost (the client sends it again, as a PUT may be);
    // the second is held, and `pulumi` is killed once it reached the service: the write is
    // logged, the take-over's answer never saved.
    await control(emu(), "POST", "/faults", { method: "PUT", path: "/webhooks/v1/event-types/policy", drop_after_response: true, count: 1 });
    await control(emu(), "POST", "/faults", { method: "PUT", path: "/webhooks/v1/event-types/policy", latency_ms: 60_000, count: 1 });
    const ac = new AbortController();
    const up = s.run("up", [strict], { verbOptions: { signal: ac.signal, abortWith: "SIGKILL" } });
    await until(async () => (await control<{ faults: unknown[] }>(emu(), "GET", "/faults")).faults.length === 0);
    ac.abort();
    const killed = await up;
    expect(killed.ok).toBe(false);
    expect(s.state()).toEqual([]);
    await until(() => stackProcesses(s.ref).length === 0);
    expect(await policy()).toBe("strict");
    pulumiSync(s.ref, ["cancel", "--yes", "--stack", s.ref.stack]);

    const rerun = await s.run("up", [strict]);
    expect(rerun.ok, errorsOf(rerun)).toBe(true);
    expect(await policy()).toBe("strict");
    expect(s.state()[0]!.outputs.previous).toEqual({ policy: found, inherited: false });

    const destroyed = await s.run("destroy", [strict]);
    expect(destroyed.ok, errorsOf(destroyed)).toBe(true);
    expect(await policy()).toBe(found);
  }, RUNS_TIMEOUT_MS);
});
