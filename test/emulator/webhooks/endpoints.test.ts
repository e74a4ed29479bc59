/**
 * Receiving endpoints over HTTP: response shape, every Limits row, plan ceilings,
 * transitions, delete with pending deliveries, stats, subscriptions, test and verify
 * (outcomes set per host on the control plane; private targets blocked).
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { startEmulator } from "../../../emulator";
import { control, useEmulator } from "../../support/emulator";
import { createEndpoint, expectError, expectValidation, moveDeliveries, newWorkspace, publish, wh } from "./endpoints-support";

describe("endpoints: shape and CRUD", () => {
  const emu = useEmulator();

  it("create returns the documented shape with a generated whsec_ secret; reads never return it", async () => {
    const ws = await newWorkspace(emu());
    const res = await wh(emu(), "POST", "/v1/endpoints", {
      key: ws.webhooks.admin,
      body: { url: "https://a.example.com/h", subscriptions: [{ event_type: "order.*" }, { event_type: "a" }], custom_headers: { "X-Tenant": "t1", Authorization: "Bearer s" }, description: "d", max_attempts: 3, retry_schedule: [1, 2], delivery_timeout_ms: 5000 },
    });
    expect(res.status).toBe(201);
    expect(Object.keys(res.body).sort()).toEqual(
      ["id", "url", "subscriptions", "project_id", "description", "max_attempts", "retry_schedule", "delivery_timeout_ms", "status", "verified", "custom_header_names", "suspension", "created_at", "updated_at", "secret"].sort(),
    );
    expect(res.body).toMatchObject({
      url: "https://a.example.com/h", subscriptions: [{ event_type: "order.*" }, { event_type: "a" }], project_id: ws.project_id, description: "d", max_attempts: 3,
      retry_schedule: [1, 2], delivery_timeout_ms: 5000, status: "enabled", verified: false, custom_header_names: ["Authorization", "X-Tenant"], suspension: null,
    });
    expect(res.body.secret).toMatch(/^whsec_/);
    const read = await wh(emu(), "GET", `/v1/endpoints/${res.body.id}`, { key: ws.webhooks.read });
    expect(read.status).toBe(200);
    expect(read.body.secret).toBeUndefined();
    expect(JSON.stringify(read.body)).not.toContain("Bearer s");
    const list = await wh(emu(), "GET", "/v1/endpoints", { key: ws.webhooks.read });
    expect(list.body).toMatchObject({ total: 1, limit: 50, offset: 0 });
    expect(list.body.data[0].secret).toBeUndefined();
  });

  it("a secret given on create is used as is; rotate-secret returns a new whsec_ value once", async () => {
    const ws = await newWorkspace(emu());
    const ep = await createEndpoint(emu(), ws.webhooks.admin, { secret: "my-own-secret" });
    expect(ep.secret).toBe("my-own-secret");
    const rotated = await wh(emu(), "POST", `/v1/endpoints/${ep.id}/rotate-secret`, { key: ws.webhooks.admin });
    expect(rotated.status).toBe(200);
    expect(rotated.body.secret).toMatch(/^whsec_/);
    expect(rotated.body.secret).not.toBe("my-own-secret");
  });

  it("PATCH updates fields; changing url resets verified; null resets to default", async () => {
    const ws = await newWorkspace(emu());
    const ep = await createEndpoint(emu(), ws.webhooks.admin, { description: "x", max_attempts: 2 });
    expect((await wh(emu(), "POST", `/v1/endpoints/${ep.id}/verify`, { key: ws.webhooks.admin })).body.verified).toBe(true);
    const same = await wh(emu(), "PATCH", `/v1/endpoints/${ep.id}`, { key: ws.webhooks.admin, body: { url: ep.url } });
    expect(same.body.verified).toBe(true);
    const res = await wh(emu(), "PATCH", `/v1/endpoints/${ep.id}`, { key: ws.webhooks.admin, body: { url: "https://b.example.com/h", description: null, max_attempts: null, custom_headers: { "X-A": "1" } } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ url: "https://b.example.com/h", verified: false, description: null, max_attempts: null, custom_header_names: ["X-A"] });
  });

  it("project-scoped endpoints: explicit project_id, list filter, unknown project 404", async () => {
    const ws = await newWorkspace(emu());
    const p2 = await control(emu(), "POST", "/projects", { workspace_id: ws.workspace_id, name: "p2" });
    const a = await createEndpoint(emu(), ws.webhooks.admin);
    const b = await createEndpoint(emu(), ws.webhooks.admin, { project_id: p2.id });
    expect(a.project_id).toBe(ws.project_id);
    expect(b.project_id).toBe(p2.id);
    const list = await wh(emu(), "GET", `/v1/endpoints?project_id=${p2.id}`, { key: ws.webhooks.read });
    expect(list.body.data.map((e: { id: string }) => e.id)).toEqual([b.id]);
    expectError(await wh(emu(), "POST", "/v1/endpoints", { key: ws.webhooks.admin, body: { url: "https://a.example.com", project_id: "proj_nope" } }), 404, "not_found", { reason: "project", id: "proj_nope" });
  });

  it("an endpoint of another workspace is 404 endpoint", async () => {
    const a = await newWorkspace(emu());
    const b = await newWorkspace(emu());
    const ep = await createEndpoint(emu(), a.webhooks.admin);
    for (const [method, path] of [["GET", ""], ["PATCH", ""], ["DELETE", ""], ["POST", "/enable"], ["GET", "/stats"], ["POST", "/test"]]) {
      expectError(await wh(emu(), method!, `/v1/endpoints/${ep.id}${path}`, { key: b.webhooks.admin, body: method === "PATCH" ? {} : undefined }), 404, "not_found", { reason: "endpoint", id: ep.id });
    }
  });

  it("delete without pending deliveries is 204, then 404", async () => {
    const ws = await newWorkspace(emu());
    const ep = await createEndpoint(emu(), ws.webhooks.admin);
    expect((await wh(emu(), "DELETE", `/v1/endpoints/${ep.id}`, { key: ws.webhooks.admin })).status).toBe(204);
    expectError(await wh(emu(), "GET", `/v1/endpoints/${ep.id}`, { key: ws.webhooks.admin }), 404, "not_found", { reason: "endpoint", id: ep.id });
  });
});

describe("endpoints: Limits rows (422)", () => {
  const emu = useEmulator();
  const many = (n: number, size = 1) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`X-H${i}`, "v".repeat(size)]));
  const cases: [string, Record<string, unknown>, { loc: (string | number)[]; type: string; params?: Record<string, unknown> }][] = [
    ["21 custom headers", { custom_headers: many(21) }, { loc: ["body", "custom_headers"], type: "too_long", params: { count: 20 } }],
    ["invalid header name", { custom_headers: { "Bad Name": "v" } }, { loc: ["body", "custom_headers"], type: "webhooks.custom_header_name_invalid" }],
    ["value over 1024", { custom_headers: { "X-A": "a".repeat(1025) } }, { loc: ["body", "custom_headers"], type: "webhooks.custom_header_value_too_long", params: { count: 1024 } }],
    ["non-ASCII value", { custom_headers: { "X-A": "naïve" } }, { loc: ["body", "custom_headers"], type: "webhooks.custom_header_not_ascii" }],
    ["line break in value", { custom_headers: { "X-A": "a\nb" } }, { loc: ["body", "custom_headers"], type: "webhooks.custom_header_control_character" }],
    ["total over 8192 bytes", { custom_headers: many(9, 1000) }, { loc: ["body", "custom_headers"], type: "webhooks.custom_headers_too_large", params: { limit: 8192 } }],
    ["managed Content-Type", { custom_headers: { "content-type": "text/plain" } }, { loc: ["body", "custom_headers"], type: "webhooks.custom_header_managed" }],
    ["managed X-Webhook- prefix", { custom_headers: { "X-Webhook-Signature": "x" } }, { loc: ["body", "custom_headers"], type: "webhooks.custom_header_managed" }],
    ["hop-by-hop Host", { custom_headers: { Host: "evil" } }, { loc: ["body", "custom_headers"], type: "webhooks.custom_header_forbidden" }],
    ["retry delay out of range", { retry_schedule: [10, 604801] }, { loc: ["body", "retry_schedule", 1], type: "webhooks.retry_delay_out_of_range", params: { limit: 604800 } }],
    ["max_attempts above plan (free: 5)", { max_attempts: 6 }, { loc: ["body", "max_attempts"], type: "webhooks.max_attempts_above_plan", params: { count: 5 } }],
    ["url not https", { url: "http://a.example.com/h" }, { loc: ["body", "url"], type: "webhooks.url_not_https" }],
    ["delivery timeout above 60 s", { delivery_timeout_ms: 60001 }, { loc: ["body", "delivery_timeout_ms"], type: "less_than_equal", params: { limit: 60000 } }],
  ];

  it.each(cases)("create: %s", async (_label, extra, entry) => {
    const ws = await newWorkspace(emu());
    const res = await wh(emu(), "POST", "/v1/endpoints", { key: ws.webhooks.admin, body: { url: "https://a.example.com/h", ...extra } });
    expectValidation(res, [entry]);
    expect((await wh(emu(), "GET", "/v1/endpoints", { key: ws.webhooks.read })).body.total).toBe(0);
  });

  it.each(cases)("update: %s", async (_label, extra, entry) => {
    const ws = await newWorkspace(emu());
    const ep = await createEndpoint(emu(), ws.webhooks.admin);
    expectValidation(await wh(emu(), "PATCH", `/v1/endpoints/${ep.id}`, { key: ws.webhooks.admin, body: extra }), [entry]);
  });

  it("max_attempts follows the plan's ceiling (pro: 15)", async () => {
    const ws = await newWorkspace(emu(), "pro");
    expect((await wh(emu(), "POST", "/v1/endpoints", { key: ws.webhooks.admin, body: { url: "https://a.example.com", max_attempts: 15 } })).status).toBe(201);
    expectValidation(await wh(emu(), "POST", "/v1/endpoints", { key: ws.webhooks.admin, body: { url: "https://a.example.com", max_attempts: 16 } }), [
      { loc: ["body", "max_attempts"], type: "webhooks.max_attempts_above_plan", params: { count: 15 } },
    ]);
  });

  it("several broken rules come back together", async () => {
    const ws = await newWorkspace(emu());
    const res = await wh(emu(), "POST", "/v1/endpoints", { key: ws.webhooks.admin, body: { url: "http://x", custom_headers: { Connection: "close" }, retry_schedule: [-1] } });
    expectValidation(res, [
      { loc: ["body", "url"], type: "webhooks.url_not_https" },
      { loc: ["body", "custom_headers"], type: "webhooks.custom_header_forbidden" },
      { loc: ["body", "retry_schedule", 0], type: "webhooks.retry_delay_out_of_range", params: { limit: 604800 } },
    ]);
  });

  it("missing url is a missing entry; bad subscription patterns are refused", async () => {
    const ws = await newWorkspace(emu());
    expectValidation(await wh(emu(), "POST", "/v1/endpoints", { key: ws.webhooks.admin, body: {} }), [{ loc: ["body", "url"], type: "missing" }]);
    expectValidation(await wh(emu(), "POST", "/v1/endpoints", { key: ws.webhooks.admin, body: { url: "https://a.example.com", subscriptions: [{ event_type: "a..b" }] } }), [
      { loc: ["body", "subscriptions", 0, "event_type"], type: "webhooks.subscription_pattern_invalid" },
    ]);
  });
});

describe("endpoints: plan ceiling", () => {
  const emu = useEmulator();

  it("the 4th endpoint on free is 402 quota_exceeded allocation with limit and current", async () => {
    const ws = await newWorkspace(emu());
    for (let i = 0; i < 3; i++) await createEndpoint(emu(), ws.webhooks.admin);
    expectError(await wh(emu(), "POST", "/v1/endpoints", { key: ws.webhooks.admin, body: { url: "https://a.example.com" } }), 402, "quota_exceeded", {
      reason: "allocation", metric: "endpoints", limit: 3, current: 3,
    });
  });

  it("200 parallel creates never pass the ceiling (pro: 50)", async () => {
    const ws = await newWorkspace(emu(), "pro");
    const results = await Promise.all(Array.from({ length: 200 }, (_, i) => wh(emu(), "POST", "/v1/endpoints", { key: ws.webhooks.admin, body: { url: `https://p${i}.example.com` } })));
    expect(results.filter((r) => r.status === 201)).toHaveLength(50);
    expect(results.filter((r) => r.status === 402)).toHaveLength(150);
    expect((await wh(emu(), "GET", "/v1/endpoints", { key: ws.webhooks.read })).body.total).toBe(50);
  });
});

describe("endpoints: transitions", () => {
  const emu = useEmulator();

  it("PATCH status moves enabled <-> disabled", async () => {
    const ws = await newWorkspace(emu());
    const ep = await createEndpoint(emu(), ws.webhooks.admin);
    const off = await wh(emu(), "PATCH", `/v1/endpoints/${ep.id}`, { key: ws.webhooks.admin, body: { status: "disabled" } });
    expect(off.body.status).toBe("disabled");
    const on = await wh(emu(), "PATCH", `/v1/endpoints/${ep.id}`, { key: ws.webhooks.admin, body: { status: "enabled" } });
    expect(on.body.status).toBe("enabled");
    expectValidation(await wh(emu(), "PATCH", `/v1/endpoints/${ep.id}`, { key: ws.webhooks.admin, body: { status: "auto_disabled" } }), [{ loc: ["body", "status"], type: "enum" }]);
  });

  it("enable recovers disabled and auto_disabled", async () => {
    const ws = await newWorkspace(emu());
    const ep = await createEndpoint(emu(), ws.webhooks.admin);
    for (const status of ["disabled", "auto_disabled"]) {
      await control(emu(), "POST", `/webhooks/endpoints/${ep.id}/status`, { status });
      expect((await wh(emu(), "GET", `/v1/endpoints/${ep.id}`, { key: ws.webhooks.read })).body.status).toBe(status);
      const res = await wh(emu(), "POST", `/v1/endpoints/${ep.id}/enable`, { key: ws.webhooks.admin });
      expect(res.status).toBe(200);
      expect(res.body.status).toBe("enabled");
    }
  });

  it("auto_disabled is one-way: PATCH status enabled is 409 endpoint_auto_disabled; only enable recovers", async () => {
    const ws = await newWorkspace(emu());
    const ep = await createEndpoint(emu(), ws.webhooks.admin);
    await control(emu(), "POST", `/webhooks/endpoints/${ep.id}/status`, { status: "auto_disabled" });
    expectError(await wh(emu(), "PATCH", `/v1/endpoints/${ep.id}`, { key: ws.webhooks.admin, body: { status: "enabled" } }), 409, "conflict", {
      reason: "endpoint_auto_disabled", id: ep.id, state: "auto_disabled",
    });
  });

  it("repeated dead deliveries auto-disable an enabled endpoint (threshold from the control plane)", async () => {
    const ws = await newWorkspace(emu());
    await control(emu(), "PUT", "/webhooks/settings", { auto_disable_after_dead: 3 });
    try {
      const ep = await createEndpoint(emu(), ws.webhooks.admin);
      for (let i = 0; i < 3; i++) await publish(emu(), ws.webhooks.publish, { event_type: "a.b" });
      await moveDeliveries(emu(), ep.id, { to: "dead", count: 2 });
      expect((await wh(emu(), "GET", `/v1/endpoints/${ep.id}`, { key: ws.webhooks.read })).body.status).toBe("enabled");
      await moveDeliveries(emu(), ep.id, { to: "dead", count: 1 });
      expect((await wh(emu(), "GET", `/v1/endpoints/${ep.id}`, { key: ws.webhooks.read })).body.status).toBe("auto_disabled");
      // Auto-disabled endpoints are out of the fan-out until enabled.
      expect((await publish(emu(), ws.webhooks.publish, { event_type: "a.b" })).body.deliveries).toBe(0);
      await wh(emu(), "POST", `/v1/endpoints/${ep.id}/enable`, { key: ws.webhooks.admin });
      expect((await publish(emu(), ws.webhooks.publish, { event_type: "a.b" })).body.deliveries).toBe(1);
    } finally {
      await control(emu(), "PUT", "/webhooks/settings", { auto_disable_after_dead: 5 });
    }
  });

  it("suspension is set and cleared on the control plane and shown in reads", async () => {
    const ws = await newWorkspace(emu());
    const ep = await createEndpoint(emu(), ws.webhooks.admin);
    await control(emu(), "PUT", `/webhooks/endpoints/${ep.id}/suspension`, { cause: "plan_downgrade" });
    await control(emu(), "PUT", `/webhooks/endpoints/${ep.id}/suspension`, { cause: "abuse" });
    expect((await wh(emu(), "GET", `/v1/endpoints/${ep.id}`, { key: ws.webhooks.read })).body.suspension).toEqual({ cause: "abuse" });
    await control(emu(), "DELETE", `/webhooks/endpoints/${ep.id}/suspension?cause=abuse`);
    expect((await wh(emu(), "GET", `/v1/endpoints/${ep.id}`, { key: ws.webhooks.read })).body.suspension).toEqual({ cause: "plan_downgrade" });
    await control(emu(), "DELETE", `/webhooks/endpoints/${ep.id}/suspension`);
    expect((await wh(emu(), "GET", `/v1/endpoints/${ep.id}`, { key: ws.webhooks.read })).body.suspension).toBeNull();
  });

  it.each(["queued", "sending", "failed"])("delete with a %s delivery: 409 endpoint_has_pending_deliveries, and the endpoint is disabled", async (state) => {
    const ws = await newWorkspace(emu());
    const ep = await createEndpoint(emu(), ws.webhooks.admin);
    await publish(emu(), ws.webhooks.publish, { event_type: "a.b" });
    await publish(emu(), ws.webhooks.publish, { event_type: "a.b" });
    if (state !== "queued") await moveDeliveries(emu(), ep.id, { to: state });
    expectError(await wh(emu(), "DELETE", `/v1/endpoints/${ep.id}`, { key: ws.webhooks.admin }), 409, "conflict", { reason: "endpoint_has_pending_deliveries", id: ep.id, count: 2 });
    expect((await wh(emu(), "GET", `/v1/endpoints/${ep.id}`, { key: ws.webhooks.read })).body.status).toBe("disabled");
    await moveDeliveries(emu(), ep.id, { to: "sent", from: ["queued", "sending", "failed"] });
    expect((await wh(emu(), "DELETE", `/v1/endpoints/${ep.id}`, { key: ws.webhooks.admin })).status).toBe(204);
  });

  it("a failed delivery with no retry left does not block delete", async () => {
    const ws = await newWorkspace(emu());
    const ep = await createEndpoint(emu(), ws.webhooks.admin, { max_attempts: 1 });
    await publish(emu(), ws.webhooks.publish, { event_type: "a.b" });
    await moveDeliveries(emu(), ep.id, { to: "failed" });
    expect((await wh(emu(), "DELETE", `/v1/endpoints/${ep.id}`, { key: ws.webhooks.admin })).status).toBe(204);
  });
});

describe("endpoints: subscriptions, stats", () => {
  const emu = useEmulator();

  it("PUT subscriptions replaces the set and drives the fan-out", async () => {
    const ws = await newWorkspace(emu());
    const ep = await createEndpoint(emu(), ws.webhooks.admin, { subscriptions: [{ event_type: "order.*" }] });
    expect((await publish(emu(), ws.webhooks.publish, { event_type: "order.item.added" })).body.deliveries).toBe(0);
    const res = await wh(emu(), "PUT", `/v1/endpoints/${ep.id}/subscriptions`, { key: ws.webhooks.admin, body: { subscriptions: [{ event_type: "order.**" }, { event_type: "user.created" }] } });
    expect(res.status).toBe(200);
    expect(res.body.subscriptions).toEqual([{ event_type: "order.**" }, { event_type: "user.created" }]);
    expect((await publish(emu(), ws.webhooks.publish, { event_type: "order.item.added" })).body.deliveries).toBe(1);
    expectValidation(await wh(emu(), "PUT", `/v1/endpoints/${ep.id}/subscriptions`, { key: ws.webhooks.admin, body: {} }), [{ loc: ["body", "subscriptions"], type: "missing" }]);
  });

  it("stats: 24 hourly / 7 daily buckets, counts, success rate and latency from deliveries", async () => {
    const ws = await newWorkspace(emu());
    const ep = await createEndpoint(emu(), ws.webhooks.admin, { max_attempts: 1 });
    const empty = await wh(emu(), "GET", `/v1/endpoints/${ep.id}/stats`, { key: ws.webhooks.read });
    expect(empty.body).toMatchObject({ window: "24h", success_rate: null, delivered: 0, failed: 0, dead: 0, latency_ms: { p50: null, p95: null } });
    expect(empty.body.buckets).toHaveLength(24);
    for (let i = 0; i < 4; i++) await publish(emu(), ws.webhooks.publish, { event_type: "a.b" });
    await moveDeliveries(emu(), ep.id, { to: "sent", count: 3, latency_ms: 100 });
    await moveDeliveries(emu(), ep.id, { to: "dead", count: 1, latency_ms: 900 });
    for (const [window, n] of [["24h", 24], ["7d", 7]] as const) {
      const res = await wh(emu(), "GET", `/v1/endpoints/${ep.id}/stats?window=${window}`, { key: ws.webhooks.read });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ endpoint_id: ep.id, window, success_rate: 0.75, delivered: 3, failed: 0, dead: 1, latency_ms: { p50: 100, p95: 900 } });
      expect(res.body.buckets).toHaveLength(n);
      const sum = (k: "delivered" | "failed" | "dead") => res.body.buckets.reduce((t: number, b: Record<string, number>) => t + b[k]!, 0);
      expect({ delivered: sum("delivered"), failed: sum("failed"), dead: sum("dead") }).toEqual({ delivered: 3, failed: 0, dead: 1 });
      expect(Date.parse(res.body.buckets[n - 1].start)).toBeLessThanOrEqual(Date.now());
    }
    expectValidation(await wh(emu(), "GET", `/v1/endpoints/${ep.id}/stats?window=30d`, { key: ws.webhooks.read }), [{ loc: ["query", "window"], type: "enum" }]);
  });
});

describe("endpoints: test and verify (no traffic off the machine)", () => {
  const emu = useEmulator();

  it("test answers 200 with the host's outcome from the control plane", async () => {
    const ws = await newWorkspace(emu());
    const ok = await createEndpoint(emu(), ws.webhooks.admin, { url: "https://ok-host.example.com/h" });
    const bad = await createEndpoint(emu(), ws.webhooks.admin, { url: "https://bad-host.example.com/h" });
    const slow = await createEndpoint(emu(), ws.webhooks.admin, { url: "https://slow-host.example.com/h" });
    await control(emu(), "PUT", "/webhooks/targets/bad-host.example.com", { result: "http_status", status_code: 503 });
    await control(emu(), "PUT", "/webhooks/targets/slow-host.example.com", { result: "timeout" });
    const r1 = await wh(emu(), "POST", `/v1/endpoints/${ok.id}/test`, { key: ws.webhooks.admin });
    expect(r1.status).toBe(200);
    expect(r1.body).toMatchObject({ delivered: true, error: null, failure_reason: null, status_code: 200 });
    const r2 = await wh(emu(), "POST", `/v1/endpoints/${bad.id}/test`, { key: ws.webhooks.admin });
    expect(r2.status).toBe(200);
    expect(r2.body).toMatchObject({ delivered: false, failure_reason: "http_status", status_code: 503 });
    expect(typeof r2.body.error).toBe("string");
    const r3 = await wh(emu(), "POST", `/v1/endpoints/${slow.id}/test`, { key: ws.webhooks.admin });
    expect(r3.body).toMatchObject({ delivered: false, failure_reason: "timeout", status_code: null });
    // Nothing persisted.
    expect((await wh(emu(), "GET", `/v1/deliveries?endpoint_id=${ok.id}`, { key: ws.webhooks.read })).body.total).toBe(0);
  });

  it.each(["https://127.0.0.1/h", "https://10.1.2.3/h", "https://192.168.0.5/h", "https://169.254.169.254/latest", "https://[::1]/h", "https://[fe80::1]/h", "https://localhost/h", "https://[::ffff:127.0.0.1]/h", "https://2130706433/h"])(
    "private target %s is blocked_address (test and verify)",
    async (url) => {
      const ws = await newWorkspace(emu());
      const ep = await createEndpoint(emu(), ws.webhooks.admin, { url });
      const t = await wh(emu(), "POST", `/v1/endpoints/${ep.id}/test`, { key: ws.webhooks.admin });
      expect(t.body).toMatchObject({ delivered: false, failure_reason: "blocked_address" });
      const v = await wh(emu(), "POST", `/v1/endpoints/${ep.id}/verify`, { key: ws.webhooks.admin });
      expect(v.body).toMatchObject({ verified: false, failure_reason: "blocked_address" });
      expect((await wh(emu(), "GET", `/v1/endpoints/${ep.id}`, { key: ws.webhooks.read })).body.verified).toBe(false);
    },
  );

  it("verify: echoed challenge marks verified; not echoed is challenge_not_echoed", async () => {
    const ws = await newWorkspace(emu());
    const good = await createEndpoint(emu(), ws.webhooks.admin, { url: "https://echo.example.com/h" });
    const mute = await createEndpoint(emu(), ws.webhooks.admin, { url: "https://mute.example.com/h" });
    await control(emu(), "PUT", "/webhooks/targets/mute.example.com", { result: "delivered", echo_challenge: false });
    const v1 = await wh(emu(), "POST", `/v1/endpoints/${good.id}/verify`, { key: ws.webhooks.admin });
    expect(v1.status).toBe(200);
    expect(v1.body).toEqual({ verified: true, error: null, failure_reason: null });
    expect((await wh(emu(), "GET", `/v1/endpoints/${good.id}`, { key: ws.webhooks.read })).body.verified).toBe(true);
    const v2 = await wh(emu(), "POST", `/v1/endpoints/${mute.id}/verify`, { key: ws.webhooks.admin });
    expect(v2.body).toMatchObject({ verified: false, failure_reason: "challenge_not_echoed" });
    expect((await wh(emu(), "GET", `/v1/endpoints/${mute.id}`, { key: ws.webhooks.read })).body.verified).toBe(false);
  });

  it.each(["tls_failed", "dns_failed", "connection_failed"])("verify reports %s from the host's outcome", async (reason) => {
    const ws = await newWorkspace(emu());
    const host = `${reason.replace(/_/g, "-")}.example.com`;
    await control(emu(), "PUT", `/webhooks/targets/${host}`, { result: reason });
    const ep = await createEndpoint(emu(), ws.webhooks.admin, { url: `https://${host}/h` });
    expect((await wh(emu(), "POST", `/v1/endpoints/${ep.id}/verify`, { key: ws.webhooks.admin })).body).toMatchObject({ verified: false, failure_reason: reason });
  });
});

describe("endpoints, events and deliveries survive a restart with a state file", () => {
  it("reads them back from the file", async () => {
    const stateFile = join(mkdtempSync(join(tmpdir(), "svc-state-")), "state.json");
    const first = await startEmulator({ stateFile });
    const key = first.keys.webhooks.admin;
    const ep = await createEndpoint(first, key, { custom_headers: { "X-A": "1" } });
    const event = (await publish(first, first.keys.webhooks.publish, { event_type: "a", payload: { v: 1 } }, { "idempotency-key": "k" })).body;
    await moveDeliveries(first, ep.id, { to: "failed" });
    await first.close();

    const second = await startEmulator({ stateFile });
    try {
      expect((await wh(second, "GET", `/v1/endpoints/${ep.id}`, { key })).body).toMatchObject({ id: ep.id, custom_header_names: ["X-A"] });
      expect((await wh(second, "GET", `/v1/events/${event.id}`, { key })).body.payload).toEqual({ v: 1 });
      const dl = await wh(second, "GET", `/v1/events/${event.id}/deliveries`, { key });
      expect(dl.body.data).toMatchObject([{ status: "failed", attempts: 1 }]);
      const again = await publish(second, second.keys.webhooks.publish, { event_type: "a", payload: { v: 1 } }, { "idempotency-key": "k" });
      expect(again.body.id).toBe(event.id);
      expectError(await wh(second, "DELETE", `/v1/endpoints/${ep.id}`, { key }), 409, "conflict", { reason: "endpoint_has_pending_deliveries", id: ep.id, count: 1 });
    } finally {
      await second.close();
    }
  });
});
