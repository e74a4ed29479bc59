/**
 * Deliveries over HTTP: list filters, status validation, read and attempts, single
 * redeliver with its conflict row, bulk redeliver and replay by range, and the
 * worker pass driven by per-host outcomes.
 */
import { describe, expect, it, vi } from "vitest";
import { control, useEmulator } from "../../support/emulator";
import { createEndpoint, expectError, expectValidation, moveDeliveries, newWorkspace, publish, wh } from "./endpoints-support";

describe("deliveries: list, read, attempts", () => {
  const emu = useEmulator();

  it("filters by status, endpoint, event type, project, time and text", async () => {
    const ws = await newWorkspace(emu());
    const a = await createEndpoint(emu(), ws.webhooks.admin);
    const b = await createEndpoint(emu(), ws.webhooks.admin);
    const e1 = (await publish(emu(), ws.webhooks.publish, { event_type: "order.created", payload: { customer: "zebra-co" } })).body;
    await publish(emu(), ws.webhooks.publish, { event_type: "user.created" });
    await moveDeliveries(emu(), a.id, { to: "dead" });
    const get = async (q: string) => (await wh(emu(), "GET", `/v1/deliveries${q}`, { key: ws.webhooks.read })).body;

    expect((await get("")).total).toBe(4);
    expect((await get("?status=dead")).data.every((d: { endpoint_id: string }) => d.endpoint_id === a.id)).toBe(true);
    expect((await get("?status=dead")).total).toBe(2);
    expect((await get("?status=queued,dead")).total).toBe(4);
    expect((await get(`?endpoint_id=${b.id}`)).total).toBe(2);
    expect((await get("?event_type=order.created")).total).toBe(2);
    expect((await get(`?project_id=${ws.project_id}`)).total).toBe(4);
    expect((await get("?q=zebra")).data.every((d: { event_id: string }) => d.event_id === e1.id)).toBe(true);
    expect((await get("?since=2099-01-01T00:00:00Z")).total).toBe(0);
    expect((await get("?until=2000-01-01T00:00:00Z")).total).toBe(0);
    expect((await get("?limit=1&offset=1")).data).toHaveLength(1);
  });

  it("unknown status is 422 webhooks.unknown_delivery_status on query,status", async () => {
    const ws = await newWorkspace(emu());
    expectValidation(await wh(emu(), "GET", "/v1/deliveries?status=delivered", { key: ws.webhooks.read }), [{ loc: ["query", "status"], type: "webhooks.unknown_delivery_status" }]);
    expectValidation(await wh(emu(), "GET", "/v1/deliveries?since=yesterday", { key: ws.webhooks.read }), [{ loc: ["query", "since"], type: "datetime_parsing" }]);
  });

  it("read and attempts; 404 delivery outside the workspace", async () => {
    const ws = await newWorkspace(emu());
    const ep = await createEndpoint(emu(), ws.webhooks.admin, { max_attempts: 3 });
    await publish(emu(), ws.webhooks.publish, { event_type: "a" });
    const [d] = (await moveDeliveries(emu(), ep.id, { to: "failed", failure_reason: "timeout" })).deliveries;
    await moveDeliveries(emu(), ep.id, { to: "sent", from: ["failed"], latency_ms: 42 });
    const read = await wh(emu(), "GET", `/v1/deliveries/${d!.id}`, { key: ws.webhooks.read });
    expect(read.body).toMatchObject({ id: d!.id, endpoint_id: ep.id, status: "sent", attempts: 2, last_status_code: 200, last_failure_reason: null, next_attempt_at: null });
    const attempts = await wh(emu(), "GET", `/v1/deliveries/${d!.id}/attempts`, { key: ws.webhooks.read });
    expect(attempts.body.data).toMatchObject([
      { number: 1, outcome: "failed", failure_reason: "timeout", status_code: null, delivery_id: d!.id },
      { number: 2, outcome: "delivered", status_code: 200, latency_ms: 42 },
    ]);
    const other = await newWorkspace(emu());
    expectError(await wh(emu(), "GET", `/v1/deliveries/${d!.id}`, { key: other.webhooks.read }), 404, "not_found", { reason: "delivery", id: d!.id });
    expectError(await wh(emu(), "GET", `/v1/deliveries/${d!.id}/attempts`, { key: other.webhooks.read }), 404, "not_found", { reason: "delivery", id: d!.id });
  });

  it("a failed delivery waits for a retry until max_attempts, then a failure is dead", async () => {
    const ws = await newWorkspace(emu());
    const ep = await createEndpoint(emu(), ws.webhooks.admin, { max_attempts: 2, retry_schedule: [60] });
    await publish(emu(), ws.webhooks.publish, { event_type: "a" });
    await control(emu(), "PUT", `/webhooks/targets/${new URL(ep.url).hostname}`, { result: "http_status", status_code: 502 });
    const first = await control(emu(), "POST", "/webhooks/worker/run", { endpoint_id: ep.id });
    expect(first.deliveries).toMatchObject([{ status: "failed", attempts: 1, last_status_code: 502, last_failure_reason: "http_status" }]);
    expect(first.deliveries[0].next_attempt_at).not.toBeNull();
    // Not due yet: nothing to do.
    expect((await control(emu(), "POST", "/webhooks/worker/run", { endpoint_id: ep.id })).processed).toBe(0);
    await control(emu(), "POST", "/clock", { advance_seconds: 61 });
    try {
      const second = await control(emu(), "POST", "/webhooks/worker/run", { endpoint_id: ep.id });
      expect(second.deliveries).toMatchObject([{ status: "dead", attempts: 2, next_attempt_at: null }]);
    } finally {
      await control(emu(), "POST", "/clock", { advance_seconds: -61 });
    }
  });
});

