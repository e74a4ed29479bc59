// `up` previews first, and resource operations run `--parallel` at a time, deletes and
// refresh reads included (pulumi/pulumi pkg/cmd/pulumi/operations/up.go,
// pkg/resource/deploy/step_executor.go, deployment_executor.go performPostSteps).

import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { expect, test } from "vitest";
import { kvScenarios, errors, type KvScenario, type KvSpec } from "./kv-scenario";
import { defaultParallel } from "./parallel";

const scenario = kvScenarios();

test("up.go defaultParallel: 4 x GOMAXPROCS (the CPUs available), unless PULUMI_PARALLEL says otherwise", () => {
  expect(defaultParallel({})).toBe(4 * os.availableParallelism());
  expect(defaultParallel({ PULUMI_PARALLEL: "64" })).toBe(64);
  expect(defaultParallel({ PULUMI_PARALLEL: "0" })).toBe(4 * os.availableParallelism());
});

test("up.go: up previews first; a failed preview creates nothing, independent resources included", async () => {
  const s = scenario();
  const r = await s.run("up", [{ name: "fine", props: { label: "fine" } }, { name: "refused", props: { label: "refused", fail: "check" } }], { skipPreview: false });
  expect(r.ok).toBe(false);
  expect(errors(r)).toMatch(/check refused this input/);
  expect(errors(r)).toMatch(/the preview failed: no changes were made/);
  expect(r.preview?.verb).toBe("preview");
  expect(s.objects()).toEqual({});
  expect(s.calls().filter((c) => c.op === "create")).toEqual([]);
});

/** The most calls of one kind the plugin had in flight at once. */
function mostInFlight(s: KvScenario, op: string): number {
  return Math.max(0, ...s.calls().filter((c) => c.op === `${op}-start`).map((c) => (c as { inflight?: number }).inflight ?? 0));
}

/** Opens the gate of the fixture's gated calls once `n` of kind `op` have started. */
async function releaseAfter(s: KvScenario, op: string, n: number): Promise<void> {
  while (s.calls().filter((c) => c.op === `${op}-start`).length < n) await new Promise((r) => setTimeout(r, 100));
  fs.writeFileSync(path.join(s.dir, "release"), "");
}

const gatedSpec = (n: number): KvSpec[] => Array.from({ length: n }, (_, i) => ({ name: `g${i}`, props: { label: `g${i}`, gate: true } }));

test("step_executor.go: --parallel 2 runs two creates at a time, never more", async () => {
  const s = scenario();
  const run = s.run("up", gatedSpec(4), { parallel: 2 });
  await releaseAfter(s, "create", 2);
  const r = await run;
  expect(r.ok, errors(r)).toBe(true);
  expect(mostInFlight(s, "create")).toBe(2);
});

test("deployment_executor.go performPostSteps / refresh: deletes and refresh reads run in parallel", async () => {
  const s = scenario();
  const release = path.join(s.dir, "release");
  fs.writeFileSync(release, "");
  expect((await s.run("up", gatedSpec(3))).ok).toBe(true);

  fs.rmSync(release);
  s.clearCalls();
  const refreshing = s.run("refresh", [], { parallel: 3 });
  await releaseAfter(s, "read", 3);
  expect((await refreshing).ok).toBe(true);
  expect(mostInFlight(s, "read")).toBe(3);

  fs.rmSync(release);
  s.clearCalls();
  const destroying = s.run("destroy", [], { parallel: 3 });
  await releaseAfter(s, "delete", 3);
  const d = await destroying;
  expect(d.ok, errors(d)).toBe(true);
  expect(mostInFlight(s, "delete")).toBe(3);
  expect(s.objects()).toEqual({});
});
