/**
 * `pulumi-svc recover` (issue 34 item 3) under the real CLI: a run killed while the
 * service acts, then every later command on a fresh runner (a new HOME, PULUMI_HOME and
 * TMPDIR each: only the backend's state file carries over).
 */
import { copyFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { call, control, lastSeq, requestsSince, useEmulator } from "../support/emulator";
import { loadCliDeployment, pulumiSync, stackPaths } from "../support/pulumi-cli";
import type { Workspace } from "../provider/support";
import { CLI_MISSING, errorsOf, fresh, freshRunner, killedWhileActing, recover, RUNS_TIMEOUT_MS, useOwnershipStacks, type Declared, type OwnershipStack } from "./support";

const emu = useEmulator();
const stack = useOwnershipStacks(emu);

const endpoint = (name: string, inputs: Record<string, unknown> = {}): Declared => ({
  kind: "webhooks:Endpoint",
  name,
  inputs: { url: `https://hooks.example.com/${name}`, subscriptions: [{ eventType: "order.*" }], ...inputs },
});
const PROGRAM: Declared[] = [
  endpoint("a"),
  endpoint("b"),
  { kind: "inboxes:Inbox", name: "box", inputs: { expiresInMinutes: 600 } },
  { kind: "webhooks:EventType", name: "shipped", inputs: { name: "order.recovered" } },
];

/** Every object of the program's kinds the service holds for the stack's workspace. */
async function held(s: OwnershipStack): Promise<string[]> {
  const list = async (path: string, key: string) => ((await call(emu(), "GET", `${path}?limit=200`, { key })).body.data as { id?: string; name?: string }[]).map((o) => String(o.id ?? o.name));
  return [
    ...(await list("/webhooks/v1/endpoints", s.ws.webhooks.admin)),
    ...(await list("/inboxes/v1/inboxes", s.ws.inboxes.admin)),
    ...(await list("/webhooks/v1/event-types", s.ws.webhooks.admin)).map((n) => `workspace/${n}`),
  ].sort();
}
const stateIds = (s: OwnershipStack) => s.state().map((r) => r.id!).sort();

/** `verb` of `program` killed once the service has its `method` requests on `paths` (support.ts). */
const killedWhileDelayed = (s: OwnershipStack, verb: "up" | "destroy", program: Declared[], method: string, paths: Record<string, number>) =>
  killedWhileActing(emu(), s.ref, (verbOptions) => s.run(verb, program, { verbOptions }), method, paths);

/** A copy of the stack's config file with `ws`'s keys in place of its own (and no reconcile wait: nothing here is in flight). */
function configWithKeysOf(s: OwnershipStack, ws: Workspace): string {
  const file = join(s.dir, "other-keys.yaml");
  copyFileSync(stackPaths(s.ref.stateFile!).configFile, file);
  const keys = { "svc:webhooksApiKey": ws.webhooks.admin, "svc:inboxesApiKey": ws.inboxes.admin, "svc:infraApiKey": ws.infra.member };
  const pairs = Object.entries(keys).flatMap(([k, v]) => ["--secret", `${k}=${v}`]);
  pulumiSync({ ...s.ref, env: freshRunner() }, ["config", "set-all", "--stack", s.ref.stack, "--config-file", file, ...pairs, "--plaintext", "svc:reconcileWindowSeconds=0"]);
  return file;
}

const pending = (s: OwnershipStack, type: string) => (loadCliDeployment({ ...s.ref }).pending_operations ?? []).filter((op) => op.type === type);

describe.skipIf(CLI_MISSING !== undefined)("pulumi-svc recover: a killed run resolved on a fresh runner", () => {
  it("killed up after the service made 4 marked objects: recover adopts each by its mark, up converges; no orphan, no duplicate. Then a killed destroy after the service deleted them: recover drops them, up recreates; the state holds what the service has", async () => {
    const s = await stack("recover-up");
    await killedWhileDelayed(s, "up", PROGRAM, "POST", { "/webhooks/v1/endpoints": 2, "/inboxes/v1/inboxes": 1, "/webhooks/v1/event-types": 1 });
    const made = await held(s);
    expect(made).toHaveLength(4);
    expect(pending(s, "creating")).toHaveLength(4);

    // A pipeline given another workspace's keys (the staging ones, by mistake): finding nothing there proves nothing.
    // Nothing is resolved or written; each create recorded where it went, and the message names both workspaces.
    const other = await control<Workspace>(emu(), "POST", "/workspaces", { plan: "enterprise" });
    const before = await lastSeq(emu());
    const wrong = await recover(s, "--config-file", configWithKeysOf(s, other));
    expect(wrong.code, wrong.output).toBe(1);
    expect(wrong.output).toMatch(new RegExp(`::a: not resolved: the create was made with a key of workspace ${s.ws.workspace_id}; the key of \`svc:webhooksApiKey\` belongs to workspace ${other.workspace_id}`));
    expect(wrong.output).toContain("0 adopted, 0 dropped");
    expect((await requestsSince(emu(), before)).filter((r) => r.method !== "GET")).toEqual([]);
    expect(pending(s, "creating")).toHaveLength(4);

    const dry = await recover(s, "--dry-run");
    expect(dry.code, dry.output).toBe(0);
    expect(pending(s, "creating")).toHaveLength(4);
    const rec = await recover(s);
    expect(rec.code, rec.output).toBe(0);
    expect(rec.output).toContain("4 adopted");
    expect(rec.output).not.toContain(s.ws.webhooks.admin);
    expect(pending(s, "creating")).toHaveLength(0);
    expect(stateIds(s)).toEqual(made);

    const up = await s.run("up", PROGRAM, fresh());
    expect(up.ok, errorsOf(up)).toBe(true);
    expect(await held(s)).toEqual(made);
    expect(stateIds(s)).toEqual(made);

    // The converged stack destroyed, killed once the service had every delete.
    await killedWhileDelayed(s, "destroy", PROGRAM, "DELETE", { "/webhooks/v1/endpoints/*": 2, "/inboxes/v1/inboxes/*": 1, "/webhooks/v1/event-types/*": 1 });
    expect(await held(s)).toEqual([]);

    const dropped = await recover(s);
    expect(dropped.code, dropped.output).toBe(0);
    expect(pending(s, "deleting")).toHaveLength(0);
    const recreated = await s.run("up", PROGRAM, fresh());
    expect(recreated.ok, errorsOf(recreated)).toBe(true);
    expect(await held(s)).toHaveLength(4);
    expect(stateIds(s)).toEqual(await held(s));
  }, RUNS_TIMEOUT_MS * 2);

  it("killed up adding an endpoint with a description (unmarked) identical to one the state holds: recover names only the new object, refuses the held one, and the command it prints, then up, converge", async () => {
    const s = await stack("recover-unmarked");
    const first = [endpoint("a", { description: "tenant a" })];
    // Setup (the object the state holds): its preview proves nothing here.
    const created = await s.run("up", first, { verbOptions: { ...fresh().verbOptions, skipPreview: true } });
    expect(created.ok, errorsOf(created)).toBe(true);
    const [heldId] = await held(s);
    // A second resource with the same declared fields: the object the state holds looks like its candidate too.
    const program = [...first, { ...first[0]!, name: "a2" }];
    await killedWhileDelayed(s, "up", program, "POST", { "/webhooks/v1/endpoints": 1 });
    const id = (await held(s)).find((i) => i !== heldId)!;
    expect(id).toBeDefined();

    const rec = await recover(s);
    expect(rec.code, rec.output).not.toBe(0);
    expect(rec.output).toContain(id);
    expect(rec.output).not.toContain(heldId);
    const command = rec.output.split("\n").map((l) => l.trim()).find((l) => l.startsWith("pulumi-svc recover --adopt"));
    expect(command).toContain(id);
    const args = command!.split(" ").slice(2).map((a) => a.replace(/^'|'$/g, ""));
    // The user's word for an id another entry holds is refused, naming that entry.
    const wrong = await recover(s, args[0]!, args[1]!.replace(id, heldId!));
    expect(wrong.code, wrong.output).not.toBe(0);
    expect(wrong.output).toMatch(/not adopted: .* is held by urn:pulumi:.*::a/);
    const adopted = await recover(s, ...args);
    expect(adopted.code, adopted.output).toBe(0);
    expect(pending(s, "creating")).toHaveLength(0);

    const up = await s.run("up", program, fresh());
    expect(up.ok, errorsOf(up)).toBe(true);
    expect(await held(s)).toEqual([heldId, id].sort());
    expect(stateIds(s)).toEqual([heldId, id].sort());
  }, RUNS_TIMEOUT_MS);

  it("killed up, then a plain up on another runner (a duplicate), then recover: the killed run's object becomes the resource, the up's is kept for deletion, and the next up deletes it", async () => {
    const s = await stack("recover-after-up");
    const program = [endpoint("a")];
    await killedWhileDelayed(s, "up", program, "POST", { "/webhooks/v1/endpoints": 1 });
    const [killedRuns] = await held(s);
    const plain = await s.run("up", program, fresh());
    expect(plain.ok, errorsOf(plain)).toBe(true);
    expect(await held(s)).toHaveLength(2);

    const rec = await recover(s);
    expect(rec.code, rec.output).toBe(0);
    expect(rec.output).toContain("1 adopted");
    const up = await s.run("up", program, fresh());
    expect(up.ok, errorsOf(up)).toBe(true);
    expect(await held(s)).toEqual([killedRuns]);
    expect(stateIds(s)).toEqual([killedRuns]);
  }, RUNS_TIMEOUT_MS);

  it("killed up of a QuotaRequest (no owner mark): recover fails naming the filed request and the command to adopt it; that command, then up, converge", async () => {
    const s = await stack("recover-quota-request");
    const program: Declared[] = [{ kind: "infra:QuotaRequest", name: "launch", inputs: { service: "compute", region: "us-east-1", limits: { vms: 80 }, justification: "launch week load tests" } }];
    await killedWhileDelayed(s, "up", program, "POST", { "/infra/api/v1/quota-request/": 1 });
    const filed = async () => ((await call(emu(), "GET", "/infra/api/v1/quota-request/list", { key: s.ws.infra.member })).body.items as { id: string }[]).map((r) => r.id);
    const [id] = await filed();
    expect(id).toBeDefined();

    const rec = await recover(s);
    expect(rec.code, rec.output).not.toBe(0);
    expect(rec.output).toContain("cannot carry an owner mark");
    const command = rec.output.split("\n").map((l) => l.trim()).find((l) => l.startsWith("pulumi-svc recover --adopt"));
    expect(command).toContain(id);
    const adopted = await recover(s, ...command!.split(" ").slice(2).map((a) => a.replace(/^'|'$/g, "")));
    expect(adopted.code, adopted.output).toBe(0);
    expect(pending(s, "creating")).toHaveLength(0);

    const up = await s.run("up", program, fresh());
    expect(up.ok, errorsOf(up)).toBe(true);
    expect(await filed()).toEqual([id]);
    expect(stateIds(s)).toEqual([id]);
  }, RUNS_TIMEOUT_MS);
});