describe("deliveries: redeliver", () => {
  const emu = useEmulator();

  it.each(["sent", "failed", "dead"])("a %s delivery is re-armed (queued)", async (state) => {
    const ws = await newWorkspace(emu());
    const ep = await createEndpoint(emu(), ws.webhooks.admin);
    await publish(emu(), ws.webhooks.publish, { event_type: "a" });
    const [d] = (await moveDeliveries(emu(), ep.id, { to: state })).deliveries;
    const res = await wh(emu(), "POST", `/v1/deliveries/${d!.id}/redeliver`, { key: ws.webhooks.admin });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: d!.id, status: "queued", next_attempt_at: null });
  });

  it.each(["queued", "sending"])("a %s delivery: 409 delivery_not_redeliverable, unchanged", async (state) => {
    const ws = await newWorkspace(emu());
    const ep = await createEndpoint(emu(), ws.webhooks.admin);
    await publish(emu(), ws.webhooks.publish, { event_type: "a" });
    if (state === "sending") await moveDeliveries(emu(), ep.id, { to: "sending" });
    const [d] = (await wh(emu(), "GET", "/v1/deliveries", { key: ws.webhooks.read })).body.data;
    expectError(await wh(emu(), "POST", `/v1/deliveries/${d.id}/redeliver`, { key: ws.webhooks.admin }), 409, "conflict", { reason: "delivery_not_redeliverable", id: d.id, state });
    expect((await wh(emu(), "GET", `/v1/deliveries/${d.id}`, { key: ws.webhooks.read })).body.status).toBe(state);
  });

  it("unknown delivery: 404", async () => {
    const ws = await newWorkspace(emu());
    expectError(await wh(emu(), "POST", "/v1/deliveries/dlv_nope/redeliver", { key: ws.webhooks.admin }), 404, "not_found", { reason: "delivery", id: "dlv_nope" });
  });
});

