/**
 * Issue 35, item 1, under the real CLI with a fresh runner (HOME, PULUMI_HOME, TMPDIR) per
 * command: a stack given another workspace's keys never loses a state entry and never
 * creates in the wrong place. `up` fails its preview naming both workspaces, before
 * anything is stored; refresh and destroy lose nothing; back on the stack's own keys,
 * everything converges with no change. A state written before this release (no entry records
 * its workspace) loses nothing either: a 404 proves nothing, and a setting is not written
 * through an unproven key. In process, per kind family: test/provider/reach.test.ts.
 */
import { readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { Workspace } from "../provider/support";
import { call, control, useEmulator } from "../support/emulator";
import { CLI_MISSING, errorsOf, freshRunner, RUNS_TIMEOUT_MS, useOwnershipStacks, type Declared, type OwnershipStack } from "../ownership/support";

const emu = useEmulator();
const stack = useOwnershipStacks(emu);

/**
 * A fresh runner whose environment holds the keys (as a pipeline gives them:
 * SVC_WEBHOOKS_API_KEY, SVC_INBOXES_API_KEY, SVC_INFRA_API_KEY), the stack config none: `webhooksKey`
 * replaces the workspace's Webhooks admin key. Refresh and destroy use these too (the
 * keys the state keeps are only the config's).
 */
const withKeysOf = (ws: Workspace, webhooksKey?: string) => ({
  verbOptions: { env: { ...freshRunner(), SVC_WEBHOOKS_API_KEY: webhooksKey ?? ws.webhooks.admin, SVC_INBOXES_API_KEY: ws.inboxes.admin, SVC_INFRA_API_KEY: ws.infra.member }, secrets: {} },
});

const PROGRAM: Declared[] = [
  ...["a", "b", "c"].map((name) => ({ kind: "webhooks:Endpoint", name, inputs: { url: `https://hooks.example.com/${name}` } })),
  { kind: "inboxes:Inbox", name: "bin", inputs: { transport: "http" } },
];

/** Each state entry's id and outputs, by id (an up may save its entries in the order the program registered them): what must not change. */
const snapshot = (s: OwnershipStack) =>
  s
    .state()
    .map((r) => ({ id: r.id, outputs: r.outputs }))
    .sort((x, y) => String(x.id).localeCompare(String(y.id)));

async function liveIn(ws: Workspace): Promise<string[]> {
  const list = async (path: string, key: string) => ((await call(emu(), "GET", `${path}?limit=200`, { key })).body.data as { id: string }[]).map((o) => o.id);
  return [...(await list("/webhooks/v1/endpoints", ws.webhooks.admin)), ...(await list("/inboxes/v1/inboxes", ws.inboxes.admin))].sort();
}

describe.skipIf(CLI_MISSING !== undefined)("another workspace's keys, on a fresh runner per command", () => {
  // One stack for both (its first up made once): the confined key runs from where the other workspace's keys left it,
  // converged back to the same state (asserted), within the time of the two tests it merges.
  it("up fails its preview naming both workspaces; refresh and destroy lose nothing; the stack's own keys converge with no change. Then a key confined to another project of the workspace: up fails at preview naming both projects and an inbox alone names its workspace; nothing stored", async () => {
    const s = await stack("workspace-keys");
    const other = await control<Workspace>(emu(), "POST", "/workspaces", { plan: "enterprise" });
    // Setup: its preview proves nothing here (the ups under test preview, and fail there).
    const up = await s.run("up", PROGRAM, { verbOptions: { ...withKeysOf(s.ws).verbOptions, skipPreview: true } });
    expect(up.ok, errorsOf(up)).toBe(true);
    const before = snapshot(s);
    const made = await liveIn(s.ws);
    expect(made).toHaveLength(4);
    expect(s.state().filter((r) => r.type.endsWith("webhooks:Endpoint")).map((r) => r.outputs?.__workspace)).toEqual([s.ws.workspace_id, s.ws.workspace_id, s.ws.workspace_id]);

    const wrongUp = await s.writes("up", PROGRAM, withKeysOf(other));
    expect(wrongUp.result.ok, wrongUp.result.summary).toBe(false);
    // The engine starts no step after the first failure: the endpoints' or the inbox's check names its two workspaces first.
    expect(errorsOf(wrongUp.result)).toMatch(
      new RegExp(
        `The key of \`svc:webhooksApiKey\` belongs to workspace ${other.workspace_id}; this stack's endpoint ep_\\w+ lives in workspace ${s.ws.workspace_id}` +
          `|The key of \`svc:inboxesApiKey\` belongs to a workspace where no inbox was ever made .*; this stack's inbox inb_\\w+ lives in the workspace whose oldest audit entry is aud_\\w+`,
      ),
    );
    expect(wrongUp.writes).toEqual([]);
    expect(snapshot(s)).toEqual(before);

    for (const verb of ["refresh", "destroy"] as const) {
      const run = await s.writes(verb, PROGRAM, withKeysOf(other));
      expect(run.result.ok, verb).toBe(false);
      expect(errorsOf(run.result), verb).toMatch(/belongs to (the )?workspace .*; this stack's .* lives in (the )?workspace/);
      expect(run.writes, verb).toEqual([]);
      expect(snapshot(s), verb).toEqual(before);
    }
    expect(await liveIn(s.ws)).toEqual(made);
    expect(await liveIn(other)).toEqual([]);
    const back = await s.writes("up", PROGRAM, withKeysOf(s.ws));
    expect(back.result.ok, errorsOf(back.result)).toBe(true);
    expect(back.writes).toEqual([]);
    expect(snapshot(s)).toEqual(before);

    // A key confined to another project of the workspace, from the state the own keys' up left (as the first up made it).
    const project = (await control<{ id: string }>(emu(), "POST", "/projects", { workspace_id: s.ws.workspace_id, name: "other" })).id;
    const confined = (await control<{ key: string }>(emu(), "POST", "/keys", { product: "webhooks", scope: "admin", workspace_id: s.ws.workspace_id, project_id: project })).key;
    const wrong = await s.writes("up", PROGRAM, withKeysOf(s.ws, confined));
    expect(wrong.result.ok).toBe(false);
    expect(errorsOf(wrong.result)).toMatch(new RegExp(`The key of \`svc:webhooksApiKey\` is confined to project ${project} of workspace ${s.ws.workspace_id}; this stack's endpoint ep_\\w+ lives in project ${s.ws.project_id}`));
    expect(wrong.writes).toEqual([]);
    expect(snapshot(s)).toEqual(before);

    // Another workspace than the one above, whose audit log has an entry: a workspace where an inbox was made.
    const inboxWorkspace = await control<Workspace>(emu(), "POST", "/workspaces", { plan: "enterprise" });
    const inboxOnly = PROGRAM.filter((r) => r.kind === "inboxes:Inbox");
    const withOtherInboxes = withKeysOf(s.ws);
    withOtherInboxes.verbOptions.env.SVC_INBOXES_API_KEY = inboxWorkspace.inboxes.admin;
    await call(emu(), "POST", "/inboxes/v1/inboxes", { key: inboxWorkspace.inboxes.admin, body: { transport: "http" } });
    const wrongInbox = await s.writes("up", PROGRAM.filter((r) => r.kind !== "inboxes:Inbox").concat(inboxOnly), withOtherInboxes);
    expect(wrongInbox.result.ok).toBe(false);
    expect(errorsOf(wrongInbox.result)).toMatch(/The key of `svc:inboxesApiKey` belongs to the workspace whose oldest audit entry is aud_\w+; this stack's inbox inb_\w+ lives in the workspace whose oldest audit entry is aud_\w+/);
    expect(wrongInbox.writes).toEqual([]);
    expect(snapshot(s)).toEqual(before);
  }, RUNS_TIMEOUT_MS * 2);

  it("a state written before this release (no recorded workspace) with another workspace's keys: refresh and up fail naming what to do and lose nothing; nothing is written in either workspace; the own keys converge", async () => {
    const s = await stack("pre-release-keys");
    const other = await control<Workspace>(emu(), "POST", "/workspaces", { plan: "enterprise" });
    const program: Declared[] = [
      ...PROGRAM,
      { kind: "webhooks:EventTypePolicy", name: "policy", inputs: { policy: "strict" } },
      { kind: "infra:QuotaRequest", name: "more-vms", inputs: { service: "compute", region: "eu-west-1", limits: { vms: 60 }, justification: "pre-release state" } },
    ];
    // Setup: its preview proves nothing here (the state is then rewritten as an older release wrote it).
    const up = await s.run("up", program, { verbOptions: { ...withKeysOf(s.ws).verbOptions, skipPreview: true } });
    expect(up.ok, errorsOf(up)).toBe(true);
    // As the release before this one wrote it: no entry records its workspace.
    const files = (dir: string): string[] => readdirSync(dir).flatMap((f) => (statSync(join(dir, f)).isDirectory() ? files(join(dir, f)) : [join(dir, f)]));
    for (const file of files(`${s.ref.stateFile}.pulumi`).filter((f) => f.endsWith(`${s.ref.stack}.json`))) writeFileSync(file, readFileSync(file, "utf8").replace(/"__workspace":\s*"[^"]*",?/g, ""));
    expect(s.state().map((r) => r.outputs?.__workspace).filter(Boolean)).toEqual([]);
    const ids = () => s.state().map((r) => r.id).sort();
    const held = ids();
    const policy = async (ws: Workspace) => (await call(emu(), "GET", "/webhooks/v1/event-types/policy", { key: ws.webhooks.admin })).body.policy;

    for (const verb of ["refresh", "up"] as const) {
      const run = await s.writes(verb, program, withKeysOf(other));
      expect(run.result.ok, verb).toBe(false);
      expect(errorsOf(run.result), verb).toMatch(/was not found with the key of `svc:(webhooks|inboxes)ApiKey` .*the state does not say where it lives|The key of `svc:infraApiKey` belongs to project \w+; this stack's quota request qr_\w+ lives in project|is not changed with the key of `svc:webhooksApiKey`/);
      expect(run.writes, verb).toEqual([]);
      expect(ids(), verb).toEqual(held);
    }
    expect([await policy(s.ws), await policy(other)]).toEqual(["strict", "lenient"]);
    expect(await liveIn(other)).toEqual([]);

    const refresh = await s.writes("refresh", program, withKeysOf(s.ws));
    expect(refresh.result.ok, errorsOf(refresh.result)).toBe(true);
    const back = await s.writes("up", program, withKeysOf(s.ws));
    expect(back.result.ok, errorsOf(back.result)).toBe(true);
    expect([refresh.writes, back.writes]).toEqual([[], []]);
    expect(ids()).toEqual(held);
  }, RUNS_TIMEOUT_MS);
});
