// Refresh as the real engine runs it (pulumi/pulumi pkg/resource/deploy/step.go
// RefreshStep, pkg/cmd/pulumi/operations/refresh.go and up.go), and
// --expect-no-changes (pkg/cmd/pulumi/cmd/exit_codes.go, ExitNoChanges = 7).

import * as fs from "node:fs";
import * as path from "node:path";
import { expect, test } from "vitest";
import { kvScenarios, errors, opsByName } from "./kv-scenario";
import type { Checkpoint } from "../support/state";

const scenario = kvScenarios();

test("step.go RefreshStep: drift is the provider's Diff of the refreshed state against the old inputs; an output-only change is none", async () => {
  const s = scenario();
  await s.run("up", [{ name: "x", props: { label: "x", value: 1, stamp: true } }]);
  const id = s.idOf("x");
  const before = s.checkpoint().checkpoint.latest.resources.find((e) => e.id === id)!.outputs["updatedAt"];
  // The service touches the object: only its own timestamp moves.
  const file = path.join(s.dir, "objects", `${id}.json`);
  fs.utimesSync(file, new Date(), new Date(Date.now() + 60_000));
  const r = await s.run("refresh");
  expect(r.ok, errors(r)).toBe(true);
  expect(opsByName(r.steps)).toEqual({ x: "same" });
  expect(s.checkpoint().checkpoint.latest.resources.find((e) => e.id === id)!.outputs["updatedAt"]).not.toBe(before);

  // A change of what the program declares is drift.
  s.writeObject(id, { label: "x", value: 99, stamp: true });
  const drifted = await s.run("refresh");
  expect(opsByName(drifted.steps)).toEqual({ x: "update" });
  expect(drifted.steps.find((st) => st.name === "x")?.diffs).toContain("value");
});

test("refresh.go: pending creates are kept by refresh unless --clear-pending-creates", async () => {
  const s = scenario();
  await s.run("up", [{ name: "a", props: { label: "a" } }]);
  // A pending create, as a run killed during a create leaves it.
  const cp = s.checkpoint() as Checkpoint;
  const urn = "urn:pulumi:dev::kvtest::pulumi-nodejs:dynamic/kv:Object::lost";
  cp.checkpoint.latest.pending_operations = [{ type: "creating", resource: { urn, custom: true, type: "pulumi-nodejs:dynamic/kv:Object", inputs: {}, outputs: {}, dependencies: [] } }];
  fs.writeFileSync(s.stateFile, JSON.stringify(cp));

  const kept = await s.run("refresh");
  expect(kept.ok, errors(kept)).toBe(true);
  expect(s.checkpoint().checkpoint.latest.pending_operations?.map((p) => p.resource.urn)).toEqual([urn]);
  expect(kept.diagnostics.some((d) => d.severity === "warning" && d.message.includes("--clear-pending-creates"))).toBe(true);

  const cleared = await s.run("refresh", [], { clearPendingCreates: true });
  expect(cleared.ok, errors(cleared)).toBe(true);
  expect(s.checkpoint().checkpoint.latest.pending_operations).toEqual([]);
});

test("exit_codes.go ExitNoChanges: --expect-no-changes fails a run that would change something with exit code 7", async () => {
  const s = scenario();
  await s.run("up", [{ name: "a", props: { label: "a", value: 1 } }]);
  const none = await s.run("up", [{ name: "a", props: { label: "a", value: 1 } }], { expectNoChanges: true });
  expect(none.ok, errors(none)).toBe(true);
  expect(none.exitCode).toBe(0);
  const some = await s.run("up", [{ name: "a", props: { label: "a", value: 2 } }], { expectNoChanges: true, skipPreview: false });
  expect(some.ok).toBe(false);
  expect(some.exitCode).toBe(7);
  expect(errors(some)).toMatch(/no changes were expected/);
  // The preview stopped it: the object was not updated.
  expect(Object.values(s.objects())[0]?.["value"]).toBe(1);
});

test("up.go --refresh: the state is refreshed before the update, so a change made outside is put back", async () => {
  const s = scenario();
  await s.run("up", [{ name: "a", props: { label: "a", value: 1 } }]);
  const id = s.idOf("a");
  s.writeObject(id, { label: "a", value: 5 });
  const r = await s.run("up", [{ name: "a", props: { label: "a", value: 1 } }], { refresh: true });
  expect(r.ok, errors(r)).toBe(true);
  expect(opsByName(r.steps)).toEqual({ a: "update" });
  expect(s.objects()[id]?.["value"]).toBe(1);
});
