/**
 * `pulumi-svc recover` for a YAML program of the native plugin (`svc:webhooks:Endpoint`,
 * `svc:inboxes:Inbox`), under the real CLI, every command on a fresh runner: an `up`
 * killed after the service made its three objects (their answers lost), then recover
 * adopts each by its owner mark, and the next `up` converges with no write: the service
 * holds exactly what the state holds. (The SDK's resources: test/ownership/recover.)
 */
import { describe, expect, it } from "vitest";
import { call, lastSeq, requestsSince, useEmulator } from "../support/emulator";
import { loadCliDeployment } from "../support/pulumi-cli";
import { recoverStack } from "../support/recover";
import { freshRunner, killedWhileActing, RUNS_TIMEOUT_MS } from "../ownership/support";
import { NATIVE_MISSING, nativeStack, writesOf, type NativeStack } from "./support";

const emu = useEmulator();

const PROGRAM = `
resources:
  a:
    type: svc:webhooks:Endpoint
    properties:
      url: https://hooks.example.com/a
  b:
    type: svc:webhooks:Endpoint
    properties:
      url: https://hooks.example.com/b
  box:
    type: svc:inboxes:Inbox
    properties:
      expiresInMinutes: 600
`;

/** The ids of the endpoints and inboxes the service holds for the stack's workspace. */
async function held(s: NativeStack): Promise<string[]> {
  const list = async (path: string, key: string) => ((await call(emu(), "GET", `${path}?limit=200`, { key })).body.data as { id: string }[]).map((o) => o.id);
  return [...(await list("/webhooks/v1/endpoints", s.ws.webhooks.admin)), ...(await list("/inboxes/v1/inboxes", s.ws.inboxes.admin))].sort();
}

const deployment = (s: NativeStack) => loadCliDeployment(s.options("preview"));
const stateIds = (s: NativeStack) => (deployment(s).resources ?? []).filter((r) => String(r.type).startsWith("svc:") && !String(r.type).startsWith("pulumi:")).map((r) => String(r.id)).sort();

if (NATIVE_MISSING) console.log(`recover of a YAML program under the real CLI: skipped: ${NATIVE_MISSING}`);
describe.skipIf(NATIVE_MISSING !== undefined)("pulumi-svc recover: a YAML program's killed up, on fresh runners", () => {
  it("recover adopts the three objects the killed up made, by their marks; the next up writes nothing; no orphan, no duplicate", async () => {
    const s = await nativeStack(emu(), "recoveryaml", PROGRAM);
    const ref = s.options("up");
    await killedWhileActing(emu(), ref, (verbOptions) => s.run("up", undefined, undefined, verbOptions), "POST", { "/webhooks/v1/endpoints": 2, "/inboxes/v1/inboxes": 1 });
    const made = await held(s);
    expect(made).toHaveLength(3);
    expect((deployment(s).pending_operations ?? []).filter((op) => op.type === "creating")).toHaveLength(3);

    // A fresh runner with the stack's PATH: the CLI and the plugin's launcher, as the README's PATH line gives them.
    const rec = await recoverStack(ref, { ...ref.env, ...freshRunner() });
    expect(rec.code, rec.output).toBe(0);
    expect(rec.output).toContain("3 adopted");
    expect(rec.output).not.toContain(s.ws.webhooks.admin);
    expect(deployment(s).pending_operations ?? []).toEqual([]);
    expect(stateIds(s)).toEqual(made);

    const since = await lastSeq(emu());
    const up = await s.run("up", undefined, undefined, { env: freshRunner() });
    expect(up.ok, up.diagnostics.map((d) => d.message).join("\n")).toBe(true);
    expect(writesOf(await requestsSince(emu(), since))).toEqual([]);
    expect(await held(s)).toEqual(made);
    expect(stateIds(s)).toEqual(made);
  }, RUNS_TIMEOUT_MS);
});
