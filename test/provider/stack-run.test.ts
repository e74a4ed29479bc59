/**
 * Pure checks (invariant 6): a check's result does not depend on how many times, in
 * which order or in which process the engine calls it. What spans the stack is kept in
 * provider/engine/engine-operation.ts; these drive the provider as the real engine does
 * (pulumi/pulumi step_generator.go: Check with the old inputs, Diff, and after a replace
 * a second Check with no old inputs) and call what the engine may call again.
 */
import { afterAll, beforeEach, describe, expect, it } from "vitest";
import { closeSharedDispatcher, providers } from "../../provider";
import { newOperation } from "../support/operation";
import { useEmulator } from "../support/emulator";
import { Driver, useWorkspace } from "./support";

const provider = providers["webhooks:EventType"]!;
const emu = useEmulator();
const d = () => new Driver(emu(), provider);
afterAll(() => closeSharedDispatcher());
beforeEach(async () => {
  newOperation();
  await useWorkspace(emu(), provider);
});

describe("EventType: the engine's second Check of a replacement that keeps the name", () => {
  it("passes however often it is called after the Diff that decided the replacement", async () => {
    const v1 = await d().create({ name: "order.created", description: "v1" });
    newOperation(); // the next run: another plugin process
    const v2 = { name: "order.created", description: "v2" };
    expect((await d().check(v2, v1.inputs)).failures).toEqual([]);
    const diff = await provider.diff!(v1.id, v1.outs, (await d().check(v2, v1.inputs)).inputs);
    expect(diff).toMatchObject({ replaces: ["description"], deleteBeforeReplace: true });
    // The second Check (no old inputs), then the same call again: the same answer both times.
    expect((await d().check(v2)).failures).toEqual([]);
    expect((await d().check(v2)).failures).toEqual([]);
  });

  it("passes when Diff replaces on the stored outputs although the old inputs showed no change", async () => {
    const v1 = await d().create({ name: "invoice.paid", description: "v1" });
    newOperation(); // the next run: another plugin process
    // Outputs that differ from the old inputs (the entry was registered again with another description).
    const outs = { ...v1.outs, description: "by hand" };
    expect((await d().check({ name: "invoice.paid", description: "v1" }, v1.inputs)).failures).toEqual([]);
    const diff = await provider.diff!(v1.id, outs, (await d().check({ name: "invoice.paid", description: "v1" }, v1.inputs)).inputs);
    expect(diff).toMatchObject({ replaces: ["description"], deleteBeforeReplace: true });
    expect((await d().check({ name: "invoice.paid", description: "v1" })).failures).toEqual([]);
  });

  it("learns only the entry Diff replaced: another name registered by hand still fails the preview", async () => {
    const ws = await useWorkspace(emu(), provider);
    await d().raw("POST", "/v1/event-types", ws.webhooks.admin, { name: "refund.made", description: "by hand" });
    const v1 = await d().create({ name: "refund.asked", description: "v1" });
    newOperation(); // the next run: another plugin process
    const v2 = { name: "refund.asked", description: "v2" };
    await provider.diff!(v1.id, v1.outs, (await d().check(v2, v1.inputs)).inputs);
    expect((await d().check(v2)).failures).toEqual([]);
    expect((await d().check({ name: "refund.made" })).failures).toEqual([{ property: "name", reason: expect.stringMatching(/already registered workspace-wide \(409 conflict, event_type_exists\)/) }]);
  });
});
