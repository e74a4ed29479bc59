/**
 * Issue 35, finding I, under the real CLI with a fresh runner (HOME, PULUMI_HOME, TMPDIR) per
 * command: `pulumi up --replace <urn>` gives the replaced resource's Check no old inputs and
 * calls no Diff, so no resource's own record is compared before its create. The native
 * plugin's CheckConfig gets the provider's old config: a stack config key changed to one of
 * another workspace fails there, naming both, before any step (with or without the preview),
 * and nothing is created anywhere; another key of the same workspace passes. Where the old
 * key reached is kept in the provider's state (CheckConfig's answer), so the change fails
 * the same when the old key was revoked since. The dynamic front end's limit: provider/README.md "Limits".
 */
import { describe, expect, it } from "vitest";
import type { Workspace } from "../provider/support";
import { call, control, lastSeq, requestsSince, useEmulator } from "../support/emulator";
import { loadCliState, pulumiAsync, runCli, stackArgs } from "../support/pulumi-cli";
import { NATIVE_MISSING, nativeStack, writesOf, type NativeStack } from "../native/support";
import { freshRunner } from "../ownership/support";

const emu = useEmulator();


const PROGRAM = `
resources:
  a:
    type: svc:webhooks:Endpoint
    properties:
      url: https://hooks.example.com/a
`;

/** The endpoints of a workspace, listed with `key` (its read key where the admin key may be revoked). */
const endpointsIn = async (key: string) => ((await call(emu(), "GET", "/webhooks/v1/endpoints", { key })).body.data as { id: string }[]).map((e) => e.id);

/**
 * The stack's first up, then its stack config given another workspace's keys (by a plain preview, which fails
 * too: the endpoint's Diff compares); then `pulumi up --replace` of the endpoint, with and without the preview, must
 * fail naming both workspaces, write nothing and leave the state as it was.
 */
async function replaceRefused(s: NativeStack, before: () => Promise<void> = async () => {}) {
  const own = s.options("up");
  const made = await runCli({ ...own, env: { ...own.env, ...freshRunner() } });
  expect(made.ok, made.summary).toBe(true);
  const urn = loadCliState(own).find((r) => r.type === "svc:webhooks:Endpoint")!.urn;
  const held = await endpointsIn(s.ws.webhooks.admin);
  expect(held).toHaveLength(1);
  await before();

  const other = await control<Workspace>(emu(), "POST", "/workspaces", { plan: "enterprise" });
  const keys = { "svc:webhooksApiKey": other.webhooks.admin, "svc:inboxesApiKey": other.inboxes.admin, "svc:infraApiKey": other.infra.member };
  const wrong = s.options("preview", {}, keys);
  expect((await runCli({ ...wrong, env: { ...wrong.env, ...freshRunner() } })).ok).toBe(false);
  const stateBefore = JSON.stringify(loadCliState(own));
  for (const extra of [[], ["--skip-preview"]]) {
    const since = await lastSeq(emu());
    const run = await pulumiAsync({ ...wrong, env: { ...wrong.env, ...freshRunner() } }, ["up", "--replace", urn, "--yes", ...extra, ...stackArgs(wrong)]);
    const output = (run.output + run.stderr).replace(/\s+/g, " ");
    expect(run.code, output).not.toBe(0);
    expect(output).toContain(`The key of \`svc:webhooksApiKey\` was changed to one of workspace ${other.workspace_id}; the key it replaces reached workspace ${s.ws.workspace_id}`);
    expect(writesOf(await requestsSince(emu(), since)), extra.join(" ")).toEqual([]);
    expect(JSON.stringify(loadCliState(own))).toBe(stateBefore);
  }
  expect(await endpointsIn(other.webhooks.admin)).toEqual([]);
  expect(await endpointsIn(s.ws.webhooks.read)).toEqual(held);
}

describe.skipIf(NATIVE_MISSING !== undefined)("pulumi up --replace with another workspace's key in the stack config (native plugin)", () => {
  it("fails before any step, naming both workspaces, with or without the preview; nothing is created; a rotation passes", async () => {
    const s = await nativeStack(emu(), "keys-replace", PROGRAM);
    await replaceRefused(s);

    // Another key of the same workspace (a rotation) is no move: the preview passes, with no change.
    const rotated = s.options("preview", {}, { "svc:webhooksApiKey": s.ws.webhooks.read });
    const preview = await runCli({ ...rotated, env: { ...rotated.env, ...freshRunner() } });
    expect(preview.ok, preview.summary).toBe(true);
    expect(preview.steps.filter((st) => st.op !== "same")).toEqual([]);
  });

  it("the old key revoked before the change (a rotation's): where it reached is in the provider's state, and the change still fails naming both (adv35d Y6)", async () => {
    const s = await nativeStack(emu(), "keys-revoked", PROGRAM);
    await replaceRefused(s, () => control(emu(), "POST", "/keys/revoke", { key: s.ws.webhooks.admin }));
  });
});
