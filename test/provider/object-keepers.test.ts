/**
 * One object, one resource, across runs (provider/engine/claims.ts, the keepers),
 * through the typed operations against the emulator, in the call sequences the real
 * engine makes (each run its own plugin process: `newOperation()` between runs).
 * - A Diff that keeps an object (no replacement) keeps it from the delete of another
 *   state entry (a rename adopting its object, over two runs), but not from the delete of
 *   its own entry (the engine's replacement of a resource with init errors that its
 *   `replaceOnChanges` covers: the one sequence where a delete follows a keeping Diff).
 * - Only a Diff of a resource checked in this run keeps an object: a refresh's Diff of
 *   a state entry the program no longer declares (`pulumi up --refresh`) keeps nothing.
 * - An adoption of an object that a resource of the program keeps without adopting it
 *   fails its check (or that resource's Diff, when the adopter is checked first), naming
 *   the other resource, for every kind that can adopt.
 */
import { afterAll, beforeEach, describe, expect, it } from "vitest";
import { closeSharedDispatcher, providers } from "../../provider";
import type { ResourceKind } from "../../provider/kinds";
import { newOperation } from "../support/operation";
import { operationsFor } from "../../provider/engine/operations";
import { endpointDefinition } from "../../provider/webhooks/endpoint";
import { FIXTURES, type FixtureContext } from "../lifecycle/fixtures";
import { call, control, lastSeq, requestsSince, useEmulator } from "../support/emulator";
import { configure, type Workspace } from "./support";

const emu = useEmulator();
afterAll(() => closeSharedDispatcher());

let ws: Workspace;
beforeEach(async () => {
  ws = await control<Workspace>(emu(), "POST", "/workspaces", { plan: "enterprise" });
  const e = emu();
  await configure(providers["webhooks:Endpoint"]!, {
    ...{ "svc:webhooksUrl": e.webhooksUrl, "svc:inboxesUrl": e.inboxesUrl, "svc:infraUrl": e.infraUrl },
    ...{ "svc:webhooksApiKey": ws.webhooks.admin, "svc:inboxesApiKey": ws.inboxes.admin, "svc:infraApiKey": ws.infra.member },
  });
  newOperation();
});

/** Another run: another plugin process, which knows nothing of this one's calls. */
const nextRun = () => newOperation();

const endpoints = operationsFor(endpointDefinition);
const writesDuring = async (fn: () => Promise<unknown>) => {
  const since = await lastSeq(emu());
  await fn();
  return (await requestsSince(emu(), since)).filter((r) => r.method !== "GET").map((r) => `${r.method} ${r.path}`);
};
const exists = async (id: string) => (await call(emu(), "GET", `/webhooks/v1/endpoints/${id}`, { key: ws.webhooks.admin })).status === 200;

describe("a delete after a Diff that kept its object", () => {
  it("a rename adopting its object over two runs: the removed name's delete leaves the object to the new name", async () => {
    const { inputs } = await endpoints.check({ olds: {}, news: { url: "https://hooks.example.com/keep", resourceName: "hook" } });
    const made = await endpoints.create({ inputs });

    nextRun(); // up --target the new name: adopts the object, the old name is left alone
    const renamed = (await endpoints.check({ olds: {}, news: { url: "https://hooks.example.com/keep", adoptId: made.id, resourceName: "shippedHook" } })).inputs;
    const adopted = await endpoints.create({ inputs: renamed });
    expect(adopted.id).toBe(made.id);

    nextRun(); // up: the new name is checked and diffed (no change), the old one deleted
    expect((await endpoints.check({ olds: renamed, news: renamed })).failures).toEqual([]);
    expect(endpoints.diff({ id: made.id, olds: adopted.outputs, news: renamed })).toMatchObject({ changes: false, replaces: [] });
    expect(await writesDuring(() => endpoints.delete({ id: made.id, outputs: made.outputs }))).toEqual([]);
    expect(await exists(made.id)).toBe(true);
  });

  it("the same state entry (a replacement the engine decides after a Diff that replaced nothing) is deleted", async () => {
    const { inputs } = await endpoints.check({ olds: {}, news: { url: "https://hooks.example.com/own", resourceName: "hook" } });
    const made = await endpoints.create({ inputs });
    nextRun();
    expect((await endpoints.check({ olds: inputs, news: inputs })).failures).toEqual([]);
    expect(endpoints.diff({ id: made.id, olds: made.outputs, news: inputs })).toMatchObject({ changes: false, replaces: [] });
    const replacement = await endpoints.create({ inputs });
    expect(await writesDuring(() => endpoints.delete({ id: made.id, outputs: made.outputs }))).toEqual([`DELETE /webhooks/v1/endpoints/${made.id}`]);
    expect(await exists(made.id)).toBe(false);
    expect(await exists(replacement.id)).toBe(true);
  });

  it("a rename over two runs settled by `up --refresh`: the removed name's refresh (Read, then Diff with its stored inputs, no Check) keeps nothing; the adoption and the delete pass", async () => {
    const old = (await endpoints.check({ olds: {}, news: { url: "https://hooks.example.com/refresh", resourceName: "hook" } })).inputs;
    const made = await endpoints.create({ inputs: old });
    nextRun(); // up --target the new name
    const renamed = (await endpoints.check({ olds: {}, news: { url: "https://hooks.example.com/refresh", adoptId: made.id, resourceName: "shippedHook" } })).inputs;
    const adopted = await endpoints.create({ inputs: renamed });

    nextRun(); // up --refresh: every state entry refreshed first, then the program
    for (const [outputs, inputs] of [[made.outputs, old], [adopted.outputs, renamed]] as const) {
      const read = await endpoints.read({ id: made.id, outputs });
      expect(read.gone).toBe(false);
      if (!read.gone) endpoints.diff({ id: made.id, olds: read.outputs, news: inputs });
    }
    expect((await endpoints.check({ olds: renamed, news: renamed })).failures).toEqual([]);
    expect(endpoints.diff({ id: made.id, olds: adopted.outputs, news: renamed })).toMatchObject({ changes: false, replaces: [] });
    expect(await writesDuring(() => endpoints.delete({ id: made.id, outputs: made.outputs }))).toEqual([]);
    expect(await exists(made.id)).toBe(true);
  });

  it("an adopter's own replacement adopts its object again, and the old entry's delete leaves it", async () => {
    const other = await endpoints.create({ inputs: (await endpoints.check({ olds: {}, news: { url: "https://hooks.example.com/adopter" } })).inputs });
    nextRun();
    const { inputs } = await endpoints.check({ olds: {}, news: { url: "https://hooks.example.com/adopter", adoptId: other.id, resourceName: "hook" } });
    const adopted = await endpoints.create({ inputs });
    nextRun();
    expect((await endpoints.check({ olds: inputs, news: inputs })).failures).toEqual([]);
    expect(endpoints.diff({ id: adopted.id, olds: adopted.outputs, news: inputs })).toMatchObject({ replaces: [] });
    expect((await endpoints.check({ olds: {}, news: inputs })).failures).toEqual([]); // the replacement's second Check
    expect((await endpoints.create({ inputs })).id).toBe(other.id);
    expect(await writesDuring(() => endpoints.delete({ id: adopted.id, outputs: adopted.outputs }))).toEqual([]);
    expect(await exists(other.id)).toBe(true);
  });
});

