// Failures: partial creates/updates, refused creates and checks, program errors,
// and a run killed in the middle of a create.

import { spawn, spawnSync } from "node:child_process";
import * as path from "node:path";
import { describe, expect, test } from "vitest";
import { kvScenarios, KV_PROGRAM, type KvScenario, errors, opsByName, stepOf, type KvSpec } from "./kv-scenario";

const scenario = kvScenarios();

const CLI = path.join(__dirname, "cli.ts");
const TSX = require.resolve("tsx/cli");

function cliArgs(s: KvScenario, verb: string, resources: KvSpec[], extra: string[] = []): string[] {
  return [
    TSX, CLI, verb,
    "--cwd", KV_PROGRAM,
    "--stack", s.stack,
    "--state", s.stateFile,
    "--config", `kvstore:dir=${s.dir}`,
    "--config", `kvtest:resources=${JSON.stringify(resources)}`,
    // Not about the preview: skip it, as kv-scenario's runs do.
    ...(verb === "up" ? ["--skip-preview"] : []),
    ...extra,
  ];
}

describe("partial failure", () => {
  test("a partially created object stays in state with its id and is updated on the next run", async () => {
    const s = scenario();
    const spec: KvSpec[] = [{ name: "x", props: { label: "x", value: 1, fail: "partial-create" } }];
    const r1 = await s.run("up", spec);
    expect(r1.ok).toBe(false);
    expect(errors(r1)).toMatch(/follow-up configuration failed/);
    expect(stepOf(r1.steps, "x")).toMatchObject({ op: "create", failed: true });
    const id = s.idOf("x");
    expect(Object.keys(s.objects())).toEqual([id]);
    const st = s.checkpoint().checkpoint.latest;
    expect(st.resources.find((x) => x.urn.endsWith("::x"))?.initErrors).toEqual(["follow-up configuration failed"]);
    expect(st.pending_operations).toEqual([]);

    // Same program again: the diff finds no change, but the init error forces an update.
    s.clearCalls();
    const r2 = await s.run("up", spec);
    expect(r2.ok, errors(r2)).toBe(true);
    expect(stepOf(r2.steps, "x").op).toBe("update");
    expect(s.calls().map((c) => c.op)).not.toContain("create");
    expect(s.calls().find((c) => c.op === "update")?.id).toBe(id);
    expect(s.checkpoint().checkpoint.latest.resources.find((x) => x.urn.endsWith("::x"))?.initErrors).toBeUndefined();
  });

  test("a partially failed update keeps the old inputs (with the new outputs) and is retried", async () => {
    const s = scenario();
    await s.run("up", [{ name: "x", props: { label: "x", value: 1 } }]);
    const r = await s.run("up", [{ name: "x", props: { label: "x", value: 2, fail: "partial-update" } }]);
    expect(r.ok).toBe(false);
    const x = s.checkpoint().checkpoint.latest.resources.find((v) => v.urn.endsWith("::x"))!;
    expect(x.initErrors).toHaveLength(1);
    // As pkg/engine/update.go OnResourceStepPost (pulumi#2011): old inputs, new outputs.
    expect(x.inputs["value"]).toBe(1);
    expect(x.outputs["value"]).toBe(2);
    const p = await s.run("preview", [{ name: "x", props: { label: "x", value: 2, fail: "partial-update" } }]);
    expect(stepOf(p.steps, "x").op).toBe("update");
  });

  test("a refused create leaves nothing in state", async () => {
    const s = scenario();
    const r = await s.run("up", [{ name: "x", props: { label: "x", value: 1, fail: "create" } }]);
    expect(r.ok).toBe(false);
    expect(errors(r)).toMatch(/refused to create/);
    expect(s.checkpoint().checkpoint.latest.resources.some((x) => x.urn.endsWith("::x"))).toBe(false);
    expect(s.checkpoint().checkpoint.latest.pending_operations).toEqual([]);
  });

  test("check failures fail preview with the property and reason", async () => {
    const s = scenario();
    const r = await s.run("preview", [{ name: "x", props: { label: "x", value: 1, fail: "check" } }]);
    expect(r.ok).toBe(false);
    expect(errors(r)).toMatch(/fail: check refused this input/);
  });
});

describe("program errors", () => {
  test("a throwing program exits non-zero with the diagnostic, and deletes nothing", async () => {
    const s = scenario();
    await s.run("up", [{ name: "a", props: { label: "a", value: 1 } }]);
    const res = spawnSync(process.execPath, cliArgs(s, "up", [], ["--config", "kvtest:throw=boom-from-the-program"]), { encoding: "utf8" });
    expect(res.status).not.toBe(0);
    expect(res.stdout).toMatch(/error: Running program .* failed with an unhandled exception:\s+Error: boom-from-the-program/);
    expect(res.stdout).toMatch(/Result: FAILED/);
    expect(Object.keys(s.objects())).toHaveLength(1);
    expect(s.idOf("a")).toBeTruthy();

    const json = spawnSync(process.execPath, cliArgs(s, "preview", [], ["--config", "kvtest:throw=boom-again", "--json"]), { encoding: "utf8" });
    expect(json.status).toBe(1);
    const parsed = JSON.parse(json.stdout) as { ok: boolean; diagnostics: { severity: string; message: string }[] };
    expect(parsed.ok).toBe(false);
    expect(parsed.diagnostics.some((d) => d.severity === "error" && d.message.includes("boom-again"))).toBe(true);
  });
});

