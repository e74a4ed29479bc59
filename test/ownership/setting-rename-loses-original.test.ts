/**
 * Adversary finding F7 (issue 24, scenarios 1 and 4): a setting resource (EventTypePolicy,
 * a singleton) renamed in the program without an alias. The new name takes the setting
 * over before the old name's delete (the engine creates first), and finds the old
 * name's own write. (b) Over two runs (`up --target` the new name, then `up`), the plain
 * up's delete of the old name must not put the setting back under the new holder's feet
 * (claims.ts keepers, as for objects); that scene carries a QuotaLimits renamed the same way
 * on the same stack. In both, the value the old name found is lost: a
 * delete is told only its own outputs, and the new holder's state already keeps what it
 * found. That limit is stated in provider/README.md ("Settings put back on delete"),
 * and the old name's delete says exactly what is lost and recommends the alias.
 */
import { describe, expect, it } from "vitest";
import { call, useEmulator } from "../support/emulator";
import type { EngineResult } from "../support/run-types";
import { CLI_MISSING, errorsOf, RUNS_TIMEOUT_MS, useOwnershipStacks, type Declared, type OwnershipStack } from "./support";

const emu = useEmulator();
const stack = useOwnershipStacks(emu);

/** The workspace's event type policy at the service (lenient until a resource declares it), and a resource named `name` declaring it strict. */
function eventTypePolicy(s: OwnershipStack) {
  return {
    read: async () => (await call(emu(), "GET", "/webhooks/v1/event-types/policy", { key: s.ws.webhooks.admin })).body.policy,
    declare: (name: string): Declared => ({ kind: "webhooks:EventTypePolicy", name, inputs: { policy: "strict" } }),
  };
}

/** The event type policy's rename, told: the declared value stays, the old name's delete says what is lost, and destroy puts back the new name's find. */
function expectPolicyRenameTold(seen: { afterRename: unknown; previous: unknown; final: unknown; notes: string }): void {
  // The renamed resource declares strict: the rename itself leaves it strict.
  expect(seen.afterRename).toBe("strict");
  // What is lost, said where it happens: the old name's found value, the new holder's, and the alias.
  expect(seen.notes).toMatch(/The event type policy workspace was not put back: another resource of (this run|this stack)[^\n]* holds it now/);
  expect(seen.notes).toMatch(/What this one found before it took the setting over, \{"(policy":"lenient","inherited":false|inherited":false,"policy":"lenient")\}, is put back by no resource now/);
  expect(seen.notes).toContain('aliases: [{ name: "<old name>" }]');
  // The admitted limit: destroy puts back what the new name found (the old name's write).
  expect(seen.previous).toEqual({ policy: "strict", inherited: false });
  expect(seen.final).toBe("strict");
}

const notesOf = (r: EngineResult) => r.diagnostics.map((d) => d.message).join("\n");
const nameOf = (urn: string) => urn.split("::").pop()!;

describe.skipIf(CLI_MISSING !== undefined)("a setting resource renamed without an alias", () => {
  it("one run: the declared value stays, and the warning says the original value is lost", async () => {
    const s = await stack("setting-rename-1");
    const policy = eventTypePolicy(s);
    expect(await policy.read()).toBe("lenient");
    const up = await s.run("up", [policy.declare("policy")]);
    expect(up.ok, errorsOf(up)).toBe(true);
    const { result: renamed, writes } = await s.writes("up", [policy.declare("orgPolicy")]);
    expect(renamed.ok, errorsOf(renamed)).toBe(true);
    expect(s.state().map((r) => nameOf(r.urn))).toEqual(["orgPolicy"]);
    const previous = s.state()[0]!.outputs.previous;
    const afterRename = await policy.read();
    const { result: destroyed, writes: destroyWrites } = await s.writes("destroy", [policy.declare("orgPolicy")]);
    expect(destroyed.ok, errorsOf(destroyed)).toBe(true);
    const final = await policy.read();
    console.log(JSON.stringify({ how: "one run", writes, afterRename, previous, destroyWrites, final, notes: renamed.diagnostics.map((d) => d.message.slice(0, 300)) }));
    expectPolicyRenameTold({ afterRename, previous, final, notes: notesOf(renamed) });
  }, RUNS_TIMEOUT_MS);

  // Both settings on one stack (one workspace holds both): each scene's runs are the same four, made once.
  it("two runs (up --target the new names, then up), an EventTypePolicy and a QuotaLimits: the plain up writes nothing (it must not write the old values back over the declared ones), the declared values stay, and the warnings say the original values are lost", async () => {
    const s = await stack("setting-rename-2");
    const policy = eventTypePolicy(s);
    const quota = async () => (await call(emu(), "GET", "/infra/api/v1/quota/compute?region=us-east-1", { key: s.ws.infra.member })).body.limits;
    const declareQuota = (name: string): Declared => ({ kind: "infra:QuotaLimits", name, inputs: { service: "compute", region: "us-east-1", limits: { vms: 100 }, profile: "infraAdmin" } });
    expect(await policy.read()).toBe("lenient");
    const original = await quota();
    const renames = { policy: "orgPolicy", compute: "computeUs" };
    const up = await s.run("up", [policy.declare("policy"), declareQuota("compute")]);
    expect(up.ok, errorsOf(up)).toBe(true);
    const declaredRenamed = [policy.declare(renames.policy), declareQuota(renames.compute)];
    const targets = s.state().map((r) => r.urn.replace(/::[^:]+$/, `::${renames[nameOf(r.urn) as keyof typeof renames]}`));
    const targeted = await s.run("up", declaredRenamed, { verbOptions: { targets } });
    expect(targeted.ok, errorsOf(targeted)).toBe(true);
    const { result: renamed, writes } = await s.writes("up", declaredRenamed);
    expect(renamed.ok, errorsOf(renamed)).toBe(true);
    expect(s.state().map((r) => nameOf(r.urn)).sort()).toEqual(["computeUs", "orgPolicy"]);
    const previous = s.state().find((r) => nameOf(r.urn) === "orgPolicy")!.outputs.previous;
    const [afterRename, afterRenameQuota] = [await policy.read(), await quota()];
    const { result: destroyed, writes: destroyWrites } = await s.writes("destroy", declaredRenamed);
    expect(destroyed.ok, errorsOf(destroyed)).toBe(true);
    const [final, finalQuota] = [await policy.read(), await quota()];
    console.log(JSON.stringify({ how: "two runs", writes, afterRename, previous, destroyWrites, final, original, afterRenameQuota, finalQuota, notes: renamed.diagnostics.map((d) => d.message.slice(0, 300)) }));
    // Over two runs, the plain up's deletes of the old names write nothing.
    expect(writes).toEqual([]);
    expectPolicyRenameTold({ afterRename, previous, final, notes: notesOf(renamed) });
    expect(afterRenameQuota.vms).toBe(100);
    const notes = notesOf(renamed);
    expect(notes).toContain("The quota limits compute/us-east-1 was not put back: the resource `computeUs` holds it now");
    expect(notes).toContain(`What this one found before it took the setting over, {"limits":{"vms":${original.vms}}}, is put back by no resource now`);
    // The admitted limit: destroy puts back what the new name found (the old name's write).
    expect(finalQuota).toEqual({ ...original, vms: 100 });
  }, RUNS_TIMEOUT_MS);
});