/** Every kind that can adopt, with its fixture (test/lifecycle/fixtures.ts). */
const ADOPTING = Object.entries(FIXTURES).flatMap(([kind, f]) => (f && "inputs" in f.adopt ? [{ kind: kind as ResourceKind, adopt: f.adopt }] : []));

describe.each(ADOPTING)("$kind: an adoption of an object another resource of the program keeps", ({ kind, adopt }) => {
  const ops = operationsFor(providers[kind]!.definition);
  const ctx = (): FixtureContext => ({ ws, otherProject: ws.project_id });
  /**
   * The object's id as the kind's adoption names it (an event type's is made of its name). The object exists
   * (made in an earlier run): the preview of an adoption reads it (engine/adoption.ts), unless the kind creates it then.
   */
  const held = async () => {
    let objectId = "obj_held";
    if (!ops.definition.adoption?.createWhenMissing) {
      objectId = (await ops.create({ inputs: (await ops.check({ olds: {}, news: adopt.inputs(ctx()) })).inputs })).id;
      nextRun();
    }
    const declared = { ...adopt.inputs(ctx()), ...adopt.declare(objectId) };
    return { id: ops.definition.adoption?.idFrom(declared) ?? objectId, declared };
  };
  const property = ops.definition.adoption?.input ?? "adoptId";

  it("checked after the holder's Diff: the check fails on the adoption input, naming the holder", async () => {
    const { id, declared } = await held();
    const holder = { ...adopt.inputs(ctx()), resourceName: "holder" };
    expect((await ops.check({ olds: holder, news: holder })).failures).toEqual([]);
    expect(ops.diff({ id, olds: holder, news: holder })).toMatchObject({ replaces: [] });
    const { failures } = await ops.check({ olds: {}, news: { ...declared, resourceName: "twin" } });
    expect(failures).toEqual([{ property, reason: expect.stringContaining(`would be held by two resources of this stack: ${property} asks for it, and it is held by the resource \`holder\``) }]);
  });

  it("checked before the holder's Diff: that Diff fails, naming the adopter (a unique name: the holder's check does)", async () => {
    const { id, declared } = await held();
    expect((await ops.check({ olds: {}, news: { ...declared, resourceName: "twin" } })).failures).toEqual([]);
    const holder = { ...adopt.inputs(ctx()), resourceName: "holder" };
    if (kind === "webhooks:EventType") {
      // Two resources of the program declaring one name in one scope fail whichever is checked second.
      expect((await ops.check({ olds: holder, news: holder })).failures).toEqual([{ property: "name", reason: expect.stringContaining(`EventType "twin" of this program also declares`) }]);
      return;
    }
    expect((await ops.check({ olds: holder, news: holder })).failures).toEqual([]);
    expect(() => ops.diff({ id, olds: holder, news: holder })).toThrow(`would be held by two resources of this stack: the resource \`twin\` declares adopting it`);
  });

  it("two resources adopting one object: the second check fails naming the first; one resource checked twice is no clash", async () => {
    const { declared } = await held();
    expect((await ops.check({ olds: {}, news: { ...declared, resourceName: "first" } })).failures).toEqual([]);
    expect((await ops.check({ olds: {}, news: { ...declared, resourceName: "first" } })).failures).toEqual([]);
    const { failures } = await ops.check({ olds: {}, news: { ...declared, resourceName: "second" } });
    expect(failures).toEqual([{ property, reason: expect.stringContaining("the resource `first` declares adopting it too") }]);
  });
});