describe("deliveries: bulk redeliver and replay by range", () => {
  const emu = useEmulator();

  async function withStates() {
    const ws = await newWorkspace(emu());
    const a = await createEndpoint(emu(), ws.webhooks.admin);
    const b = await createEndpoint(emu(), ws.webhooks.admin);
    for (let i = 0; i < 3; i++) await publish(emu(), ws.webhooks.publish, { event_type: "a" });
    await moveDeliveries(emu(), a.id, { to: "dead", count: 2 });
    await moveDeliveries(emu(), a.id, { to: "failed", count: 1 });
    await moveDeliveries(emu(), b.id, { to: "dead" });
    return { ws, a, b };
  }
  const count = async (key: string, q: string) => (await wh(emu(), "GET", `/v1/deliveries${q}`, { key })).body.total;

  it("redeliver re-arms dead by default, or failed; filtered by endpoint; limited", async () => {
    const { ws, a } = await withStates();
    const r1 = await wh(emu(), "POST", "/v1/deliveries/redeliver", { key: ws.webhooks.admin, body: { endpoint_id: a.id } });
    expect(r1.status).toBe(200);
    expect(r1.body.count).toBe(2);
    expect(r1.body.delivery_ids).toHaveLength(2);
    expect(await count(ws.webhooks.read, `?status=dead&endpoint_id=${a.id}`)).toBe(0);
    const r2 = await wh(emu(), "POST", "/v1/deliveries/redeliver", { key: ws.webhooks.admin, body: { status: "failed" } });
    expect(r2.body.count).toBe(1);
    const r3 = await wh(emu(), "POST", "/v1/deliveries/redeliver", { key: ws.webhooks.admin, body: { limit: 1 } });
    expect(r3.body.count).toBe(1);
    expect(await count(ws.webhooks.read, "?status=dead")).toBe(2);
  });

  it("limit is at most 10000; status only dead or failed", async () => {
    const ws = await newWorkspace(emu());
    expectValidation(await wh(emu(), "POST", "/v1/deliveries/redeliver", { key: ws.webhooks.admin, body: { limit: 10001 } }), [{ loc: ["body", "limit"], type: "less_than_equal", params: { limit: 10000 } }]);
    expect((await wh(emu(), "POST", "/v1/deliveries/redeliver", { key: ws.webhooks.admin, body: { limit: 10000 } })).status).toBe(200);
    expectValidation(await wh(emu(), "POST", "/v1/deliveries/redeliver", { key: ws.webhooks.admin, body: { status: "sent" } }), [{ loc: ["body", "status"], type: "enum" }]);
  });

  it("endpoint or project out of reach: 404", async () => {
    const { ws } = await withStates();
    const other = await withStates();
    expectError(await wh(emu(), "POST", "/v1/deliveries/redeliver", { key: ws.webhooks.admin, body: { endpoint_id: other.a.id } }), 404, "not_found", { reason: "endpoint", id: other.a.id });
    expectError(await wh(emu(), "POST", "/v1/deliveries/replay", { key: ws.webhooks.admin, body: { from: "2020-01-01T00:00:00Z", to: "2099-01-01T00:00:00Z", project_id: other.ws.project_id } }), 404, "not_found", { reason: "project", id: other.ws.project_id });
  });

  it("replay by range: inclusive bounds, equal bounds allowed, from after to is webhooks.end_before_start on body,to", async () => {
    const { ws } = await withStates();
    const dead = (await wh(emu(), "GET", "/v1/deliveries?status=dead", { key: ws.webhooks.read })).body.data as { id: string; created_at: string }[];
    const one = dead[0]!;
    const exact = await wh(emu(), "POST", "/v1/deliveries/replay", { key: ws.webhooks.admin, body: { from: one.created_at, to: one.created_at } });
    expect(exact.status).toBe(200);
    expect(exact.body.delivery_ids).toContain(one.id);
    expect(exact.body.count).toBe(dead.filter((d) => d.created_at === one.created_at).length);
    expectValidation(await wh(emu(), "POST", "/v1/deliveries/replay", { key: ws.webhooks.admin, body: { from: "2025-01-02T00:00:00Z", to: "2025-01-01T00:00:00Z" } }), [{ loc: ["body", "to"], type: "webhooks.end_before_start" }]);
    expectValidation(await wh(emu(), "POST", "/v1/deliveries/replay", { key: ws.webhooks.admin, body: { to: "2025-01-01T00:00:00Z" } }), [{ loc: ["body", "from"], type: "missing" }]);
    const none = await wh(emu(), "POST", "/v1/deliveries/replay", { key: ws.webhooks.admin, body: { from: "2000-01-01T00:00:00Z", to: "2000-01-02T00:00:00Z" } });
    expect(none.body).toEqual({ count: 0, delivery_ids: [] });
    const all = await wh(emu(), "POST", "/v1/deliveries/replay", { key: ws.webhooks.admin, body: { from: "2000-01-01T00:00:00Z", to: "2099-01-01T00:00:00Z", status: "failed" } });
    expect(all.body.count).toBe(1);
  });

  it("compare-and-set: a delivery the worker claimed (sending) is left untouched", async () => {
    const ws = await newWorkspace(emu());
    const ep = await createEndpoint(emu(), ws.webhooks.admin);
    await publish(emu(), ws.webhooks.publish, { event_type: "a" });
    await publish(emu(), ws.webhooks.publish, { event_type: "a" });
    await moveDeliveries(emu(), ep.id, { to: "dead" });
    // A redeliver re-arms one; the worker claims it (sending) while the other stays dead.
    const [first] = (await wh(emu(), "GET", "/v1/deliveries?status=dead", { key: ws.webhooks.read })).body.data;
    await wh(emu(), "POST", `/v1/deliveries/${first.id}/redeliver`, { key: ws.webhooks.admin });
    await moveDeliveries(emu(), ep.id, { to: "sending", from: ["queued"] });
    const res = await wh(emu(), "POST", "/v1/deliveries/redeliver", { key: ws.webhooks.admin, body: {} });
    expect(res.body.count).toBe(1);
    expect(res.body.delivery_ids).not.toContain(first.id);
    expect((await wh(emu(), "GET", `/v1/deliveries/${first.id}`, { key: ws.webhooks.read })).body.status).toBe("sending");
  });
});

