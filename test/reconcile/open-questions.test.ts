/**
 * Ownership kept in the state and on the objects (provider/README.md, "Ownership"),
 * through the dynamic provider in-process against the emulator, each "run" a fresh
 * operation (newOperation), as the engine calls it:
 * - rule 2: an unmarked create whose answer was lost fails naming the candidate, and the
 *   state keeps the question: every later run's refresh keeps the entry, its Diff
 *   replaces it, and the replacement's create (and a delete) asks again, until the user
 *   deletes the candidate (or adopts it);
 * - rule 5: an adoption writes the adopter's mark, and the delete of the resource that
 *   held the object before (a rename over two runs, removed on another machine) leaves
 *   it.
 */
import { beforeEach, describe, expect, it } from "vitest";
import { PartialFailure, providers } from "../../provider";
import { newOperation } from "../support/operation";
import { RESOURCE_KEY } from "../../provider/engine/internal-keys";
import { call, control, useEmulator } from "../support/emulator";
import { configure, Driver, noted, useWorkspace, type Props, type Workspace } from "../provider/support";

const emu = useEmulator();
const eventTypes = providers["webhooks:EventType"]!;
const endpoints = providers["webhooks:Endpoint"]!;
let ws: Workspace;
const listed = async (path: string) => (await call(emu(), "GET", `/webhooks${path}?limit=200`, { key: ws.webhooks.admin })).body.data as Props[];

beforeEach(async () => {
  newOperation();
  ws = await useWorkspace(emu(), eventTypes, "enterprise");
  // A lost answer's unmarked candidates are judged when the window has passed: a short one.
  await configure(endpoints, { "svc:webhooksUrl": emu().webhooksUrl, "svc:webhooksApiKey": ws.webhooks.admin, "svc:reconcileWindowSeconds": "3" });
});

