/**
 * The bad inputs of bad-inputs.test.ts in a program, under the real Pulumi CLI: each
 * fails preview with the property and the limit and writes nothing; headers given as a
 * Map are applied as their entries.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, expect, it } from "vitest";
import type { EngineResult } from "../support/run-types";
import { describeWithCli } from "../support/cli-suite";
import { runCli } from "../support/pulumi-cli";
import type { Workspace } from "../provider/support";
import { control, lastSeq, requestsSince, useEmulator } from "../support/emulator";
import { emulatorStack } from "../support/stack-config";

const emu = useEmulator();
let ws: Workspace;

beforeAll(async () => {
  ws = await control<Workspace>(emu(), "POST", "/workspaces", { plan: "enterprise" });
});

describeWithCli("through the engine: the same mistakes in a program", () => {
  const errorsOf = (r: EngineResult) => r.diagnostics.filter((d) => d.severity === "error").map((d) => d.message).join("\n");
  const run = (verb: "preview" | "up", kase: string, config: Record<string, string> = {}) =>
    runCli({
      verb,
      cwd: join(__dirname, "..", "provider", "fixtures", "mistakes"),
      stack: kase,
      stateFile: join(mkdtempSync(join(tmpdir(), "svc-bad-")), `${kase}.json`),
      ...emulatorStack(emu(), { webhooks: ws.webhooks.admin, inboxes: ws.inboxes.admin, infra: ws.infra.admin }, { config: { case: kase, ...config }, env: { SVC_SKIP_REMOTE_CHECKS: "" } }),
    });

  it.each<{ kase: string; config: Record<string, string>; expected: string | RegExp }>([
    // The engine's words for a Check failure: "property <name> value <value> has a problem: <reason>".
    { kase: "control-label", config: {}, expected: /property label value .* has a problem: String holds the control character U\+0007/s },
    { kase: "prototype-header", config: {}, expected: "Header name '__proto__' is a JavaScript prototype key" },
    { kase: "constructor-header", config: {}, expected: "Header name 'constructor' is a JavaScript prototype key" },
    { kase: "unknown-managed-header", config: {}, expected: /property customHeaders .*Header 'Content-Type' is set by the service and cannot be customised/s },
    { kase: "array-headers", config: {}, expected: /property customHeaders .*expected record, received array/s },
    { kase: "huge-quota", config: {}, expected: "less_than_equal, limit 1000000000" },
    // Offline: the plan's ceiling cannot be read, the bound still holds.
    { kase: "huge-attempts", config: { "svc:skipRemoteChecks": "true" }, expected: "less_than_equal, limit 100" },
  ])("$kase: preview fails with the property and the limit, and nothing is written", async ({ kase, config, expected }) => {
    const since = await lastSeq(emu());
    const r = await run("preview", kase, config);
    expect(r.ok).toBe(false);
    expect(errorsOf(r)).toMatch(expected);
    // A check failure, never an exception in the program with its stack trace (adv14b F7).
    expect(r.diagnostics.map((d) => d.message).join("\n")).not.toMatch(/^\s+at |\.[jt]s:\d+/m);
    expect((await requestsSince(emu(), since)).filter((c) => c.method !== "GET")).toEqual([]);
  });

  it("headers given as a Map are applied as their entries, not dropped", async () => {
    const r = await run("up", "map-headers");
    expect(r.ok, errorsOf(r)).toBe(true);
    expect(r.outputs.headerNames).toEqual(["X-Team"]);
  });
});
