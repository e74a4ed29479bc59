// Replacements and failures as the real engine runs them (pulumi/pulumi
// pkg/resource/deploy/step_generator.go, step.go, step_executor.go,
// deployment_executor.go, pkg/engine/update.go). Each test names the function it follows.

import { describe, expect, test } from "vitest";
import { kvScenarios, errors, opsByName, stepOf, type KvSpec } from "./kv-scenario";

const scenario = kvScenarios();
const URN = (name: string) => `urn:pulumi:dev::kvtest::pulumi-nodejs:dynamic/kv:Object::${name}`;

/** `value` changes replace the object (the fixture provider's replaceOn). */
const replaced = (name: string, value: unknown, extra: Record<string, unknown> = {}): KvSpec => ({ name, props: { label: name, value, replaceOn: ["value"], ...extra } });

describe("replacement", () => {
  test("step_generator.go continueStepsFromDiff: Check is called again with no old inputs once Diff says replace", async () => {
    const s = scenario();
    await s.run("up", [replaced("x", 1)]);
    s.clearCalls();
    const r = await s.run("up", [replaced("x", 2)]);
    expect(r.ok, errors(r)).toBe(true);
    const checks = s.calls().filter((c) => c.op === "check");
    expect(checks.map((c) => c.olds?.["value"] ?? "none")).toEqual([1, "none"]);
    expect(checks[1]!.news?.["value"]).toBe(2);
  });

  test("step.go CreateStep.Apply: a refused replacement leaves the old object, in state and in the service", async () => {
    const s = scenario();
    await s.run("up", [replaced("x", 1)]);
    const oldId = s.idOf("x");
    const r = await s.run("up", [replaced("x", 2, { fail: "create" })]);
    expect(r.ok).toBe(false);
    expect(Object.keys(s.objects())).toEqual([oldId]);
    const entries = s.checkpoint().checkpoint.latest.resources.filter((x) => x.urn === URN("x"));
    expect(entries.map((e) => [e.id, e.delete ?? false])).toEqual([[oldId, false]]);
  });

  test("deployment_executor.go Execute: after a failed step no deletes run; the replaced copy waits, marked, for the next successful up", async () => {
    const s = scenario();
    await s.run("up", [replaced("x", 1), { name: "y", props: { label: "y", value: 1 } }, { name: "gone", props: { label: "gone", value: 1 } }]);
    const oldX = s.idOf("x");
    const gone = s.idOf("gone");
    // x is replaced (create before delete), y's update fails, gone is no longer declared.
    const failed = await s.run("up", [replaced("x", 2), { name: "y", props: { label: "y", value: 2, fail: "update" } }]);
    expect(failed.ok).toBe(false);
    expect(s.objects()).toHaveProperty(oldX);
    expect(s.objects()).toHaveProperty(gone);
    const marked = s.checkpoint().checkpoint.latest.resources.filter((e) => e.urn === URN("x"));
    expect(marked.map((e) => [e.id === oldX ? "old" : "new", e.delete ?? false])).toEqual([
      ["old", true],
      ["new", false],
    ]);

    const next = await s.run("up", [replaced("x", 2), { name: "y", props: { label: "y", value: 2 } }]);
    expect(next.ok, errors(next)).toBe(true);
    expect(s.objects()).not.toHaveProperty(oldX);
    expect(s.objects()).not.toHaveProperty(gone);
    expect(s.checkpoint().checkpoint.latest.resources.filter((e) => e.urn === URN("x"))).toHaveLength(1);
  });

  test("pkg/engine/update.go OnResourceStepPost: a partly failed update stores the old inputs with the new outputs (pulumi#2011)", async () => {
    const s = scenario();
    await s.run("up", [{ name: "x", props: { label: "x", value: 1 } }]);
    const r = await s.run("up", [{ name: "x", props: { label: "x", value: 2, fail: "partial-update" } }]);
    expect(r.ok).toBe(false);
    const x = s.checkpoint().checkpoint.latest.resources.find((e) => e.urn === URN("x"))!;
    expect(x.inputs["value"]).toBe(1);
    expect(x.outputs["value"]).toBe(2);
    expect(x.initErrors).toEqual(["follow-up configuration failed"]);
  });

  test("step_generator.go continueStepsFromDiff: protect blocks a replacement only when protected before and after", async () => {
    const s = scenario();
    await s.run("up", [{ ...replaced("x", 1), protect: true }]);
    const blocked = await s.run("up", [{ ...replaced("x", 2), protect: true }]);
    expect(blocked.ok).toBe(false);
    expect(errors(blocked)).toMatch(/marked for protection/);
    // Unprotecting and replacing in one run is allowed.
    const r = await s.run("up", [{ ...replaced("x", 2), protect: false }]);
    expect(r.ok, errors(r)).toBe(true);
    expect(stepOf(r.steps, "x").op).toBe("replace");
  });

  test("step_generator.go continueStepsFromDiff: an explicit deleteBeforeReplace: false overrides the provider's delete-before-replace", async () => {
    const s = scenario();
    await s.run("up", [replaced("x", 1, { deleteBeforeReplace: true })]);
    const oldId = s.idOf("x");
    s.clearCalls();
    const r = await s.run("up", [{ ...replaced("x", 2, { deleteBeforeReplace: true }), deleteBeforeReplace: false }]);
    expect(r.ok, errors(r)).toBe(true);
    expect(stepOf(r.steps, "x").deleteBeforeReplace).toBe(false);
    const ops = s.calls().filter((c) => ["create", "delete"].includes(c.op)).map((c) => `${c.op}:${c.id === oldId ? "old" : "new"}`);
    expect(ops).toEqual(["create:new", "delete:old"]);
  });

  test("step_generator.go calculateDependentReplacements: delete-before-replace deletes first the dependents with an input taken from it whose Diff, with that input unknown, says replace, and creates them again; one whose Diff says update stays; a dependsOn-only dependent stays", async () => {
    const s = scenario();
    const spec = (v: number): KvSpec[] => [
      replaced("a", v, { deleteBeforeReplace: true }),
      { name: "b", props: { label: "b", value: { $ref: "a.computed" }, replaceOn: ["value"] } },
      { name: "c", props: { label: "c", value: "x" }, dependsOn: ["a"] },
      { name: "d", props: { label: "d", value: { $ref: "a.computed" } } },
    ];
    await s.run("up", spec(1));
    const [oldA, oldB, oldC, oldD] = [s.idOf("a"), s.idOf("b"), s.idOf("c"), s.idOf("d")];
    s.clearCalls();
    const r = await s.run("up", spec(2));
    expect(r.ok, errors(r)).toBe(true);
    const name = (id?: string) => (id === oldA ? "a" : id === oldB ? "b" : id === oldC ? "c" : id === oldD ? "d" : id?.split("-")[0]);
    expect(s.calls().filter((c) => ["create", "delete"].includes(c.op)).map((c) => `${c.op}:${name(c.id)}`)).toEqual(["delete:b", "delete:a", "create:a", "create:b"]);
    expect(opsByName(r.steps)).toMatchObject({ a: "replace", b: "replace", c: "same", d: "update" });
    expect(s.idOf("d")).toBe(oldD);
    expect(s.idOf("c")).toBe(oldC);
  });
});

describe("deletes", () => {
  test("step_executor.go cancelDueToError: deletes carry on past a protected one; the summary counts only completed deletes", async () => {
    const s = scenario();
    // Deleted in reverse order: p first.
    await s.run("up", [{ name: "q", props: { label: "q" } }, { name: "r", props: { label: "r" } }, { name: "p", props: { label: "p" }, protect: true }]);
    const p = s.idOf("p");
    const r = await s.run("up", []);
    expect(r.ok).toBe(false);
    expect(errors(r)).toMatch(/unable to delete resource ".*::p" as it is currently marked for protection/);
    expect(Object.keys(s.objects())).toEqual([p]);
    expect(r.summary).toMatch(/- 2 deleted/);
    expect(r.summary).toMatch(/1 failed/);
  });
});
