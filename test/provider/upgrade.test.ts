/**
 * State shapes (provider/engine/upgrade.ts): the upgraders run in order from the
 * stored shape, a missing `__shape` is 0.1.0's shape 1 and stays missing when
 * nothing ran, a newer shape is refused naming both versions, and create/update
 * mark what they write. Each registered upgrader has its own case below.
 * End to end with 0.1.0's states: test/lifecycle/upgrade.test.ts.
 */
import { describe, expect, it } from "vitest";
import { providers } from "../../provider";
import { PartialFailure } from "../../provider/engine/errors";
import type { Props } from "../../provider/engine/fields";
import type { Operations } from "../../provider/engine/operations";
import { currentShape, FIRST_SHAPE, SHAPE_KEY, ShapeTooNewError, upgradeOutputs, upgrading, type Upgrader } from "../../provider/engine/upgrade";
import { DEFINITIONS } from "../../provider/registry";
import { PACKAGE_VERSION } from "../../provider/version";
import { RESOURCE_KINDS, type ResourceKind } from "../../sdk/tokens";

/** Every upgrader of the definitions (`upgrade`), by kind and the shape it upgrades from: outputs before and after. Add one with each upgrader. */
const UPGRADER_CASES: Partial<Record<ResourceKind, { from: number; before: Props; after: Props }[]>> = {
  "infra:QuotaLimits": [
    {
      // 0.1.0 kept every limit found; the names it wrote are those whose value moved (vms); ram_gb was declared at its value, or never.
      from: 1,
      before: { service: "compute", region: "eu-west-1", limits: { vms: 120, vcpu: 200, ram_gb: 800 }, limitsBefore: { limits: { vms: 50, vcpu: 200, ram_gb: 800 } } },
      after: { service: "compute", region: "eu-west-1", limits: { vms: 120, vcpu: 200, ram_gb: 800 }, limitsBefore: { limits: { vms: 50 } } },
    },
    // Read with Resource.get: nothing was taken over, nothing to narrow.
    { from: 1, before: { service: "dns", limits: { dns_zones: 50 }, limitsBefore: null }, after: { service: "dns", limits: { dns_zones: 50 }, limitsBefore: null } },
  ],
};

// A made-up history for one kind: shape 1 had `desc`, shape 2 renamed it `description`, shape 3 added `tags`.
const history: Upgrader[] = [({ desc, ...rest }) => ({ ...rest, description: desc }), (o) => ({ ...o, tags: [] })];

describe("upgradeOutputs", () => {
  it("a state without __shape is shape 1 and runs every upgrader, in order", () => {
    expect(upgradeOutputs("webhooks:Endpoint", { url: "u", desc: "d" }, history)).toEqual({ url: "u", description: "d", tags: [], [SHAPE_KEY]: 3 });
  });

  it("a state of shape 2 runs only the upgraders from 2", () => {
    expect(upgradeOutputs("webhooks:Endpoint", { description: "d", [SHAPE_KEY]: 2 }, history)).toEqual({ description: "d", tags: [], [SHAPE_KEY]: 3 });
  });

  it("a state at the current shape, or 0.1.0's when the kind never changed, is handed back as it is (no __shape added)", () => {
    const current = { description: "d", tags: [], [SHAPE_KEY]: 3 };
    expect(upgradeOutputs("webhooks:Endpoint", current, history)).toBe(current);
    const old = { label: "x" };
    expect(upgradeOutputs("inboxes:Inbox", old, undefined)).toBe(old);
    expect(upgradeOutputs("inboxes:Inbox", undefined, undefined)).toBeUndefined();
  });

  it("a shape newer than this package knows is refused, naming both shapes and the upgrade", () => {
    const run = () => upgradeOutputs("inboxes:Inbox", { label: "x", [SHAPE_KEY]: 2 }, undefined);
    expect(run).toThrow(ShapeTooNewError);
    expect(run).toThrow(/state shape 2.*pulumi-svc .* knows shapes up to 1.*Upgrade the pulumi-svc package/);
    expect(run).toThrow(PACKAGE_VERSION);
  });

  it("an invalid __shape is refused, not guessed", () => {
    expect(() => upgradeOutputs("inboxes:Inbox", { [SHAPE_KEY]: "2" }, undefined)).toThrow(/invalid __shape "2"/);
    expect(() => upgradeOutputs("inboxes:Inbox", { [SHAPE_KEY]: 0 }, undefined)).toThrow(/invalid __shape 0/);
  });
});

