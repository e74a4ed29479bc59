// Policy packs through the real @pulumi/policy server (fixtures/policy-pack),
// started with @pulumi/pulumi/cmd/run-policy-pack.

import { execFileSync } from "node:child_process";
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

/** Processes running a policy pack from `packDir` (`node .../run-policy-pack/index.js <engine> <packDir>`), wherever re-parented. */
function packProcesses(packDir: string): string[] {
  return execFileSync("ps", ["-eo", "pid=,ppid=,args="], { encoding: "utf8" })
    .split("\n")
    .filter((line) => line.includes("run-policy-pack") && line.trimEnd().endsWith(` ${packDir}`));
}

/** The fixture pack under a path of its own, so that no other test's pack process can be taken for this one's. */
function privatePackPath(): { dir: string; remove(): void } {
  const dir = path.join(__dirname, "fixtures", `.policy-pack-${process.pid}-${Math.random().toString(36).slice(2)}`);
  fs.symlinkSync(PACK, dir, "dir");
  return { dir, remove: () => fs.rmSync(dir, { force: true }) };
}

test.each([
  ["an unknown enforcement level", { "kv-large-value": "mandatry" }, 'kv-large-value: enforcement level "mandatry" is not one of advisory, mandatory, disabled, remediate'],
  ["an unknown level in an object", { "kv-max-value": { enforcementLevel: "strict", max: 5 } }, 'kv-max-value: enforcement level "strict" is not one of'],
  ["an unknown level for all", { all: "warn" }, 'all: enforcement level "warn" is not one of'],
  ["a value of the wrong type", { "kv-max-value": { max: "ten" } }, "kv-max-value.max must be number"],
  ["an unknown policy name", { "kv-max-valu": { max: 5 } }, '"kv-max-valu" is not a policy of kv-fixture-policies (did you mean "kv-max-value"?)'],
])("policy config with %s: refused with a clear message before anything runs, and the pack's process is gone", async (_what, config, message) => {
  const s = scenario();
  const pack = privatePackPath();
  try {
    const file = path.join(s.dir, "policy-config.json");
    fs.writeFileSync(file, JSON.stringify(config));
    const r = await s.run("preview", [obj("x", 500)], { policyPack: pack.dir, policyConfig: file });
    expect(r.ok).toBe(false);
    expect(errors(r)).toContain(`invalid policy config ${file}`);
    expect(errors(r)).toContain(message);
    expect(s.calls().filter((c) => c.op === "check")).toEqual([]);
    expect(packProcesses(pack.dir)).toEqual([]);
  } finally {
    pack.remove();
  }
});

test("a policy config file that does not exist: refused, and no pack process is left", async () => {
  const s = scenario();
  const pack = privatePackPath();
  try {
    const file = path.join(s.dir, "missing.json");
    const r = await s.run("preview", [obj("x", 1)], { policyPack: pack.dir, policyConfig: file });
    expect(packProcesses(pack.dir)).toEqual([]);
    expect(r.ok).toBe(false);
    expect(errors(r)).toContain(`invalid policy config ${file}:\n  - cannot read the file (ENOENT)`);
  } finally {
    pack.remove();
  }
});
