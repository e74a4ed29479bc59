/**
 * Bad input, property-based (fast-check), over every resource registered in
 * provider/registry.ts: whatever the arguments (wrong types, huge or empty strings,
 * nested junk, preview's unknown sentinel anywhere, unknown extra keys),
 *   - check never throws;
 *   - it passes, or every failure names a property of the resource (the first
 *     segment of its path is a declared field) and says why, or names an extra key
 *     as an unknown argument;
 *   - a failing check writes nothing, and, once the few cached remote reads are
 *     warm, makes no call at all (the request log shows zero calls).
 */
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { providers, UNKNOWN } from "../../provider";
import type { ResourceProviderOf } from "../../provider";
import { control, lastSeq, requestsSince, useEmulator } from "../support/emulator";
import { allProductsConfig } from "../support/stack-config";

const RUNS = Number(process.env.FUZZ_RUNS ?? 120);

const emu = useEmulator();

interface WorkspaceKeys {
  project_id: string;
  webhooks: { admin: string };
  inboxes: { admin: string };
  infra: { admin: string };
}

/** Values that look like what a program might pass, and plenty that do not. */
function fieldValue(projectId: string): fc.Arbitrary<unknown> {
  return fc.oneof(
    fc.constant(undefined),
    fc.constant(null),
    fc.constant(UNKNOWN),
    fc.constant(projectId),
    fc.string(),
    fc.string({ minLength: 200, maxLength: 3000 }),
    fc.webUrl(),
    fc.integer(),
    fc.double(),
    fc.boolean(),
    fc.array(fc.record({ eventType: fc.oneof(fc.string(), fc.constant(UNKNOWN), fc.integer()) }, { requiredKeys: [] }), { maxLength: 5 }),
    fc.dictionary(fc.string(), fc.oneof(fc.string(), fc.constant(UNKNOWN))),
    fc.record({ type: fc.constantFrom("object", "string", "nope"), properties: fc.dictionary(fc.string(), fc.jsonValue()), required: fc.array(fc.string()) }, { requiredKeys: [] }),
    fc.jsonValue(),
    fc.anything(),
  );
}

function inputsFor(provider: ResourceProviderOf, projectId: string): fc.Arbitrary<Record<string, unknown>> {
  const fields = Object.entries(provider.definition.fields)
    .filter(([, spec]) => spec.mode !== "output")
    .map(([name]) => name);
  const declared = fc.record(Object.fromEntries(fields.map((name) => [name, fieldValue(projectId)])), { requiredKeys: [] });
  const extra = fc.dictionary(fc.string(), fc.anything(), { maxKeys: 3 });
  return fc.tuple(declared, extra).map(([d, e]) => ({ ...e, ...d }));
}

const kinds = Object.keys(providers);

describe.each(kinds)("check of %s on arbitrary inputs", (kind) => {
  const provider = providers[kind as keyof typeof providers]!;
  const fieldNames = new Set(Object.keys(provider.definition.fields));
  let ws: WorkspaceKeys;

  beforeAll(async () => {
    ws = await control<WorkspaceKeys>(emu(), "POST", "/workspaces", { plan: "enterprise" });
    const values = allProductsConfig(emu(), ws);
    await provider.configure!({ config: { get: (k: string) => values[k], require: (k: string) => values[k]! } } as never);
  });

  it("never throws; passes or names the property; a failing check makes no call", async () => {
    await fc.assert(
      fc.asyncProperty(inputsFor(provider, "prj_fuzz"), async (news) => {
        const first = await lastSeq(emu());
        const checked = await provider.check!({}, news);
        const firstCalls = await requestsSince(emu(), first);
        const failures = checked.failures ?? [];
        expect(typeof checked.inputs).toBe("object");
        for (const f of failures) {
          expect(typeof f.property).toBe("string");
          expect(typeof f.reason).toBe("string");
          expect(f.reason.length).toBeGreaterThan(0);
          const head = f.property.split(/[.[]/)[0]!;
          // An extra key is named as an unknown argument; every other failure names a property of the kind.
          const unknownArgument = !fieldNames.has(f.property) && f.property in news && f.reason.startsWith(`unknown argument ${f.property}`);
          expect(fieldNames.has(head) || unknownArgument, `failure names "${f.property}", not a property of ${kind}: ${f.reason}`).toBe(true);
        }
        if (failures.length === 0) return;
        // Never a write; the only reads allowed are the cached remote checks, so a second check is silent.
        expect(firstCalls.filter((c) => c.method !== "GET")).toEqual([]);
        const second = await lastSeq(emu());
        const again = await provider.check!({}, news);
        expect((again.failures ?? []).length).toBeGreaterThan(0);
        expect(await requestsSince(emu(), second)).toEqual([]);
      }),
      { numRuns: RUNS, seed: Number(process.env.FUZZ_SEED ?? 20261121) },
    );
  });

  it("the unknown sentinel anywhere is never judged: a preview of all-unknown inputs passes", async () => {
    const names = Object.entries(provider.definition.fields).filter(([, s]) => s.mode !== "output").map(([n]) => n);
    const checked = await provider.check!({}, Object.fromEntries(names.map((n) => [n, UNKNOWN])));
    expect(checked.failures ?? []).toEqual([]);
  });
});
