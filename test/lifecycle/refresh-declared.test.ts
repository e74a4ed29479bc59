/**
 * Refresh shows only what the user declared: under the real CLI, an endpoint (with a
 * secret header, so its inputs carry the SDK's `__secretInputs` and `__resource`)
 * whose description was changed outside Pulumi refreshes as an update of
 * `description` alone, the source beside it as unchanged, and neither the refresh's
 * diff nor the next `preview --diff` names an internal key (provider/engine/internal-keys.ts);
 * the same for a YAML program of the native plugin.
 * The dynamic Read is given the outputs only, not the state's inputs: the inputs it
 * answers with carry the internal keys the outputs keep (guard.ts), or the engine would
 * show each as moved.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import type { EngineOptions } from "../support/run-types";
import { NATIVE_MISSING, nativeStack } from "../native/support";
import type { Workspace } from "../provider/support";
import { describeWithCli } from "../support/cli-suite";
import { call, control, useEmulator } from "../support/emulator";
import { pulumiAsync, runCli, stackArgs } from "../support/pulumi-cli";
import { emulatorStack } from "../support/stack-config";

const emu = useEmulator();

describeWithCli("refresh of a drifted endpoint shows only declared fields", () => {
  let ws: Workspace;
  let dir: string;
  beforeAll(async () => {
    ws = await control<Workspace>(emu(), "POST", "/workspaces", { plan: "enterprise" });
    dir = mkdtempSync(join(tmpdir(), "svc-refresh-declared-"));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("refresh: description alone moved; preview --diff: description alone", async () => {
    const opts = (verb: EngineOptions["verb"]): EngineOptions => ({
      verb,
      cwd: join(__dirname, "..", "secrets", "fixtures", "streams"),
      stack: "refresh",
      stateFile: join(dir, "state.json"),
      ...emulatorStack(
        emu(),
        { webhooks: ws.webhooks.admin },
        {
          secrets: { "svc-secret-streams:headerValue": "Bearer h", "svc-secret-streams:signingSecret": "whsec_refresh_declared_0001", "svc-secret-streams:sourceSecret": "s" },
          env: { SVC_SKIP_REMOTE_CHECKS: "" },
        },
      ),
    });
    const up = await runCli(opts("up"));
    expect(up.ok, up.summary).toBe(true);
    const list = await call(emu(), "GET", "/webhooks/v1/endpoints", { key: ws.webhooks.admin });
    const id = (list.body as { data: { id: string }[] }).data[0]!.id;
    expect((await call(emu(), "PATCH", `/webhooks/v1/endpoints/${id}`, { key: ws.webhooks.admin, body: { description: "theirs" } })).status).toBe(200);

    const refresh = await runCli(opts("refresh"));
    expect(refresh.ok, refresh.summary).toBe(true);
    const steps = Object.fromEntries(refresh.steps.filter((s) => s.type.includes("svc")).map((s) => [s.name, [s.op, s.diffs]]));
    expect(steps).toEqual({ hook: ["update", ["description"]], payments: ["same", []] });

    const preview = await pulumiAsync(opts("preview"), ["preview", "--diff", ...stackArgs(opts("preview"))]);
    expect(preview.code, preview.output + preview.stderr).toBe(0);
    expect(preview.output).toMatch(/~ ?description/);
    expect(preview.output).not.toMatch(/__(secretInputs|resource|provider|shape)/);
  });

  it.skipIf(NATIVE_MISSING !== undefined)("the native plugin (a YAML program): refresh moves description alone", async () => {
    const program = `
config:
  token: { type: string, secret: true }
resources:
  hook:
    type: svc:webhooks:Endpoint
    properties:
      url: https://refresh.example.com/in
      description: mine
      customHeaders:
        Authorization: \${token}
`;
    const s = await nativeStack(emu(), "refresh-yaml", program, { ws });
    const up = await s.run("up", {}, { token: "Bearer t" });
    expect(up.ok, up.summary).toBe(true);
    const list = await call(emu(), "GET", "/webhooks/v1/endpoints", { key: ws.webhooks.admin });
    const id = (list.body as { data: { id: string; url: string }[] }).data.find((e) => e.url === "https://refresh.example.com/in")!.id;
    expect((await call(emu(), "PATCH", `/webhooks/v1/endpoints/${id}`, { key: ws.webhooks.admin, body: { description: "theirs" } })).status).toBe(200);
    const refresh = await s.run("refresh", {}, { token: "Bearer t" });
    expect(refresh.ok, refresh.summary).toBe(true);
    expect(refresh.steps.filter((st) => st.type.startsWith("svc:")).map((st) => [st.name, st.op, st.diffs])).toEqual([["hook", "update", ["description"]]]);
  });
});
