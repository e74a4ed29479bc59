/**
 * Issue 34, scene 5, under the real CLI with every command on a fresh runner (a new
 * HOME, PULUMI_HOME and TMPDIR: only the backend's state file carries over): a setting's
 * take-over killed after its write. The Check of the create read the value found before
 * into its inputs, so the engine's pending create holds it in the state before the write;
 * `pulumi-svc recover` makes it the resource's `previous`, also after a plain rerun that
 * took the setting over again (finding the killed run's write), and `destroy` puts it back.
 */
import { describe, expect, it } from "vitest";
import { call, useEmulator } from "../support/emulator";
import { CLI_MISSING, errorsOf, fresh, recover, RUNS_TIMEOUT_MS, upKilledAfterPut, useOwnershipStacks, type Declared } from "./support";

const emu = useEmulator();
const stack = useOwnershipStacks(emu);

const STRICT: Declared = { kind: "webhooks:EventTypePolicy", name: "policy", inputs: { policy: "strict" } };

describe.skipIf(CLI_MISSING !== undefined)("a setting's take-over killed after its write, then destroy, on fresh runners", () => {
  for (const rerun of [false, true]) {
    it(`${rerun ? "a plain up, then recover" : "recover"}, up and destroy: the value found before the killed take-over is back`, async () => {
      const s = await stack(`policy-killed-${rerun ? "rerun" : "recover"}`);
      const policy = async () => (await call(emu(), "GET", "/webhooks/v1/event-types/policy", { key: s.ws.webhooks.admin })).body.policy;
      expect(await policy()).toBe("lenient");

      const killed = await upKilledAfterPut(emu(), s, [STRICT], "/webhooks/v1/event-types/policy");
      expect(killed.ok).toBe(false);
      expect(await policy()).toBe("strict");
      expect(s.state()).toEqual([]);

      if (rerun) {
        // The engine keeps the pending create; this take-over finds the killed run's write.
        const up = await s.run("up", [STRICT], fresh());
        expect(up.ok, errorsOf(up)).toBe(true);
      }
      const rec = await recover(s);
      expect(rec.code, rec.output).toBe(0);
      expect(rec.output).toContain('"policy":"lenient"');
      expect(s.state().map((r) => r.outputs.previous)).toEqual([{ policy: "lenient", inherited: false }]);

      const up = await s.run("up", [STRICT], fresh());
      expect(up.ok, errorsOf(up)).toBe(true);
      const down = await s.run("destroy", [STRICT], fresh());
      expect(down.ok, errorsOf(down)).toBe(true);
      expect(await policy()).toBe("lenient");
    }, RUNS_TIMEOUT_MS);
  }
});
