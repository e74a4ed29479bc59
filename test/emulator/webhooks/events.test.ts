/**
 * Events over HTTP: publish and fan-out, Idempotency-Key, the monthly deliveries
 * ceiling, reads, an event's deliveries, and replay with its conflict rows and the
 * shared redeliver bucket.
 */
import { describe, expect, it } from "vitest";
import { control, useEmulator } from "../../support/emulator";
import { createEndpoint, expectError, expectValidation, newWorkspace, publish, wh } from "./endpoints-support";

describe("publish and fan-out", () => {
  const emu = useEmulator();

  it("creates queued deliveries to enabled endpoints of the same project whose subscriptions match", async () => {
    const ws = await newWorkspace(emu(), "pro");
    const p2 = await control(emu(), "POST", "/projects", { workspace_id: ws.workspace_id, name: "p2" });
    const match = await createEndpoint(emu(), ws.webhooks.admin, { subscriptions: [{ event_type: "order.*" }] });
    const all = await createEndpoint(emu(), ws.webhooks.admin, { subscriptions: [{ event_type: "**" }] });
    await createEndpoint(emu(), ws.webhooks.admin, { subscriptions: [{ event_type: "user.*" }] });
    await createEndpoint(emu(), ws.webhooks.admin, { subscriptions: [{ event_type: "**" }], project_id: p2.id });
    const disabled = await createEndpoint(emu(), ws.webhooks.admin, { subscriptions: [{ event_type: "**" }] });
    await wh(emu(), "PATCH", `/v1/endpoints/${disabled.id}`, { key: ws.webhooks.admin, body: { status: "disabled" } });
    const suspended = await createEndpoint(emu(), ws.webhooks.admin, { subscriptions: [{ event_type: "**" }] });
    await control(emu(), "PUT", `/webhooks/endpoints/${suspended.id}/suspension`, { cause: "non_payment" });

    const res = await publish(emu(), ws.webhooks.publish, { event_type: "order.created", payload: { n: 1 }, source: "shop" });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ event_type: "order.created", payload: { n: 1 }, project_id: ws.project_id, source: "shop", deliveries: 2 });
    const dl = await wh(emu(), "GET", `/v1/events/${res.body.id}/deliveries`, { key: ws.webhooks.read });
    expect(dl.status).toBe(200);
    expect(dl.body.data.map((d: { endpoint_id: string }) => d.endpoint_id).sort()).toEqual([match.id, all.id].sort());
    expect(dl.body.data.every((d: { status: string; event_id: string }) => d.status === "queued" && d.event_id === res.body.id)).toBe(true);
  });

  it("publishing to another project fans out there only", async () => {
    const ws = await newWorkspace(emu());
    const p2 = await control(emu(), "POST", "/projects", { workspace_id: ws.workspace_id, name: "p2" });
    await createEndpoint(emu(), ws.webhooks.admin);
    const there = await createEndpoint(emu(), ws.webhooks.admin, { project_id: p2.id });
    const res = await publish(emu(), ws.webhooks.publish, { event_type: "x", project_id: p2.id });
    expect(res.body).toMatchObject({ project_id: p2.id, deliveries: 1 });
    const dl = await wh(emu(), "GET", `/v1/events/${res.body.id}/deliveries`, { key: ws.webhooks.read });
    expect(dl.body.data[0].endpoint_id).toBe(there.id);
  });

  it("validates the body", async () => {
    const ws = await newWorkspace(emu());
    expectValidation(await wh(emu(), "POST", "/v1/events", { key: ws.webhooks.publish, body: { payload: {} } }), [{ loc: ["body", "event_type"], type: "missing" }]);
    expectValidation(await wh(emu(), "POST", "/v1/events", { key: ws.webhooks.publish, body: { event_type: "a" } }), [{ loc: ["body", "payload"], type: "missing" }]);
    expectValidation(await wh(emu(), "POST", "/v1/events", { key: ws.webhooks.publish, body: { event_type: "a", payload: [1] } }), [{ loc: ["body", "payload"], type: "record_type" }]);
  });

  it("reads: list newest first with filters, single read with payload, 404 event", async () => {
    const ws = await newWorkspace(emu());
    const a = (await publish(emu(), ws.webhooks.publish, { event_type: "a.one", payload: { v: 1 } })).body;
    const b = (await publish(emu(), ws.webhooks.publish, { event_type: "b.two", payload: { v: 2 } })).body;
    const list = await wh(emu(), "GET", "/v1/events", { key: ws.webhooks.read });
    expect(list.body.data.map((e: { id: string }) => e.id)).toEqual([b.id, a.id]);
    expect(list.body.data[0].payload).toBeUndefined();
    const filtered = await wh(emu(), "GET", "/v1/events?event_type=a.one", { key: ws.webhooks.read });
    expect(filtered.body.data.map((e: { id: string }) => e.id)).toEqual([a.id]);
    const one = await wh(emu(), "GET", `/v1/events/${a.id}`, { key: ws.webhooks.read });
    expect(one.body).toMatchObject({ id: a.id, event_type: "a.one", payload: { v: 1 } });
    expectError(await wh(emu(), "GET", "/v1/events/evt_nope", { key: ws.webhooks.read }), 404, "not_found", { reason: "event", id: "evt_nope" });
    const other = await newWorkspace(emu());
    expectError(await wh(emu(), "GET", `/v1/events/${a.id}`, { key: other.webhooks.read }), 404, "not_found", { reason: "event", id: a.id });
  });
});