describe("deliveries: automatic worker (auto_deliver_ms)", () => {
  const emu = useEmulator();

  it("off by default: queued deliveries stay queued until moved", async () => {
    const ws = await newWorkspace(emu());
    await createEndpoint(emu(), ws.webhooks.admin);
    await publish(emu(), ws.webhooks.publish, { event_type: "a" });
    expect((await control(emu(), "GET", "/webhooks/settings")).auto_deliver_ms).toBe(0);
    // Longer than the idle poll: still nothing attempted.
    await new Promise((r) => setTimeout(r, 600));
    expect((await wh(emu(), "GET", "/v1/deliveries?status=queued", { key: ws.webhooks.read })).body.total).toBe(1);
  });

  it("on: deliveries are sent by host outcome on their own, and the endpoint can then be deleted", async () => {
    const ws = await newWorkspace(emu());
    const ok = await createEndpoint(emu(), ws.webhooks.admin);
    const down = await createEndpoint(emu(), ws.webhooks.admin, { url: "https://auto-down.example.com/h", max_attempts: 1 });
    await control(emu(), "PUT", "/webhooks/targets/auto-down.example.com", { result: "connection_failed" });
    await publish(emu(), ws.webhooks.publish, { event_type: "a" });
    await control(emu(), "PUT", "/webhooks/settings", { auto_deliver_ms: 20 });
    try {
      await vi.waitFor(async () => {
        const list = (await wh(emu(), "GET", "/v1/deliveries", { key: ws.webhooks.read })).body.data as { endpoint_id: string; status: string }[];
        expect(Object.fromEntries(list.map((d) => [d.endpoint_id, d.status]))).toEqual({ [ok.id]: "sent", [down.id]: "dead" });
      }, { timeout: 10_000, interval: 50 });
      expect((await wh(emu(), "DELETE", `/v1/endpoints/${ok.id}`, { key: ws.webhooks.admin })).status).toBe(204);
    } finally {
      await control(emu(), "PUT", "/webhooks/settings", { auto_deliver_ms: 0 });
    }
  });
});
