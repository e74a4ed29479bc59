/**
 * Issue 24, scenario 5, through the engine stand-in against the emulator: a resource
 * renamed without an alias whose new name adopts its own object (`adoptExisting` for
 * an event type, as the preview advises; `adoptId` of its own id for an endpoint).
 * The up adopts the object and then deletes the removed old resource: that delete
 * must not delete the object the new resource now holds.
 */
import { describe, expect, it } from "vitest";
import { call, useEmulator } from "../support/emulator";
import { errorsOf, RUNS_TIMEOUT_MS, useOwnershipStacks, type Declared, CLI_MISSING } from "./support";

const emu = useEmulator();
const stack = useOwnershipStacks(emu);

describe.skipIf(CLI_MISSING !== undefined)("rename, adopting its own object", () => {
  it("an event type renamed with adoptExisting, and an endpoint renamed with adoptId of its own id: both objects stay, held by the new names; a second up changes nothing", async () => {
    const s = await stack("rename-adopt");
    const et = (name: string, extra: Record<string, unknown> = {}): Declared => ({ kind: "webhooks:EventType", name, inputs: { name: "order.shipped", description: "shipped", ...extra } });
    const ep = (name: string, extra: Record<string, unknown> = {}): Declared => ({ kind: "webhooks:Endpoint", name, inputs: { url: "https://hooks.example.com/shipped", ...extra } });
    const first = await s.run("up", [et("et"), ep("hook")]);
    expect(first.ok, errorsOf(first)).toBe(true);
    const endpointId = s.id("hook")!;
    const eventTypeId = s.id("et")!;

    const renamed = [et("orderShipped", { adoptExisting: true }), ep("shippedHook", { adoptId: endpointId })];
    const up = await s.run("up", renamed);
    expect(up.ok, errorsOf(up)).toBe(true);
    expect(s.id("orderShipped")).toBe(eventTypeId);
    expect(s.id("shippedHook")).toBe(endpointId);
    expect(s.state().map((r) => r.urn.split("::").pop()).sort()).toEqual(["orderShipped", "shippedHook"]);
    expect((await call(emu(), "GET", `/webhooks/v1/endpoints/${endpointId}`, { key: s.ws.webhooks.admin })).status).toBe(200);
    expect((await call(emu(), "GET", "/webhooks/v1/event-types/order.shipped", { key: s.ws.webhooks.admin })).status).toBe(200);

    const again = await s.run("up", renamed);
    expect(again.ok, errorsOf(again)).toBe(true);
    expect(again.steps.filter((st) => st.op !== "same")).toEqual([]);
  }, RUNS_TIMEOUT_MS);
});
