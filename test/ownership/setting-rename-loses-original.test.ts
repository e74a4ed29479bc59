/**
 * Adversary finding F7 (issue 24, scenarios 1 and 4): a setting resource (EventTypePolicy,
 * a singleton) renamed in the program without an alias. The new name takes the setting
 * over before the old name's delete (the engine creates first), and finds the old
 * name's own write. (b) Over two runs (`up --target` the new name, then `up`), the plain
 * up's delete of the old name must not put the setting back under the new holder's feet
 * (claims.ts keepers, as for objects). In both, the value the old name found is lost: a
 * delete is told only its own outputs, and the new holder's state already keeps what it
 * found. That limit is stated in provider/README.md ("Settings put back on delete"),
 * and the old name's delete says exactly what is lost and recommends the alias.
 */
import { describe, expect, it } from "vitest";
import { call, useEmulator } from "../support/emulator";
import { CLI_MISSING, errorsOf, RUNS_TIMEOUT_MS, useOwnershipStacks, type Declared } from "./support";

const emu = useEmulator();
const stack = useOwnershipStacks(emu);

describe.skipIf(CLI_MISSING !== undefined)("a setting resource renamed without an alias", () => {
  for (const how of ["one run", "two runs (up --target the new name, then up)"] as const) {
    it(`${how}: the declared value stays, and the warning says the original value is lost`, async () => {
      const s = await stack(how === "one run" ? "setting-rename-1" : "setting-rename-2");
      const policy = async () => (await call(emu(), "GET", "/webhooks/v1/event-types/policy", { key: s.ws.webhooks.admin })).body.policy;
      const original = await policy();
      expect(original).toBe("lenient");
      const declare = (name: string): Declared => ({ kind: "webhooks:EventTypePolicy", name, inputs: { policy: "strict" } });
      const up = await s.run("up", [declare("policy")]);
      expect(up.ok, errorsOf(up)).toBe(true);
      if (how !== "one run") {
        const urn = s.state()[0]!.urn.replace(/::policy$/, "::orgPolicy");
        const targeted = await s.run("up", [declare("orgPolicy")], { verbOptions: { targets: [urn] } });
        expect(targeted.ok, errorsOf(targeted)).toBe(true);
      }
      const { result: renamed, writes } = await s.writes("up", [declare("orgPolicy")]);
      expect(renamed.ok, errorsOf(renamed)).toBe(true);
      expect(s.state().map((r) => r.urn.split("::").pop())).toEqual(["orgPolicy"]);
      const previous = s.state()[0]!.outputs.previous;
      const afterRename = await policy();
      const { result: destroyed, writes: destroyWrites } = await s.writes("destroy", [declare("orgPolicy")]);
      expect(destroyed.ok, errorsOf(destroyed)).toBe(true);
      const final = await policy();
      console.log(JSON.stringify({ how, writes, afterRename, previous, destroyWrites, final, notes: renamed.diagnostics.map((d) => d.message.slice(0, 300)) }));
      // The renamed resource declares strict: the rename itself leaves it strict, with no write when over two runs.
      expect(afterRename).toBe("strict");
      if (how !== "one run") expect(writes).toEqual([]);
      // What is lost, said where it happens: the old name's found value, the new holder's, and the alias.
      const notes = renamed.diagnostics.map((d) => d.message).join("\n");
      expect(notes).toMatch(/The event type policy workspace was not put back: another resource of (this run|this stack)[^\n]* holds it now/);
      expect(notes).toMatch(/What this one found before it took the setting over, \{"(policy":"lenient","inherited":false|inherited":false,"policy":"lenient")\}, is put back by no resource now/);
      expect(notes).toContain('aliases: [{ name: "<old name>" }]');
      // The admitted limit: destroy puts back what the new name found (the old name's write).
      expect(previous).toEqual({ policy: "strict", inherited: false });
      expect(final).toBe("strict");
    }, RUNS_TIMEOUT_MS);
  }

  it("QuotaLimits renamed over two runs: the plain up must not write the old limits back over the declared ones", async () => {
    const s = await stack("quota-rename-2");
    const quota = async () => (await call(emu(), "GET", "/infra/api/v1/quota/compute?region=us-east-1", { key: s.ws.infra.member })).body.limits;
    const original = await quota();
    const declare = (name: string): Declared => ({ kind: "infra:QuotaLimits", name, inputs: { service: "compute", region: "us-east-1", limits: { vms: 100 }, profile: "infraAdmin" } });
    const up = await s.run("up", [declare("compute")]);
    expect(up.ok, errorsOf(up)).toBe(true);
    const urn = s.state()[0]!.urn.replace(/::compute$/, "::computeUs");
    const targeted = await s.run("up", [declare("computeUs")], { verbOptions: { targets: [urn] } });
    expect(targeted.ok, errorsOf(targeted)).toBe(true);
    const { result, writes } = await s.writes("up", [declare("computeUs")]);
    expect(result.ok, errorsOf(result)).toBe(true);
    const afterRename = await quota();
    const { result: destroyed } = await s.writes("destroy", [declare("computeUs")]);
    expect(destroyed.ok, errorsOf(destroyed)).toBe(true);
    const final = await quota();
    console.log(JSON.stringify({ original, writes, afterRename, final }));
    expect(afterRename.vms).toBe(100);
    expect(writes).toEqual([]);
    const notes = result.diagnostics.map((d) => d.message).join("\n");
    expect(notes).toContain("The quota limits compute/us-east-1 was not put back: the resource `computeUs` holds it now");
    expect(notes).toContain(`What this one found before it took the setting over, {"limits":{"vms":${original.vms}}}, is put back by no resource now`);
    // The admitted limit: destroy puts back what the new name found (the old name's write).
    expect(final).toEqual({ ...original, vms: 100 });
  }, RUNS_TIMEOUT_MS);
});
