// Step options and secrets as the real engine treats them (pulumi/pulumi
// pkg/resource/deploy/step_generator.go, step_executor.go). Each test names the
// function it follows.

import { expect, test } from "vitest";
import { kvScenarios, errors, opsByName } from "./kv-scenario";
import { SIG_KEY } from "../support/values";

const scenario = kvScenarios();
const URN = (name: string) => `urn:pulumi:dev::kvtest::pulumi-nodejs:dynamic/kv:Object::${name}`;

test("step_executor.go: secrets are re-marked on every step, 'same' included: an unchanged input that becomes a secret makes its output secret in state", async () => {
  const s = scenario();
  await s.run("up", [{ name: "x", props: { label: "x", value: "now-a-secret" } }]);
  const r = await s.run("up", [{ name: "x", props: { label: "x", value: { $secret: "now-a-secret" } } }]);
  expect(r.ok, errors(r)).toBe(true);
  expect(opsByName(r.steps)).toEqual({ x: "same" });
  const x = s.checkpoint().checkpoint.latest.resources.find((e) => e.urn === URN("x"))!;
  expect(x.outputs["value"]).toHaveProperty(SIG_KEY);
  expect(JSON.stringify(x.outputs["value"])).not.toContain("now-a-secret");
  // (The fixture's `computed` output is derived from value under another name: like the
  // real engine, only same-named outputs and additionalSecretOutputs are re-marked.)
});

test("step_generator.go getOldResource / generateAliases: a rename with an alias is no change", async () => {
  const s = scenario();
  await s.run("up", [{ name: "before", props: { label: "x", value: 1 } }]);
  const id = s.idOf("before");
  s.clearCalls();
  const r = await s.run("up", [{ name: "after", props: { label: "x", value: 1 }, aliases: [URN("before")] }]);
  expect(r.ok, errors(r)).toBe(true);
  expect(opsByName(r.steps)).toEqual({ after: "same" });
  expect(s.calls().filter((c) => c.op === "create" || c.op === "delete")).toEqual([]);
  expect(s.idOf("after")).toBe(id);
  expect(s.checkpoint().checkpoint.latest.resources.some((e) => e.urn === URN("before"))).toBe(false);
});

test("step_generator.go GenerateDeletes (deletedWith): a resource deleted with another is not deleted by its provider", async () => {
  const s = scenario();
  await s.run("up", [{ name: "db", props: { label: "db" } }, { name: "table", props: { label: "table" }, deletedWith: "db" }]);
  const [db, table] = [s.idOf("db"), s.idOf("table")];
  s.clearCalls();
  const r = await s.run("up", []);
  expect(r.ok, errors(r)).toBe(true);
  expect(opsByName(r.steps)).toEqual({ db: "delete", table: "delete" });
  expect(s.calls().filter((c) => c.op === "delete").map((c) => c.id)).toEqual([db]);
  // The fixture's "service" does not cascade: the table's object is left, as the option promises nothing else.
  expect(Object.keys(s.objects())).toEqual([table]);
});