describe("publish runs the type policy and schema before fan-out", () => {
  const emu = useEmulator();

  it("strict policy: 422 unknown_event_type, no event and no delivery; a registered schema is enforced", async () => {
    const ws = await newWorkspace(emu());
    await createEndpoint(emu(), ws.webhooks.admin);
    expect((await wh(emu(), "PUT", "/v1/event-types/policy", { key: ws.webhooks.admin, body: { policy: "strict" } })).status).toBe(200);
    expectError(await publish(emu(), ws.webhooks.publish, { event_type: "order.created" }), 422, "unknown_event_type", { event_type: "order.created" });
    const schema = { type: "object", required: ["id"], properties: { id: { type: "string" } } };
    expect((await wh(emu(), "POST", "/v1/event-types", { key: ws.webhooks.admin, body: { name: "order.created", payload_schema: schema } })).status).toBe(201);
    const bad = await publish(emu(), ws.webhooks.publish, { event_type: "order.created", payload: {} });
    expect(bad.status).toBe(422);
    expect(bad.body.error).toMatchObject({ code: "invalid_payload", details: { reason: "payload" } });
    expect((await wh(emu(), "GET", "/v1/deliveries", { key: ws.webhooks.read })).body.total).toBe(0);
    const ok = await publish(emu(), ws.webhooks.publish, { event_type: "order.created", payload: { id: "o1" } });
    expect(ok.body.deliveries).toBe(1);
    expect((await wh(emu(), "GET", "/v1/events", { key: ws.webhooks.read })).body.total).toBe(1);
  });
});

describe("Idempotency-Key", () => {
  const emu = useEmulator();

  it("same key and body gives the same event back with no second fan-out", async () => {
    const ws = await newWorkspace(emu());
    await createEndpoint(emu(), ws.webhooks.admin);
    const h = { "idempotency-key": "order-42" };
    const first = await publish(emu(), ws.webhooks.publish, { event_type: "order.created", payload: { a: 1, b: [1, 2] } }, h);
    const again = await publish(emu(), ws.webhooks.publish, { event_type: "order.created", payload: { b: [1, 2], a: 1 } }, h);
    expect(first.status).toBe(201);
    expect(again.status).toBeGreaterThanOrEqual(200);
    expect(again.status).toBeLessThan(300);
    expect(again.body.id).toBe(first.body.id);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect((await wh(emu(), "GET", "/v1/events", { key: ws.webhooks.read })).body.total).toBe(1);
    expect((await wh(emu(), "GET", "/v1/deliveries", { key: ws.webhooks.read })).body.total).toBe(1);
  });

  it("same key, different body: 409 idempotency_key_reuse; the original stands", async () => {
    const ws = await newWorkspace(emu());
    const h = { "idempotency-key": "k-1" };
    const first = await publish(emu(), ws.webhooks.publish, { event_type: "a", payload: { v: 1 } }, h);
    expectError(await publish(emu(), ws.webhooks.publish, { event_type: "a", payload: { v: 2 } }, h), 409, "conflict", { reason: "idempotency_key_reuse", idempotency_key: "k-1" });
    const read = await wh(emu(), "GET", `/v1/events/${first.body.id}`, { key: ws.webhooks.read });
    expect(read.body.payload).toEqual({ v: 1 });
  });

  it("keys are per workspace", async () => {
    const a = await newWorkspace(emu());
    const b = await newWorkspace(emu());
    const h = { "idempotency-key": "shared" };
    const ea = await publish(emu(), a.webhooks.publish, { event_type: "a" }, h);
    const eb = await publish(emu(), b.webhooks.publish, { event_type: "b" }, h);
    expect(eb.status).toBe(201);
    expect(eb.body.id).not.toBe(ea.body.id);
  });
});

