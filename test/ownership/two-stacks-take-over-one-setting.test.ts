/**
 * Adversary finding F1 (issue 24, scenario 4): two stacks of one project (dev and
 * staging, one workspace) both declare the workspace's event type policy. Each takes it
 * over and keeps "the value found before" to put back on delete: dev the workspace's
 * original, staging dev's write. A delete puts its value back only where the service
 * still holds what the resource wrote (provider/README.md, "Settings put back on
 * delete"), so destroying both, in either order, leaves the original; the destroy that
 * finds another value than its own write leaves it and says so.
 */
import { describe, expect, it } from "vitest";
import { call, useEmulator } from "../support/emulator";
import { CLI_MISSING, errorsOf, RUNS_TIMEOUT_MS, useOwnershipStacks, type Declared } from "./support";

const emu = useEmulator();
const stack = useOwnershipStacks(emu);

describe.skipIf(CLI_MISSING !== undefined)("two stacks take over one setting", () => {
  for (const order of ["dev", "staging"] as const) {
    it(`both destroyed (${order === "dev" ? "the first taker first" : "the last taker first"}): the workspace's original policy is back`, async () => {
      const dev = await stack(`policy-dev-${order}`);
      const staging = await stack(`policy-staging-${order}`, dev.ws);
      const policy = async () => (await call(emu(), "GET", "/webhooks/v1/event-types/policy", { key: dev.ws.webhooks.admin })).body.policy;
      const original = await policy();
      expect(original).toBe("lenient");
      const strict: Declared = { kind: "webhooks:EventTypePolicy", name: "policy", inputs: { policy: "strict" } };

      const upDev = await dev.run("up", [strict]);
      expect(upDev.ok, errorsOf(upDev)).toBe(true);
      const upStaging = await staging.run("up", [strict]);
      expect(upStaging.ok, errorsOf(upStaging)).toBe(true);
      expect(await policy()).toBe("strict");
      // What each stack will put back on delete: staging found dev's write.
      expect(dev.state()[0]!.outputs.previous).toEqual({ policy: "lenient", inherited: false });
      expect(staging.state()[0]!.outputs.previous).toEqual({ policy: "strict", inherited: false });

      const [first, second] = order === "dev" ? [dev, staging] : [staging, dev];
      const down1 = await first.writes("destroy", [strict]);
      expect(down1.result.ok, errorsOf(down1.result)).toBe(true);
      expect(down1.writes).toEqual(["PUT /v1/event-types/policy"]);
      const down2 = await second.writes("destroy", [strict]);
      expect(down2.result.ok, errorsOf(down2.result)).toBe(true);
      const final = await policy();
      const notes = down2.result.diagnostics.map((d) => d.message).join("\n");
      console.log(JSON.stringify({ order, final, writes: [down1.writes, down2.writes], notes }));

      // Neither stack holds the setting any more: the workspace is as it was before either took it over.
      expect(final).toBe(original);
      if (order === "dev") {
        // staging's destroy found dev's restore, not its own write: left as it is, and said.
        expect(down2.writes).toEqual([]);
        expect(notes).toContain('policy holds "lenient", not what this resource wrote, and would have been put back to "strict"');
      } else expect(down2.writes).toEqual(["PUT /v1/event-types/policy"]);
    }, RUNS_TIMEOUT_MS);
  }
});