describe("interrupted run", () => {
  test("pending operations left by a killed run are reported by the next run; refresh keeps a pending create until --clear-pending-creates", async () => {
    const s = scenario();
    await s.run("up", [{ name: "a", props: { label: "a", value: 1 } }]);
    const spec: KvSpec[] = [
      { name: "a", props: { label: "a", value: 1 } },
      { name: "h", props: { label: "h", value: 1, fail: "hang-create" } },
    ];
    // The CLI in its own process group, so that it, the program and the plugin can be killed together.
    const child = spawn(process.execPath, cliArgs(s, "up", spec), { detached: true, stdio: "ignore" });
    try {
      // Wait until the create reached the service (the plugin hangs right after writing).
      await waitFor(() => Object.values(s.objects()).some((o) => o["label"] === "h"));
    } finally {
      process.kill(-child.pid!, "SIGKILL");
    }
    await new Promise((r) => child.once("exit", r));

    const pending = s.checkpoint().checkpoint.latest.pending_operations ?? [];
    expect(pending.map((p) => [p.type, p.resource.urn])).toEqual([["creating", expect.stringMatching(/::h$/)]]);
    expect(s.checkpoint().checkpoint.latest.resources.some((x) => x.urn.endsWith("::h"))).toBe(false);

    // The next run says so, and tells the user what to do.
    const p = await s.run("preview", spec.map((x) => ({ ...x, props: { ...x.props, fail: undefined } })));
    expect(p.pendingOperations).toEqual([{ urn: expect.stringMatching(/::h$/), type: "pulumi-nodejs:dynamic/kv:Object", op: "creating", id: undefined }]);
    const warning = p.diagnostics.find((d) => d.severity === "warning" && d.message.includes("pending operation"));
    expect(warning?.message).toMatch(/interrupted while creating/);
    expect(warning?.message).toMatch(/refresh/);
    expect(p.summary).toMatch(/Pending operations from an interrupted run:\n\s+creating urn:.*::h/);
    expect(opsByName(p.steps)["h"]).toBe("create");

    // Refresh keeps the pending create (the CLI asks, or wants --clear-pending-creates),
    // warning that the object may exist in the service; --clear-pending-creates drops it.
    const kept = await s.run("refresh");
    expect(kept.ok, errors(kept)).toBe(true);
    expect(kept.diagnostics.some((d) => d.severity === "warning" && /may exist in the service/.test(d.message))).toBe(true);
    expect(s.checkpoint().checkpoint.latest.pending_operations).toHaveLength(1);
    const r = await s.run("refresh", [], { clearPendingCreates: true });
    expect(r.ok, errors(r)).toBe(true);
    expect(s.checkpoint().checkpoint.latest.pending_operations).toEqual([]);
    const again = await s.run("preview", [{ name: "a", props: { label: "a", value: 1 } }]);
    expect(again.pendingOperations).toEqual([]);
  });
});

describe("skipped checkpoints (PULUMI_SKIP_CHECKPOINTS)", () => {
  test("a finished run saves its final state; a killed run leaves the previous state as it was", async () => {
    const s = scenario();
    const r = await s.run("up", [{ name: "a", props: { label: "a", value: 1 } }], { skipCheckpoints: true });
    expect(r.ok, errors(r)).toBe(true);
    expect(s.checkpoint().checkpoint.latest.resources.some((x) => x.urn.endsWith("::a"))).toBe(true);
    const before = s.stateText();

    const spec: KvSpec[] = [
      { name: "a", props: { label: "a", value: 1 } },
      { name: "h", props: { label: "h", value: 1, fail: "hang-create" } },
    ];
    const child = spawn(process.execPath, cliArgs(s, "up", spec), { detached: true, stdio: "ignore", env: { ...process.env, PULUMI_SKIP_CHECKPOINTS: "true" } });
    try {
      await waitFor(() => Object.values(s.objects()).some((o) => o["label"] === "h"));
    } finally {
      process.kill(-child.pid!, "SIGKILL");
    }
    await new Promise((r) => child.once("exit", r));
    // No checkpoint was written while the create was in flight: not even the pending operation.
    expect(s.stateText()).toBe(before);
  });
});

async function waitFor(cond: () => boolean): Promise<void> {
  // Polls without a deadline of its own: the test timeout bounds it.
  while (!cond()) await new Promise((r) => setTimeout(r, 100));
}