describe("monthly deliveries ceiling", () => {
  const emu = useEmulator({ plans: { free: { webhooks: { deliveries_per_month: 5 } } } });

  it("refuses a publish whose deliveries would pass the limit: 402 quota_exceeded period", async () => {
    const ws = await newWorkspace(emu());
    await createEndpoint(emu(), ws.webhooks.admin);
    await createEndpoint(emu(), ws.webhooks.admin);
    const info = await control(emu(), "GET", `/workspaces/${ws.workspace_id}`);
    // The cycle starts on the creation day of month (28th for later days).
    const created = new Date(info.created_at);
    const period = new Date(Date.UTC(created.getUTCFullYear(), created.getUTCMonth(), Math.min(created.getUTCDate(), 28))).toISOString().slice(0, 10);
    expect((await publish(emu(), ws.webhooks.publish, { event_type: "a" })).status).toBe(201);
    expect((await publish(emu(), ws.webhooks.publish, { event_type: "a" })).status).toBe(201);
    // 4 used; two more would make 6 > 5, so current (4) is below the limit.
    expectError(await publish(emu(), ws.webhooks.publish, { event_type: "a" }), 402, "quota_exceeded", { reason: "period", metric: "deliveries", limit: 5, current: 4, period });
    // An event matching no endpoint creates no delivery and passes.
    expect((await publish(emu(), ws.webhooks.publish, { event_type: "a", project_id: (await control(emu(), "POST", "/projects", { workspace_id: ws.workspace_id })).id })).status).toBe(201);
    expect((await wh(emu(), "GET", "/v1/events", { key: ws.webhooks.read })).body.total).toBe(3);
  });

  it("parallel publishes never pass the ceiling", async () => {
    const ws = await newWorkspace(emu());
    await createEndpoint(emu(), ws.webhooks.admin);
    const results = await Promise.all(Array.from({ length: 40 }, () => publish(emu(), ws.webhooks.publish, { event_type: "a" })));
    expect(results.filter((r) => r.status === 201)).toHaveLength(5);
    expect(results.filter((r) => r.status === 402)).toHaveLength(35);
    expect((await wh(emu(), "GET", "/v1/deliveries", { key: ws.webhooks.read })).body.total).toBe(5);
  });

  it("usage added on the control plane counts; the next billing cycle starts over", async () => {
    const ws = await newWorkspace(emu());
    await createEndpoint(emu(), ws.webhooks.admin);
    await control(emu(), "POST", "/webhooks/usage", { workspace_id: ws.workspace_id, deliveries: 5 });
    const refused = await publish(emu(), ws.webhooks.publish, { event_type: "a" });
    expect(refused.status).toBe(402);
    expect(refused.body.error.details).toMatchObject({ reason: "period", current: 5, limit: 5 });
    await control(emu(), "POST", "/clock", { advance_seconds: 32 * 86400 });
    try {
      expect((await publish(emu(), ws.webhooks.publish, { event_type: "a" })).status).toBe(201);
    } finally {
      await control(emu(), "POST", "/clock", { advance_seconds: -32 * 86400 });
    }
  });
});

