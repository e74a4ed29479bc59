/**
 * Issue 24, scenarios 2 and 3, through the engine stand-in against the emulator:
 * reconciling a create whose outcome is unknown never takes an object that is not
 * the create's. An object created before the request was sent (on the service's
 * clock, as the answers' `Date` headers bound it) is never a candidate: neither
 * another stack's look-alike nor one this stack's state holds. And the service's
 * clock, not this machine's, decides: a create that acted and lost its answer is
 * still found when the service's clock is far behind.
 */
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { call, control, lastSeq, requestsSince, useEmulator } from "../support/emulator";
import { errorsOf, RUNS_TIMEOUT_MS, useOwnershipStacks, type Declared, CLI_MISSING } from "./support";

const emu = useEmulator();
const stack = useOwnershipStacks(emu);

const endpoint = (name: string, inputs: Record<string, unknown> = {}, dependsOn?: string[]): Declared => ({
  kind: "webhooks:Endpoint",
  name,
  inputs: { url: "https://hooks.example.com/tenant", subscriptions: [{ eventType: "order.*" }], ...inputs },
  ...(dependsOn ? { dependsOn } : {}),
});
const endpointsIn = async (key: string) => ((await call(emu(), "GET", "/webhooks/v1/endpoints?limit=200", { key })).body.data as { id: string }[]).map((e) => e.id).sort();
/** "Seconds later" on the service's clock (which alone decides): past the second-granular `Date` bound, with no wait. */
const secondsLater = () => control(emu(), "POST", "/clock", { advance_seconds: 3 });
const dropCreate = (fault: Record<string, unknown>) => control(emu(), "POST", "/faults", { method: "POST", path: "/webhooks/v1/endpoints", count: 1, ...fault });

describe.skipIf(CLI_MISSING !== undefined)("a lost create never adopts an object made before it was sent", () => {
  it("stack B made a look-alike seconds before stack A's create was dropped (before the service acted): A makes its own, and A's destroy leaves B's", async () => {
    const b = await stack("tenant-b");
    const a = await stack("tenant-a", b.ws);
    const program = [endpoint("hook")];
    // Setup (B's look-alike): its preview proves nothing here; A's up, under test, previews.
    const upB = await b.run("up", program, { verbOptions: { skipPreview: true } });
    expect(upB.ok, errorsOf(upB)).toBe(true);
    await secondsLater();
    await dropCreate({ drop: true });
    const upA = await a.run("up", program, { config: { "svc:reconcileWindowSeconds": "2" } });
    expect(upA.ok, errorsOf(upA)).toBe(true);
    expect(a.id("hook")).toBeDefined();
    expect(a.id("hook")).not.toBe(b.id("hook"));
    expect(await endpointsIn(b.ws.webhooks.admin)).toEqual([a.id("hook"), b.id("hook")].sort());

    // Its preview calls no Delete: what the destroy deletes is held by what the service keeps after it.
    const destroyA = await a.run("destroy", program, { verbOptions: { skipPreview: true } });
    expect(destroyA.ok, errorsOf(destroyA)).toBe(true);
    expect(await endpointsIn(b.ws.webhooks.admin)).toEqual([b.id("hook")]);
  }, RUNS_TIMEOUT_MS);

  it("one stack: a new look-alike (tenantA, another secret header) whose create gets a 500 before acting, does not take tenantB's object", async () => {
    const s = await stack("tenants");
    const secrets = { a: "Bearer tenant-a-token", b: "Bearer tenant-b-token" };
    const tenantB = endpoint("tenantB", { customHeaders: { Authorization: { $secret: "b" } } });
    // Setup (tenantB's object): its preview proves nothing here; the up under test previews.
    const first = await s.run("up", [tenantB], { secrets, verbOptions: { skipPreview: true } });
    expect(first.ok, errorsOf(first)).toBe(true);
    const heldByB = s.id("tenantB");
    await secondsLater();
    await dropCreate({ status: 500 });
    const since = await lastSeq(emu());
    const tenantA = endpoint("tenantA", { customHeaders: { Authorization: { $secret: "a" } } });
    // A short window: after the resend the provider watches for the lost attempt's objects until it has passed.
    const up = await s.run("up", [tenantA, { ...tenantB, dependsOn: ["tenantA"] }], { secrets, config: { "svc:reconcileWindowSeconds": "2" } });
    expect(up.ok, errorsOf(up)).toBe(true);
    expect(s.id("tenantB")).toBe(heldByB);
    expect(s.id("tenantA")).not.toBe(heldByB);
    expect(await endpointsIn(s.ws.webhooks.admin)).toEqual([s.id("tenantA"), heldByB].sort());
    // The refused create was sent again: the service made tenantA's own object.
    expect((await requestsSince(emu(), since)).filter((r) => r.method === "POST" && r.path === "/webhooks/v1/endpoints")).toHaveLength(2);
  }, RUNS_TIMEOUT_MS);
});

describe.skipIf(CLI_MISSING !== undefined)("an object found by listing", () => {
  it("matches on what the service shows, not the header values: adopted, its custom headers are written (one PATCH), and the next up changes nothing", async () => {
    const s = await stack("found-headers");
    const hook = endpoint("hook", { customHeaders: { Authorization: { $secret: "token" } } });
    const secrets = { token: "Bearer found-token" };
    await dropCreate({ drop_after_response: true });
    const since = await lastSeq(emu());
    const up = await s.run("up", [hook], { secrets, config: { "svc:reconcileWindowSeconds": "2" } });
    expect(up.ok, errorsOf(up)).toBe(true);
    const id = s.id("hook")!;
    expect(await endpointsIn(s.ws.webhooks.admin)).toEqual([id]);
    const writes = (await requestsSince(emu(), since)).filter((r) => r.method !== "GET").map((r) => `${r.method} ${r.path}`);
    expect(writes).toEqual(["POST /webhooks/v1/endpoints", `PATCH /webhooks/v1/endpoints/${id}`]);
    const again = await s.writes("up", [hook], { secrets });
    expect(again.writes).toEqual([]);
  }, RUNS_TIMEOUT_MS);
});

describe.skipIf(CLI_MISSING !== undefined)("creation times on the service's clock", () => {
  it("the service's clock 10 minutes behind: a create that acted and lost its answer is found and adopted, not made twice", async () => {
    const s = await stack("clock-behind");
    await control(emu(), "POST", "/clock", { advance_seconds: -600 });
    try {
      await dropCreate({ drop_after_response: true });
      const up = await s.run("up", [endpoint("hook")], { config: { "svc:reconcileWindowSeconds": "2" } });
      expect(up.ok, errorsOf(up)).toBe(true);
      expect(await endpointsIn(s.ws.webhooks.admin)).toEqual([s.id("hook")]);
    } finally {
      await control(emu(), "POST", "/clock", { advance_seconds: 600 });
    }
  }, RUNS_TIMEOUT_MS);
});
