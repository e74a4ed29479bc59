// Policy packs through the real @pulumi/policy server (fixtures/policy-pack),
// started with @pulumi/pulumi/cmd/run-policy-pack.

import * as fs from "node:fs";
import * as path from "node:path";
import { expect, test } from "vitest";
import { kvScenarios, errors, opsByName, type KvSpec } from "./kv-scenario";

const PACK = path.join(__dirname, "fixtures", "policy-pack");

const scenario = kvScenarios();

const obj = (name: string, value: unknown, label = name): KvSpec => ({ name, props: { label, value } });

test("advisory violations are reported and remediations reach the provider", async () => {
  const s = scenario();
  const r = await s.run("up", [obj("x", 150), obj("y", 1)], { policyPack: PACK });
  expect(r.ok, errors(r)).toBe(true);
  expect(opsByName(r.steps)).toEqual({ x: "create", y: "create" });
  expect(r.policyViolations).toEqual([
    expect.objectContaining({ policyName: "kv-large-value", enforcementLevel: "advisory", urn: expect.stringMatching(/::x$/), message: expect.stringContaining("150") }),
  ]);
  expect(r.summary).toMatch(/Policy Violations:\n\s+\[advisory\] kv-fixture-policies@v0\.0\.1: kv-large-value \(x\)/);
  // kv-default-tag (remediate) added a tag before Check's result was used.
  for (const c of s.calls().filter((c) => c.op === "create")) expect(c.inputs?.["tag"]).toBe("remediated");
});

test("a mandatory violation fails preview", async () => {
  const s = scenario();
  const r = await s.run("preview", [obj("ok", 1), obj("bad", 1, "forbidden")], { policyPack: PACK });
  expect(r.ok).toBe(false);
  expect(r.policyViolations.map((v) => [v.policyName, v.enforcementLevel])).toContainEqual(["kv-no-forbidden-label", "mandatory"]);
  expect(errors(r)).toMatch(/kv-no-forbidden-label/);
  expect(s.calls().filter((c) => c.op === "create")).toEqual([]);
});

test("a mandatory violation fails up and the violating resource is not created", async () => {
  const s = scenario();
  const r = await s.run("up", [obj("bad", 1, "forbidden")], { policyPack: PACK });
  expect(r.ok).toBe(false);
  expect(errors(r)).toMatch(/mandatory policy violation.*kv-no-forbidden-label/);
  expect(s.calls().filter((c) => c.op === "create")).toEqual([]);
  expect(s.objects()).toEqual({});
  expect(s.checkpoint().checkpoint.latest.resources.some((x) => x.urn.endsWith("::bad"))).toBe(false);
});

test("policy config: schema defaults apply, a config file overrides them, AnalyzeStack sees the outputs", async () => {
  const s = scenario();
  // Default max is 1000: 500 passes.
  const ok = await s.run("preview", [obj("x", 500)], { policyPack: PACK });
  expect(ok.ok, errors(ok)).toBe(true);
  expect(ok.policyViolations.map((v) => v.policyName)).toEqual(["kv-large-value"]);

  const file = path.join(s.dir, "policy-config.json");
  fs.writeFileSync(file, JSON.stringify({ "kv-max-value": { max: 100 }, "kv-stack-limit": { maxObjects: 1 }, "kv-large-value": "disabled" }));
  const tooBig = await s.run("preview", [obj("x", 500)], { policyPack: PACK, policyConfig: file });
  expect(tooBig.ok).toBe(false);
  expect(tooBig.policyViolations).toEqual([
    expect.objectContaining({ policyName: "kv-max-value", enforcementLevel: "mandatory", message: expect.stringContaining("exceeds the maximum 100") }),
  ]);

  const stack = await s.run("up", [obj("a", 1), obj("b", 2)], { policyPack: PACK, policyConfig: file });
  expect(stack.ok, errors(stack)).toBe(true);
  expect(stack.policyViolations).toEqual([
    expect.objectContaining({ policyName: "kv-stack-limit", enforcementLevel: "advisory", message: expect.stringContaining("2 kv objects") }),
  ]);
});
