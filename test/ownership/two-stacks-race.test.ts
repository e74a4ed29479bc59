/**
 * Issue 34, scene 1, under the real CLI with a fresh runner per command (a new HOME,
 * PULUMI_HOME and TMPDIR each; only each stack's backend carries over): two stacks
 * (separate file backends) run the same program into one workspace, as review stacks
 * do. A's creates lose their connection before the service acts (real dropped
 * connections); within A's reconcile window B creates the same objects. Each stack's
 * objects carry its own owner mark, so neither takes the other's: neither state holds
 * the other's ids, each destroy leaves the other's objects, and the service holds
 * exactly what the two states hold. (Before issue 34 both runs exited 0, both states
 * held B's ids, and A's destroy deleted B's live objects.)
 */
import { describe, expect, it } from "vitest";
import { call, control, useEmulator } from "../support/emulator";
import { CLI_MISSING, errorsOf, fresh, noFaultListed, RUNS_TIMEOUT_MS, until, useOwnershipStacks, type Declared, type OwnershipStack } from "./support";

const emu = useEmulator();
const stack = useOwnershipStacks(emu);

const endpoint = (name: string): Declared => ({ kind: "webhooks:Endpoint", name, inputs: { url: `https://hooks.example.com/${name}`, subscriptions: [{ eventType: "order.*" }] } });
const PROGRAM: Declared[] = [endpoint("a"), endpoint("b"), { kind: "inboxes:Inbox", name: "box", inputs: { expiresInMinutes: 600 } }];

/** Every endpoint and inbox the workspace holds. */
async function held(s: OwnershipStack): Promise<string[]> {
  const list = async (path: string, key: string) => ((await call(emu(), "GET", `${path}?limit=200`, { key })).body.data as { id: string }[]).map((o) => o.id);
  return [...(await list("/webhooks/v1/endpoints", s.ws.webhooks.admin)), ...(await list("/inboxes/v1/inboxes", s.ws.inboxes.admin))].sort();
}
const ids = (s: OwnershipStack) => s.state().map((r) => r.id!).sort();

describe.skipIf(CLI_MISSING !== undefined)("scene 1: two stacks racing on look-alikes in one workspace, on fresh runners", () => {
  it("A's creates dropped before the service acts, B makes look-alikes within A's window: neither takes the other's objects", async () => {
    const a = await stack("race-a");
    const b = await stack("race-b", a.ws);
    await control(emu(), "POST", "/faults", { method: "POST", path: "/webhooks/v1/endpoints", drop: true, count: 2 });
    await control(emu(), "POST", "/faults", { method: "POST", path: "/inboxes/v1/inboxes", drop: true, count: 1 });
    // A window long enough for B's whole run on a loaded machine: A is still looking when B's objects appear.
    const upA = a.run("up", PROGRAM, { ...fresh(), config: { "svc:reconcileWindowSeconds": "45" } });
    await until("the first stack's creates to reach the service", () => noFaultListed(emu()));
    const upB = await b.run("up", PROGRAM, fresh());
    expect(upB.ok, errorsOf(upB)).toBe(true);
    const ofB = ids(b);
    expect(ofB).toHaveLength(3);
    const resultA = await upA;

    const ofA = ids(a);
    expect(ofA.filter((id) => ofB.includes(id))).toEqual([]);
    // B's look-alikes carry B's mark: A's window passes them over and A makes its own.
    expect(resultA.ok, errorsOf(resultA)).toBe(true);
    expect(ofA).toHaveLength(3);
    expect(await held(a)).toEqual([...ofA, ...ofB].sort());

    // The destroys' previews call no Delete: what each destroy deletes is held by what the service keeps after it.
    const destroyA = await a.run("destroy", PROGRAM, { verbOptions: { ...fresh().verbOptions, skipPreview: true } });
    expect(destroyA.ok, errorsOf(destroyA)).toBe(true);
    expect(await held(a)).toEqual(ofB);
    const destroyB = await b.run("destroy", PROGRAM, { verbOptions: { ...fresh().verbOptions, skipPreview: true } });
    expect(destroyB.ok, errorsOf(destroyB)).toBe(true);
    expect(await held(a)).toEqual([]);
  }, RUNS_TIMEOUT_MS);
});
