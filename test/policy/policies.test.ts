/**
 * Every policy's case table through the policy functions directly (harness.ts):
 * exact messages, exact remediations, config thresholds, unknowns, and no secret
 * ever in a message.
 */
import { describe, expect, it } from "vitest";
import type { ResourceValidationPolicy } from "@pulumi/policy";
import { policies } from "../../policy/pack";
import { ALL_CASES } from "./cases";
import { urnOf, remediateResource, validateResource, validateStack } from "./harness";
import { DEFAULT_STACK } from "./cases/types";
import { secretStrings } from "./wire";

function expectNoSecretIn(messages: string[], props: unknown) {
  for (const s of secretStrings(props).filter((s) => s.length >= 3)) {
    for (const m of messages) expect(m, `message leaks a secret value`).not.toContain(s);
  }
}

for (const table of ALL_CASES) {
  describe(table.policy.name, () => {
    if ("resource" in table) {
      const policy = table.policy;
      for (const c of table.resource) {
        it(c.title, async () => {
          const messages = await validateResource(policy, c);
          expect(messages).toEqual(c.violations);
          expectNoSecretIn(messages, c.props);
          if (c.remediated !== undefined) {
            const remediated = await remediateResource(policy, c);
            expect(remediated).toEqual(c.remediated);
            // What the engine validates after remediating: only what renaming cannot fix is left.
            if (remediated) expect(await validateResource(policy, { ...c, props: remediated })).toEqual(c.violations.filter((m) => m.includes("differ only in case")));
          }
        });
      }
    } else {
      const policy = table.policy;
      for (const c of table.stack) {
        it(c.title, async () => {
          const stack = c.stack ?? DEFAULT_STACK;
          const found = await validateStack(policy, c);
          const kindOf = (name: string) => c.resources.find((r) => r.name === name)!.kind;
          expect(found).toEqual(c.violations.map((v) => (v.resource ? { message: v.message, urn: urnOf(stack, kindOf(v.resource), v.resource) } : { message: v.message })));
          expectNoSecretIn(
            found.map((f) => f.message),
            c.resources.map((r) => r.props),
          );
        });
      }
    }
  });
}

describe("the case tables", () => {
  it("cover every policy of the pack, each with a compliant and a violating case", () => {
    expect(ALL_CASES.map((t) => t.policy.name).sort()).toEqual(policies.map((p) => p.name).sort());
    for (const t of ALL_CASES) {
      const cases: { violations: unknown[] }[] = "resource" in t ? t.resource : t.stack;
      expect(cases.some((c) => c.violations.length === 0), `${t.policy.name}: a compliant case`).toBe(true);
      expect(cases.some((c) => c.violations.length > 0), `${t.policy.name}: a violating case`).toBe(true);
    }
  });

  it("exercise every config property of every policy", () => {
    for (const t of ALL_CASES) {
      const cases: { config?: Record<string, unknown> }[] = "resource" in t ? t.resource : t.stack;
      const exercised = new Set(cases.flatMap((c) => Object.keys(c.config ?? {})));
      for (const key of Object.keys(t.policy.configSchema?.properties ?? {})) {
        expect(exercised.has(key), `${t.policy.name}: a case that sets config ${key}`).toBe(true);
      }
    }
  });

  it("give every remediating policy remediation cases", () => {
    for (const t of ALL_CASES) {
      if (!("resource" in t) || !(t.policy as ResourceValidationPolicy).remediateResource) continue;
      expect(t.resource.some((c) => c.remediated), `${t.policy.name}: a case that remediates`).toBe(true);
      expect(t.resource.some((c) => c.remediated === null), `${t.policy.name}: a case left alone`).toBe(true);
    }
  });
});

describe("config", () => {
  it("falls back to the schema defaults when the host sends no config at all", async () => {
    const inbox = ALL_CASES.find((t) => t.policy.name === "inbox-expiry")!;
    if (!("resource" in inbox)) throw new Error("inbox-expiry is a resource policy");
    const c = inbox.resource.find((r) => r.title === "above the ceiling")!;
    expect(await validateResource(inbox.policy, { ...c, rawConfig: {} })).toEqual(c.violations);
  });
});
