/**
 * 200 parallel creates never duplicate a unique name and never pass a plan ceiling
 * (issue: the emulator's concurrency). Endpoint ceilings are covered in
 * webhooks/endpoints.test.ts; here, a unique name and the Inboxes allocations.
 */
import { describe, expect, it } from "vitest";
import { call, control, errorOf, useEmulator } from "../support/emulator";

const PARALLEL = 200;

describe("parallel creates", () => {
  const emu = useEmulator();

  it("200 parallel registrations of one event type name: exactly one is created, the rest are 409 event_type_exists", async () => {
    const key = emu().keys.webhooks.admin;
    const results = await Promise.all(
      Array.from({ length: PARALLEL }, (_, i) =>
        call(emu(), "POST", "/webhooks/v1/event-types", { key, body: { name: "order.created", description: `attempt ${i}` } }),
      ),
    );
    const statuses = results.map((r) => r.status);
    expect(statuses.filter((s) => s === 201)).toHaveLength(1);
    expect(statuses.filter((s) => s === 409)).toHaveLength(PARALLEL - 1);
    for (const r of results.filter((x) => x.status === 409)) {
      expect(errorOf(r).details).toEqual({ reason: "event_type_exists", event_type: "order.created" });
    }
    const catalog = await call(emu(), "GET", "/webhooks/v1/event-types?limit=200", { key });
    expect(catalog.body.data.filter((e: { name: string }) => e.name === "order.created")).toHaveLength(1);
  });

  it("200 parallel inbox creates on the pro plan stop exactly at the allocation, with quota_exceeded for the rest", async () => {
    const ws = await control(emu(), "POST", "/workspaces", { plan: "pro" });
    const results = await Promise.all(
      Array.from({ length: PARALLEL }, () => call(emu(), "POST", "/inboxes/v1/inboxes", { key: ws.inboxes.admin, body: { transport: "email" } })),
    );
    const created = results.filter((r) => r.status === 201);
    expect(created).toHaveLength(25);
    for (const r of results.filter((x) => x.status !== 201)) {
      expect(r.status).toBe(402);
      expect(errorOf(r)).toMatchObject({ code: "quota_exceeded", details: { reason: "allocation", metric: "inboxes", limit: 25, current: 25 } });
    }
    expect(new Set(created.map((r) => r.body.address)).size).toBe(25);
  });
});