describe("rule 2: an unproven candidate is a question the state keeps", () => {
  // A description is declared: the create carries no owner mark.
  const declared = { url: "https://hooks.example.com/question", description: "orders", [RESOURCE_KEY]: "dev::shop::orders" };

  it("asked again by every later run until the candidate is gone; then one create, and the placeholder's delete calls nothing", async () => {
    const d = new Driver(emu(), endpoints);
    await control(emu(), "POST", "/faults", { method: "POST", path: "/webhooks/v1/endpoints", drop_after_response: true, count: 1 });
    const first = await d.checked(declared);
    const lost = await endpoints.create(first).catch((e) => e);
    expect(lost).toBeInstanceOf(PartialFailure);
    expect(lost.id).toMatch(/^unresolved-create-/);
    const [candidate] = await listed("/v1/endpoints");
    expect(lost.message).toContain(String(candidate!.id));
    const entry = { id: lost.id as string, outs: lost.properties as Props };

    // The next run: refresh keeps the entry (there is no object to read), and the Diff replaces it.
    newOperation();
    const { calls: readCalls, result: read } = await d.calls(() => endpoints.read!(entry.id, entry.outs));
    expect(readCalls).toEqual([]);
    expect(read.id).toBe(entry.id);
    const again = await d.check(declared, first);
    expect(await endpoints.diff!(entry.id, entry.outs, again.inputs)).toMatchObject({ changes: true, replaces: ["__unresolved"], deleteBeforeReplace: false });
    // The replacement's create (after the engine's second Check, with no old inputs) asks again: the candidate is still there.
    const replacement = await d.checked(declared);
    const asked = await d.calls(() => endpoints.create(replacement).catch((e) => e));
    expect(asked.writes).toEqual([]);
    expect(asked.result.message).toMatch(/An earlier run's create of this endpoint lost its answer/);
    expect(asked.result.message).toContain(String(candidate!.id));
    // So does the entry's delete (a destroy).
    await expect(endpoints.delete!(entry.id, entry.outs)).rejects.toThrow(String(candidate!.id));

    // The user deletes it (an extra, or the lost create's: either way it is gone).
    await call(emu(), "DELETE", `/webhooks/v1/endpoints/${String(candidate!.id)}`, { key: ws.webhooks.admin });
    newOperation();
    await endpoints.diff!(entry.id, entry.outs, (await d.check(declared, first)).inputs);
    const made = await d.calls(() => endpoints.create(replacement));
    expect(made.writes).toEqual(["POST /v1/endpoints"]);
    const deleted = await d.calls(() => endpoints.delete!(entry.id, entry.outs));
    expect(deleted.writes).toEqual([]);
    expect((await listed("/v1/endpoints")).map((e) => e.id)).toEqual([made.result.id]);
  });

  it("the question is the declared fields and the send time: a look-alike made first, then the lost create's own object after the window: the next run names both", async () => {
    const d = new Driver(emu(), endpoints);
    // The service acts on the create 5 s after dropping its connection, after the 3 s window.
    await control(emu(), "POST", "/faults", { method: "POST", path: "/webhooks/v1/endpoints", drop_then_act_ms: 5000, count: 1 });
    const first = await d.checked(declared);
    const creating = endpoints.create(first).catch((e) => e);
    await new Promise((resolve) => setTimeout(resolve, 500));
    // Someone else's identical endpoint, made while ours is in flight.
    const other = String((await call(emu(), "POST", "/webhooks/v1/endpoints", { key: ws.webhooks.admin, body: { url: declared.url, description: declared.description } })).body.id);
    const lost = await creating;
    expect(lost).toBeInstanceOf(PartialFailure);
    expect(lost.message).toContain(other);
    const entry = { id: lost.id as string, outs: lost.properties as Props };
    await new Promise((resolve) => setTimeout(resolve, 3000));
    const all = (await listed("/v1/endpoints")).map((e) => String(e.id));
    expect(all).toHaveLength(2);
    const own = all.find((id) => id !== other)!;

    // The next run asks again, listing afresh: the lost create's own object, made late, is named too.
    newOperation();
    await endpoints.diff!(entry.id, entry.outs, (await d.check(declared, first)).inputs);
    const replacement = await d.checked(declared);
    const asked = await d.calls(() => endpoints.create(replacement).catch((e) => e));
    expect(asked.writes).toEqual([]);
    expect(asked.result.message).toContain(other);
    expect(asked.result.message).toContain(own);
    await expect(endpoints.delete!(entry.id, entry.outs)).rejects.toThrow(own);
  });

  it("answered by adopting the candidate: the replacement adopts it, and the placeholder's delete that follows passes with no call but reads", async () => {
    const d = new Driver(emu(), endpoints);
    await control(emu(), "POST", "/faults", { method: "POST", path: "/webhooks/v1/endpoints", drop_after_response: true, count: 1 });
    const first = await d.checked(declared);
    const lost = await endpoints.create(first).catch((e) => e);
    const [candidate] = await listed("/v1/endpoints");
    const entry = { id: lost.id as string, outs: lost.properties as Props };
    newOperation();
    const adopting = { ...declared, adoptId: String(candidate!.id) };
    await endpoints.diff!(entry.id, entry.outs, (await d.check(adopting, first)).inputs);
    const adopted = await endpoints.create(await d.checked(adopting));
    expect(adopted.id).toBe(candidate!.id);
    const deleted = await d.calls(() => endpoints.delete!(entry.id, entry.outs));
    expect(deleted.writes).toEqual([]);
    expect((await listed("/v1/endpoints")).map((e) => e.id)).toEqual([candidate!.id]);
  });

  it("the same for an event type: the replacement's preview names the entry that holds the name (adoptExisting); adopting it answers the question", async () => {
    const d = new Driver(emu(), eventTypes);
    const named = { name: "orders.placed", description: "an order was placed", [RESOURCE_KEY]: "dev::shop::placed" };
    await control(emu(), "POST", "/faults", { method: "POST", path: "/webhooks/v1/event-types", drop_after_response: true, count: 1 });
    const first = await d.checked(named);
    const lost = await eventTypes.create(first).catch((e) => e);
    expect(lost.id).toMatch(/^unresolved-create-/);
    expect(lost.message).toContain("workspace/orders.placed");
    const entry = { id: lost.id as string, outs: lost.properties as Props };
    newOperation();
    const { failures } = await d.check(named);
    expect(failures).toEqual([{ property: "name", reason: expect.stringMatching(/already registered workspace-wide.*adoptExisting: true/) }]);
    // As the message says: adoptExisting. The replacement adopts it, and the placeholder's delete passes with no write
    // (an entry known by its name is changed only where the state says it lives: the placeholder says so too).
    newOperation();
    const adopting = { ...named, adoptExisting: true };
    await eventTypes.diff!(entry.id, entry.outs, (await d.check(adopting, first)).inputs);
    let adopted: { id: string } = { id: "" };
    const warnings = await noted(async () => (adopted = await eventTypes.create(await d.checked(adopting))));
    expect(adopted.id).toBe("workspace/orders.placed");
    // Named by the input the program set (adv14c F5: it said adoptId).
    expect(warnings).toEqual([expect.stringMatching(/^adoptExisting workspace\/orders\.placed: the event type cannot be marked/)]);
    const deleted = await d.calls(() => eventTypes.delete!(entry.id, entry.outs));
    expect(deleted.writes).toEqual([]);
    expect((await listed("/v1/event-types")).map((e) => e.name)).toEqual(["orders.placed"]);
  });

  it("marked (no description declared): the lost create's own entry is taken by its mark, and reads with no description", async () => {
    const d = new Driver(emu(), eventTypes);
    await control(emu(), "POST", "/faults", { method: "POST", path: "/webhooks/v1/event-types", drop_after_response: true, count: 1 });
    const made = await eventTypes.create(await d.checked({ name: "orders.paid" }));
    expect(made.id).toBe("workspace/orders.paid");
    expect(made.outs.description).toBeNull();
    const [entry] = await listed("/v1/event-types");
    expect(entry!.description).toMatch(/^managed by pulumi-svc \(owner [a-z2-7]{26}\)$/);
    const read = await eventTypes.read!(made.id, made.outs);
    expect(read.props!.description).toBeNull();
    expect(read.inputs!.description).toBeUndefined();
  });
});

describe("rule 5: an adoption marks the object; the old holder's delete leaves it", () => {
  it("a rename adopting its object over two runs, the old name removed on another machine: no DELETE, a note; the new name's destroy deletes it", async () => {
    const d = new Driver(emu(), endpoints);
    const old = await d.create({ url: "https://hooks.example.com/renamed", resourceName: "old-name" });
    newOperation();
    // `pulumi up --target <new name>`: the new name adopts the object; its mark is written in the same PATCH.
    const adopting = await d.checked({ url: "https://hooks.example.com/renamed", adoptId: old.id, resourceName: "new-name" });
    const adopted = await d.calls(() => endpoints.create(adopting));
    expect(adopted.writes).toEqual([`PATCH /v1/endpoints/${old.id}`]);
    expect(adopted.result.outs.description).toBeNull();
    // Another machine, another operation: `pulumi destroy --target <old name>`.
    newOperation();
    const leftAlone = await d.calls(() => endpoints.delete!(old.id, old.outs));
    expect(leftAlone.writes).toEqual([]);
    expect((await listed("/v1/endpoints")).map((e) => e.id)).toEqual([old.id]);
    newOperation();
    const destroyed = await d.calls(() => endpoints.delete!(adopted.result.id, adopted.result.outs));
    expect(destroyed.writes).toEqual([`DELETE /v1/endpoints/${old.id}`]);
  });

  it("text a person wrote over the mark, shown by refresh: the up that clears it as the program declares writes the mark again", async () => {
    const d = new Driver(emu(), endpoints);
    const made = await d.create({ url: "https://hooks.example.com/edited" });
    await call(emu(), "PATCH", `/webhooks/v1/endpoints/${made.id}`, { key: ws.webhooks.admin, body: { description: "a note from the dashboard" } });
    newOperation();
    const refreshed = await endpoints.read!(made.id, made.outs);
    expect(refreshed.props!.description).toBe("a note from the dashboard");
    const result = await d.update(made.id, refreshed.props!, { url: "https://hooks.example.com/edited" });
    expect(result.diff).toMatchObject({ changes: true, diffs: ["description"] });
    expect(result.outs.description).toBeNull();
    const [shown] = await listed("/v1/endpoints");
    expect(shown!.description).toBe(`managed by pulumi-svc (owner ${String(made.inputs.__owner)})`);
    // And nothing more to do.
    newOperation();
    expect(await endpoints.diff!(made.id, result.outs, (await d.check({ url: "https://hooks.example.com/edited" }, made.inputs)).inputs)).toMatchObject({ changes: false });
  });

  it("the mark cleared by a person: the adoption marks the object again (its owner field is free), and the old holder's delete leaves it", async () => {
    const d = new Driver(emu(), endpoints);
    const old = await d.create({ url: "https://hooks.example.com/cleared" });
    await call(emu(), "PATCH", `/webhooks/v1/endpoints/${old.id}`, { key: ws.webhooks.admin, body: { description: null } });
    newOperation();
    const adopting = await d.checked({ url: "https://hooks.example.com/cleared", adoptId: old.id });
    const adopted = await d.calls(() => endpoints.create(adopting));
    expect(adopted.writes).toEqual([`PATCH /v1/endpoints/${old.id}`]);
    newOperation();
    expect((await d.calls(() => endpoints.delete!(old.id, old.outs))).writes).toEqual([]);
    expect((await listed("/v1/endpoints")).map((e) => e.id)).toEqual([old.id]);
  });

  it("another resource's mark (another stack's adoptId): adopted as the user said, with a warning naming the mark and what to do", async () => {
    const d = new Driver(emu(), endpoints);
    const theirs = await d.create({ url: "https://hooks.example.com/theirs" });
    newOperation();
    const adopting = await d.checked({ url: "https://hooks.example.com/theirs", adoptId: theirs.id });
    const warnings = await noted(() => endpoints.create(adopting));
    expect(warnings.join("\n")).toMatch(new RegExp(`adoptId ${theirs.id}: the endpoint carried the owner mark of another resource .*both stacks now manage the endpoint: remove it from one with \`pulumi state delete`));
  });

  it("another resource's mark on an object read with no state entry (`pulumi import`): a warning naming the mark and what to do; one of its own is read quietly", async () => {
    const d = new Driver(emu(), endpoints);
    const theirs = await d.create({ url: "https://hooks.example.com/theirs" });
    const unmarked = await call(emu(), "POST", "/webhooks/v1/endpoints", { key: ws.webhooks.admin, body: { url: "https://hooks.example.com/by-hand" } });
    newOperation();
    const warnings = await noted(async () => {
      await endpoints.read!(theirs.id, {}); // the native plugin's import
      await endpoints.read!(theirs.id, undefined as unknown as Props); // the dynamic provider's
      await endpoints.read!(theirs.id, { __shape: 1 }); // an import whose outputs the upgrade marked with their shape
      await endpoints.read!(String(unmarked.body["id"]), undefined as unknown as Props);
    });
    expect(warnings).toHaveLength(3);
    expect(new Set(warnings).size).toBe(1);
    expect(warnings[0]).toMatch(new RegExp(`The endpoint ${theirs.id} carries the owner mark of another Pulumi resource .*both stacks now manage it and that resource's destroy deletes it: .*\`pulumi state delete <urn>\``));
  });

  it("a description declared: nothing can mark it, so the adoption warns, and the old holder's delete deletes it (the limit, said in provider/README.md)", async () => {
    const d = new Driver(emu(), endpoints);
    const old = await d.create({ url: "https://hooks.example.com/described", description: "orders" });
    newOperation();
    let adopted!: { id: string };
    const warnings = await noted(async () => (adopted = await endpoints.create(await d.checked({ url: "https://hooks.example.com/described", description: "orders", adoptId: old.id }))));
    expect(warnings.join("\n")).toMatch(/cannot be marked as this resource's \(its description holds the program's or a person's text\).*Rename with `aliases`/);
    newOperation();
    const deleted = await d.calls(() => endpoints.delete!(old.id, old.outs));
    expect(deleted.writes).toEqual([`DELETE /v1/endpoints/${adopted.id}`]);
  });
});
