/**
 * Issue 35, finding I, under the real CLI with a fresh runner (HOME, PULUMI_HOME, TMPDIR) per
 * command: `pulumi up --replace <urn>` gives the replaced resource's Check no old inputs and
 * calls no Diff, so no resource's own record is compared before its create. The native
 * plugin's CheckConfig gets the provider's old config: a stack config key changed to one of
 * another workspace fails there, naming both, before any step (with or without the preview),
 * and nothing is created anywhere; another key of the same workspace passes. The dynamic front end's limit: provider/README.md "Limits".
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { Workspace } from "../provider/support";
import { call, control, lastSeq, requestsSince, useEmulator } from "../support/emulator";
import { loadCliState, pulumiAsync, runCli, stackArgs } from "../support/pulumi-cli";
import { NATIVE_MISSING, nativeStack, writesOf } from "../native/support";

const emu = useEmulator();

const dirs: string[] = [];
afterAll(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));
/** A new HOME, PULUMI_HOME and TMPDIR: what a fresh CI runner has. */
const freshRunner = () => {
  const dir = (what: string) => {
    const d = mkdtempSync(join(tmpdir(), `svc-runner-${what}-`));
    dirs.push(d);
    return d;
  };
  return { HOME: dir("home"), PULUMI_HOME: dir("pulumi-home"), TMPDIR: dir("tmp") };
};

const PROGRAM = `
resources:
  a:
    type: svc:webhooks:Endpoint
    properties:
      url: https://hooks.example.com/a
`;

const endpointsIn = async (ws: Workspace) => ((await call(emu(), "GET", "/webhooks/v1/endpoints", { key: ws.webhooks.admin })).body.data as { id: string }[]).map((e) => e.id);

describe.skipIf(NATIVE_MISSING !== undefined)("pulumi up --replace with another workspace's key in the stack config (native plugin)", () => {
  it("fails before any step, naming both workspaces, with or without the preview; nothing is created", async () => {
    const s = await nativeStack(emu(), "keys-replace", PROGRAM);
    const own = s.options("up");
    const made = await runCli({ ...own, env: { ...own.env, ...freshRunner() } });
    expect(made.ok, made.summary).toBe(true);
    const urn = loadCliState(own).find((r) => r.type === "svc:webhooks:Endpoint")!.urn;
    const before = await endpointsIn(s.ws);
    expect(before).toHaveLength(1);

    const other = await control<Workspace>(emu(), "POST", "/workspaces", { plan: "enterprise" });
    const keys = { "svc:webhooksApiKey": other.webhooks.admin, "svc:inboxesApiKey": other.inboxes.admin, "svc:infraApiKey": other.infra.member };
    const wrong = s.options("preview", {}, keys);
    // A plain preview with the other keys writes them into the stack's config (and fails too: the endpoint's Diff compares).
    expect((await runCli({ ...wrong, env: { ...wrong.env, ...freshRunner() } })).ok).toBe(false);
    const stateBefore = JSON.stringify(loadCliState(own));
    for (const extra of [[], ["--skip-preview"]]) {
      const since = await lastSeq(emu());
      const run = await pulumiAsync({ ...wrong, env: { ...wrong.env, ...freshRunner() } }, ["up", "--replace", urn, "--yes", ...extra, ...stackArgs(wrong)]);
      const output = (run.output + run.stderr).replace(/\s+/g, " ");
      expect(run.code, output).not.toBe(0);
      expect(output).toContain(`The key of \`svc:webhooksApiKey\` was changed to one of workspace ${other.workspace_id}; the key it replaces belongs to workspace ${s.ws.workspace_id}`);
      expect(writesOf(await requestsSince(emu(), since)), extra.join(" ")).toEqual([]);
      expect(JSON.stringify(loadCliState(own))).toBe(stateBefore);
    }
    expect(await endpointsIn(s.ws)).toEqual(before);
    expect(await endpointsIn(other)).toEqual([]);

    // Another key of the same workspace (a rotation) is no move: the preview passes, with no change.
    const rotated = s.options("preview", {}, { "svc:webhooksApiKey": s.ws.webhooks.read });
    const preview = await runCli({ ...rotated, env: { ...rotated.env, ...freshRunner() } });
    expect(preview.ok, preview.summary).toBe(true);
    expect(preview.steps.filter((st) => st.op !== "same")).toEqual([]);
  });
});