describe("upgrading(operations)", () => {
  const seen: Record<string, unknown> = {};
  const inner: Operations = {
    definition: providers["webhooks:Endpoint"]!.definition,
    check: async ({ news }) => ({ inputs: news, failures: [] }),
    diff({ olds }) {
      seen.diff = olds;
      return { changes: false, diffs: [], replaces: [], deleteBeforeReplace: false };
    },
    async read({ id, outputs }) {
      seen.read = outputs;
      // As the engine's read does: fields added since are null.
      return { gone: false, id, outputs: { ...outputs, addedLater: null }, inputs: {} };
    },
    async create() {
      return { id: "x", outputs: { a: 1 } };
    },
    async update({ olds }) {
      seen.update = olds;
      throw new PartialFailure("half done", "x", { a: 2 });
    },
    async delete({ outputs }) {
      seen.delete = outputs;
    },
  };
  const p = upgrading(inner, history);
  const old = { desc: "d" };
  const upgraded = { description: "d", tags: [], [SHAPE_KEY]: 3 };
  const outputsRead = async (ops: Operations, outputs: Props | undefined) => {
    const r = await ops.read({ id: "x", outputs });
    return r.gone ? undefined : r.outputs;
  };

  it("diff, read, update and delete see the upgraded outputs", async () => {
    p.diff({ id: "x", olds: old, news: {} });
    await p.read({ id: "x", outputs: old });
    await p.update({ id: "x", olds: old, news: {} }).catch(() => undefined);
    await p.delete({ id: "x", outputs: old });
    expect(seen).toEqual({ diff: upgraded, read: upgraded, update: upgraded, delete: upgraded });
  });

  it("read leaves out a null key the stored outputs lack (no drift on refresh), keeps one they have", async () => {
    const stored = { description: "d", tags: [], [SHAPE_KEY]: 3 };
    expect(await outputsRead(p, stored)).toEqual(stored);
    expect(await outputsRead(p, { ...stored, addedLater: null })).toEqual({ ...stored, addedLater: null });
    // Resource.get: nothing stored, every output kept.
    const inbox = upgrading({ ...inner, definition: providers["inboxes:Inbox"]!.definition });
    expect(await outputsRead(inbox, undefined)).toEqual({ addedLater: null });
    expect(await outputsRead(inbox, {})).toEqual({ addedLater: null });
  });

  it("create marks its outputs with the current shape; a partial failure's kept outputs too", async () => {
    expect(await p.create({ inputs: {} })).toEqual({ id: "x", outputs: { a: 1, [SHAPE_KEY]: 3 } });
    const err = await p.update({ id: "x", olds: old, news: {} }).then(() => undefined, (e: PartialFailure) => e);
    expect(err?.properties).toEqual({ a: 2, [SHAPE_KEY]: 3 });
  });

  it("a preview (diff) of a state from a newer release fails with the message", () => {
    expect(() => p.diff({ id: "x", olds: { [SHAPE_KEY]: 4 }, news: {} })).toThrow(/state shape 4.*knows shapes up to 3/);
  });
});

describe("the registered upgraders", () => {
  it("every kind's current shape is 1 + its upgraders, and every provider is wrapped", () => {
    for (const kind of RESOURCE_KINDS) {
      expect(currentShape(DEFINITIONS[kind]!.upgrade)).toBe(FIRST_SHAPE + (DEFINITIONS[kind]!.upgrade?.length ?? 0));
      expect(providers[kind]!.definition.upgrade, kind).toBe(DEFINITIONS[kind]!.upgrade);
      expect(providers[kind], kind).toBeDefined();
    }
  });

  for (const kind of RESOURCE_KINDS)
    (DEFINITIONS[kind]!.upgrade ?? []).forEach((upgrade, i) => {
      const from = FIRST_SHAPE + i;
      it(`${kind}: shape ${from} -> ${from + 1}`, () => {
        const cases = (UPGRADER_CASES[kind] ?? []).filter((c) => c.from === from);
        expect(cases.length, `no case in UPGRADER_CASES for ${kind} from shape ${from}`).toBeGreaterThan(0);
        for (const c of cases) expect(upgrade(c.before)).toEqual(c.after);
      });
    });
});
