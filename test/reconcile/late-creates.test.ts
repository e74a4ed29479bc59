/**
 * Creates whose outcome the provider cannot see at once, through the engine stand-in
 * against the emulator (invariants 1 and 2 of provider/README.md):
 *   - a create that lands seconds after its connection dropped (longer than the 2 s
 *     the provider used to wait) is found within the reconcile window and adopted,
 *     never made a second time;
 *   - a 500 answered after the service made the object is reconciled before any
 *     second create, look-alikes included;
 *   - a create the service fails every time is not sent five times.
 * Counts come from the emulator's listings, request log and the state file.
 */
import { describe, expect, it } from "vitest";
import { control, lastSeq, requestsSince, useEmulator } from "../support/emulator";
import { errorsOf, RUNS_TIMEOUT_MS, useReconcileStacks, type ReconcileStack } from "./support";

const emu = useEmulator();
const stack = useReconcileStacks(emu);
const posts = async (since: number, path: string) => (await requestsSince(emu(), since)).filter((r) => r.method === "POST" && r.path === path);

describe("a create that lands late", () => {
  const LANDS_AFTER_MS = 5_000;

  it("lands 5 s after its connection dropped: found within the window and adopted; one endpoint, one create", async () => {
    const s = await stack("late");
    await control(emu(), "POST", "/faults", { method: "POST", path: "/webhooks/v1/endpoints", drop_then_act_ms: LANDS_AFTER_MS, count: 1 });
    const since = await lastSeq(emu());
    const started = Date.now();
    const up = await s.run("up", { endpoints: 1, windowSeconds: 15 });
    expect(up.ok, errorsOf(up)).toBe(true);
    // Whatever the provider did, the late create has landed by now.
    await new Promise((r) => setTimeout(r, Math.max(0, started + LANDS_AFTER_MS + 500 - Date.now())));
    const held = await s.endpoints();
    expect(held).toHaveLength(1);
    expect(s.state().ids).toEqual(held);
    expect(await posts(since, "/webhooks/v1/endpoints")).toHaveLength(1);

    const again = await s.run("up", { endpoints: 1, windowSeconds: 15 });
    expect(again.ok, errorsOf(again)).toBe(true);
    expect(await s.endpoints()).toEqual(held);
  }, RUNS_TIMEOUT_MS);
});

describe("a 5xx answered to a create", () => {
  it("a 500 after the service made the bin, while a look-alike's answer is lost too: each resource gets its own bin, no second create", async () => {
    const s = await stack("after-acting");
    await control(emu(), "POST", "/faults", { method: "POST", path: "/inboxes/v1/inboxes", drop_after_response: true, count: 1 });
    await control(emu(), "POST", "/faults", { method: "POST", path: "/inboxes/v1/inboxes", status_after_acting: 500, count: 1 });
    const since = await lastSeq(emu());
    const up = await s.run("up", { bins: 3, windowSeconds: 4 });
    expect(up.ok, errorsOf(up)).toBe(true);
    const held = await s.bins();
    expect(held).toHaveLength(3);
    expect(s.state().ids).toEqual(held);
    // Three resources, three creates: the two whose outcome was unknown were found, not sent again.
    expect(await posts(since, "/inboxes/v1/inboxes")).toHaveLength(3);
  }, RUNS_TIMEOUT_MS);

  it("a create the service fails every time (500, nothing made) is sent three times at most, each after a look, and the error says so", async () => {
    const s = await stack("always-500");
    await control(emu(), "POST", "/faults", { method: "POST", path: "/inboxes/v1/inboxes", status: 500, count: 10 });
    const since = await lastSeq(emu());
    const up = await s.run("up", { bins: 1, windowSeconds: 1 });
    expect(up.ok).toBe(false);
    expect(errorsOf(up)).toMatch(/failed this create 3 times .*no inbox was made/);
    expect(await posts(since, "/inboxes/v1/inboxes")).toHaveLength(3);
    expect(await s.bins()).toEqual([]);
    // Every create after the first was preceded by a listing.
    const calls = (await requestsSince(emu(), since)).filter((r) => r.path === "/inboxes/v1/inboxes").map((r) => r.method);
    expect(calls.join(" ")).not.toMatch(/POST POST/);
  }, RUNS_TIMEOUT_MS);
});
