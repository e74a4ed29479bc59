/**
 * The same case tables as policies.test.ts, through the real policy runtime: the
 * pack directory started with @pulumi/pulumi's run-policy-pack, driven over gRPC the
 * way the engine drives it (analyzer-client.ts). This is where loading, the
 * server's proxies and (de)serialisation, config defaults and enforcement levels
 * are proven, not assumed.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ResourceValidationPolicy } from "@pulumi/policy";
import { PACK_NAME, policies } from "../../policy/pack";
import { TYPE_TOKENS } from "../../sdk/tokens";
import { AnalyzerClient, type AnalyzerResource, type Diagnostic, type EnforcementLevel, type GivenConfig } from "./analyzer-client";
import { ALL_CASES } from "./cases";
import { DEFAULT_STACK, PROJECT } from "./cases/types";
import { cases as headerCase } from "./cases/endpoint-header-name-case";
import { urnOf } from "./harness";
import { buildPack, type BuiltPack } from "./pack-build";
import { secretStrings } from "./wire";

let pack: BuiltPack;
let analyzer: AnalyzerClient;

beforeAll(async () => {
  pack = await buildPack();
  analyzer = await AnalyzerClient.start({ packDir: pack.dir });
});

afterAll(async () => {
  await analyzer?.close();
  pack?.remove();
});

/** The level a diagnostic carries: `remediate` validates as `mandatory` (server.ts). */
function reportedLevel(level: EnforcementLevel | undefined): EnforcementLevel {
  return level === "remediate" ? "mandatory" : (level ?? "advisory");
}

function expectNoSecretIn(diagnostics: Diagnostic[], props: unknown) {
  for (const s of secretStrings(props).filter((s) => s.length >= 3)) {
    for (const d of diagnostics) expect(d.message, `${d.policyName} leaks a secret value`).not.toContain(s);
  }
}

describe("GetAnalyzerInfo", () => {
  it("describes the pack and every policy: level, type, description, remediation steps, config schema with defaults", async () => {
    const info = await analyzer.info();
    expect(info.name).toBe(PACK_NAME);
    expect(info.version).toBe("0.1.0");
    expect(info.supportsConfig).toBe(true);
    expect(info.policies.map((p) => p.name)).toEqual(policies.map((p) => p.name));
    for (const p of policies) {
      const reported = info.policies.find((i) => i.name === p.name)!;
      expect(reported.description).toBe(p.description);
      expect(reported.enforcementLevel).toBe(p.enforcementLevel);
      expect(reported.type).toBe("validateStack" in p ? "stack" : "resource");
      expect(reported.remediationSteps).toBe(p.remediationSteps);
      expect(reported.remediationSteps.length).toBeGreaterThan(0);
      const properties = p.configSchema?.properties ?? {};
      // A protobuf Struct keeps no key order.
      expect(Object.keys(reported.configSchema?.properties ?? {}).sort()).toEqual(Object.keys(properties).sort());
      for (const [key, schema] of Object.entries(properties)) {
        expect(reported.configSchema!.properties[key]!["default"], `${p.name}.${key} has a default`).toEqual((schema as { default: unknown }).default);
      }
    }
  });
});

for (const table of ALL_CASES) {
  describe(table.policy.name, () => {
    const policy = table.policy;
    const level = reportedLevel(policy.enforcementLevel);
    if ("resource" in table) {
      for (const c of table.resource) {
        it(c.title, async () => {
          await analyzer.configure({ [policy.name]: c.config ?? {} } as GivenConfig);
          const resource: AnalyzerResource = { type: TYPE_TOKENS[c.kind], urn: urnOf(c.stack ?? DEFAULT_STACK, c.kind, "subject"), name: "subject", properties: c.props };
          const all = await analyzer.analyze(resource);
          const mine = all.filter((d) => d.policyName === policy.name);
          expect(mine.map((d) => d.message)).toEqual(c.violations.map((m) => `${policy.description}\n${m}`));
          for (const d of mine) expect([d.enforcementLevel, d.policyPackName]).toEqual([level, PACK_NAME]);
          expectNoSecretIn(all, c.props);
          if (c.remediated !== undefined) {
            const remediations = (await analyzer.remediate(resource)).filter((r) => r.policyName === policy.name);
            expect(remediations.map((r) => r.properties)).toEqual(c.remediated ? [c.remediated] : []);
            if (c.remediated) {
              // The engine analyzes the remediated inputs: only what renaming cannot fix is left.
              const after = (await analyzer.analyze({ ...resource, properties: c.remediated })).filter((d) => d.policyName === policy.name);
              expect(after.map((d) => d.message)).toEqual(c.violations.filter((m) => m.includes("differ only in case")).map((m) => `${policy.description}\n${m}`));
            }
          }
        });
      }
    } else {
      for (const c of table.stack) {
        it(c.title, async () => {
          const stack = c.stack ?? DEFAULT_STACK;
          await analyzer.configure({ [policy.name]: c.config ?? {} } as GivenConfig);
          const resources: AnalyzerResource[] = c.resources.map((r) => ({ type: TYPE_TOKENS[r.kind], urn: urnOf(stack, r.kind, r.name), name: r.name, properties: r.props }));
          const all = await analyzer.analyzeStack(resources);
          const mine = all.filter((d) => d.policyName === policy.name);
          const kindOf = (name: string) => c.resources.find((r) => r.name === name)!.kind;
          expect(mine.map((d) => ({ message: d.message, urn: d.urn }))).toEqual(
            c.violations.map((v) => ({ message: `${policy.description}\n${v.message}`, urn: v.resource ? urnOf(stack, kindOf(v.resource), v.resource) : "" })),
          );
          for (const d of mine) expect(d.enforcementLevel).toBe(level);
          expectNoSecretIn(all, c.resources.map((r) => r.props));
        });
      }
    }
  });
}

describe("enforcement levels from config", () => {
  if (!("resource" in headerCase)) throw new Error("endpoint-header-name-case has resource cases");
  const c = headerCase.resource.find((r) => r.remediated)!;
  const policy: ResourceValidationPolicy = headerCase.policy;
  const resource: AnalyzerResource = { type: TYPE_TOKENS[c.kind], urn: urnOf(DEFAULT_STACK, c.kind, "subject"), name: "subject", properties: c.props };

  it("a remediating policy set to advisory reports instead of renaming", async () => {
    await analyzer.configure({ [policy.name]: "advisory" });
    expect((await analyzer.remediate(resource)).filter((r) => r.policyName === policy.name)).toEqual([]);
    const mine = (await analyzer.analyze(resource)).filter((d) => d.policyName === policy.name);
    expect(mine.map((d) => [d.enforcementLevel, d.message])).toEqual(c.violations.map((m) => ["advisory", `${policy.description}\n${m}`]));
  });

  it("`all: disabled` silences every policy", async () => {
    await analyzer.configure({ all: "disabled" });
    expect(await analyzer.remediate(resource)).toEqual([]);
    expect(await analyzer.analyze({ ...resource, properties: { ...c.props, url: "http://localhost/x" } })).toEqual([]);
  });

  it("ConfigureStack is accepted (stack tags are not used by this pack)", async () => {
    await analyzer.configureStack({ stack: DEFAULT_STACK, project: PROJECT, organization: "organization", dryRun: true });
  });
});