describe("replay of an event to an endpoint", () => {
  const emu = useEmulator();

  async function setup() {
    const ws = await newWorkspace(emu(), "pro");
    const target = await createEndpoint(emu(), ws.webhooks.admin, { subscriptions: [{ event_type: "nothing" }] });
    const event = (await publish(emu(), ws.webhooks.publish, { event_type: "order.created", payload: { a: 1 } })).body;
    return { ws, target, event };
  }
  const replay = (key: string, eventId: string, endpointId: string) => wh(emu(), "POST", `/v1/events/${eventId}/replay`, { key, body: { endpoint_id: endpointId } });

  it("creates a new queued delivery and returns its id", async () => {
    const { ws, target, event } = await setup();
    const res = await replay(ws.webhooks.admin, event.id, target.id);
    expect(res.status).toBe(200);
    expect(res.body.delivery_ids).toHaveLength(1);
    const d = await wh(emu(), "GET", `/v1/deliveries/${res.body.delivery_ids[0]}`, { key: ws.webhooks.read });
    expect(d.body).toMatchObject({ event_id: event.id, endpoint_id: target.id, status: "queued" });
  });

  it("409 delivery_exists when the endpoint already holds a delivery of the event", async () => {
    const { ws, target, event } = await setup();
    await replay(ws.webhooks.admin, event.id, target.id);
    expectError(await replay(ws.webhooks.admin, event.id, target.id), 409, "conflict", { reason: "delivery_exists", event_id: event.id, endpoint_id: target.id });
  });

  it.each(["disabled", "auto_disabled"])("409 endpoint_not_enabled for a %s endpoint", async (status) => {
    const { ws, target, event } = await setup();
    await control(emu(), "POST", `/webhooks/endpoints/${target.id}/status`, { status });
    expectError(await replay(ws.webhooks.admin, event.id, target.id), 409, "conflict", { reason: "endpoint_not_enabled", id: target.id, state: status });
  });

  it("409 endpoint_suspended with the most serious cause", async () => {
    const { ws, target, event } = await setup();
    await control(emu(), "PUT", `/webhooks/endpoints/${target.id}/suspension`, { cause: "plan_downgrade" });
    expectError(await replay(ws.webhooks.admin, event.id, target.id), 409, "conflict", { reason: "endpoint_suspended", id: target.id, cause: "plan_downgrade" });
    await control(emu(), "PUT", `/webhooks/endpoints/${target.id}/suspension`, { cause: "non_payment" });
    expectError(await replay(ws.webhooks.admin, event.id, target.id), 409, "conflict", { reason: "endpoint_suspended", id: target.id, cause: "non_payment" });
  });

  it("409 replay_across_projects for an endpoint of another project", async () => {
    const { ws, event } = await setup();
    const p2 = await control(emu(), "POST", "/projects", { workspace_id: ws.workspace_id, name: "p2" });
    const there = await createEndpoint(emu(), ws.webhooks.admin, { project_id: p2.id, subscriptions: [] });
    expectError(await replay(ws.webhooks.admin, event.id, there.id), 409, "conflict", { reason: "replay_across_projects", event_id: event.id, endpoint_id: there.id });
  });

  it("404 for an event or endpoint outside the workspace", async () => {
    const { ws, target, event } = await setup();
    const other = await setup();
    expectError(await replay(ws.webhooks.admin, other.event.id, target.id), 404, "not_found", { reason: "event", id: other.event.id });
    expectError(await replay(ws.webhooks.admin, event.id, other.target.id), 404, "not_found", { reason: "endpoint", id: other.target.id });
    expectValidation(await wh(emu(), "POST", `/v1/events/${event.id}/replay`, { key: ws.webhooks.admin, body: {} }), [{ loc: ["body", "endpoint_id"], type: "missing" }]);
  });
});

describe("shared redeliver bucket", () => {
  const emu = useEmulator();

  it("event replay, bulk redeliver, bulk replay and test share one bucket; 429 with Retry-After and details.retry_after", async () => {
    await control(emu(), "PUT", "/webhooks/settings", { redeliver_per_minute: 4 });
    try {
      const ws = await newWorkspace(emu());
      const ep = await createEndpoint(emu(), ws.webhooks.admin, { subscriptions: [] });
      const event = (await publish(emu(), ws.webhooks.publish, { event_type: "a" })).body;
      const range = { from: "2020-01-01T00:00:00Z", to: "2099-01-01T00:00:00Z" };
      expect((await wh(emu(), "POST", `/v1/events/${event.id}/replay`, { key: ws.webhooks.admin, body: { endpoint_id: ep.id } })).status).toBe(200);
      expect((await wh(emu(), "POST", "/v1/deliveries/redeliver", { key: ws.webhooks.admin, body: {} })).status).toBe(200);
      expect((await wh(emu(), "POST", "/v1/deliveries/replay", { key: ws.webhooks.admin, body: range })).status).toBe(200);
      expect((await wh(emu(), "POST", `/v1/endpoints/${ep.id}/test`, { key: ws.webhooks.admin })).status).toBe(200);
      for (const [method, path, body] of [
        ["POST", `/v1/endpoints/${ep.id}/test`, undefined],
        ["POST", "/v1/deliveries/redeliver", {}],
        ["POST", "/v1/deliveries/replay", range],
        ["POST", `/v1/events/${event.id}/replay`, { endpoint_id: ep.id }],
      ] as const) {
        const res = await wh(emu(), method, path, { key: ws.webhooks.admin, body });
        const error = expectError(res, 429, "rate_limited", { retry_after: expect.any(Number) });
        expect(error.details.retry_after).toBeGreaterThanOrEqual(1);
        expect(res.headers.get("retry-after")).toBe(String(error.details.retry_after));
      }
      // Another workspace has its own bucket.
      const other = await newWorkspace(emu());
      expect((await wh(emu(), "POST", "/v1/deliveries/redeliver", { key: other.webhooks.admin, body: {} })).status).toBe(200);
      // The bucket refills on the emulator clock.
      await control(emu(), "POST", "/clock", { advance_seconds: 60 });
      expect((await wh(emu(), "POST", "/v1/deliveries/redeliver", { key: ws.webhooks.admin, body: {} })).status).toBe(200);
    } finally {
      await control(emu(), "PUT", "/webhooks/settings", { redeliver_per_minute: 60 });
    }
  });
});
