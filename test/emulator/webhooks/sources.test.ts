/**
 * Sources over HTTP: response shape and secrets, every rule (broker fields, port,
 * queue kinds, provider secrets), the broker plan gate on create and PATCH,
 * broker_not_allowed, rotate-secret and its 24-hour overlap (clock advanced on the
 * control plane).
 */
import { describe, expect, it } from "vitest";
import { control, useEmulator } from "../../support/emulator";
import { expectError, expectValidation, newWorkspace, wh } from "./endpoints-support";
import { createSource, ingest } from "./sources-support";

const broker = {
  provider: "broker",
  secret: "broker-password",
  broker_identifier: "orders",
  broker_host: "mq.example.com",
  broker_user: "svc",
  broker_exchange: "events",
  broker_topic: "orders.#",
};

describe("sources: shape and CRUD", () => {
  const emu = useEmulator();

  it("a generic source gets a generated secret, returned only in the 201; reads never return it", async () => {
    const ws = await newWorkspace(emu());
    const res = await wh(emu(), "POST", "/v1/sources", { key: ws.webhooks.admin, body: { provider: "generic", name: "in", capture_enabled: true } });
    expect(res.status).toBe(201);
    expect(Object.keys(res.body).sort()).toEqual(
      [
        "id", "provider", "name", "project_id", "event_type_source", "event_type_key", "event_type_prefix", "default_event_type", "capture_enabled",
        "broker_identifier", "broker_host", "broker_vhost", "broker_user", "broker_exchange", "broker_topic", "broker_port", "broker_queues",
        "status", "ingest_url", "created_at", "updated_at", "secret",
      ].sort(),
    );
    expect(res.body).toMatchObject({ provider: "generic", name: "in", project_id: ws.project_id, event_type_source: "provider", capture_enabled: true, status: "enabled" });
    expect(res.body.secret).toMatch(/^whsec_/);
    expect(res.body.ingest_url).toBe(`${emu().url}/webhooks/v1/ingest/${res.body.id}`);
    const read = await wh(emu(), "GET", `/v1/sources/${res.body.id}`, { key: ws.webhooks.read });
    expect(read.status).toBe(200);
    expect(read.body.secret).toBeUndefined();
    const { secret: _s, ...rest } = res.body;
    expect(read.body).toEqual(rest);
    const list = await wh(emu(), "GET", "/v1/sources", { key: ws.webhooks.read });
    expect(list.body).toMatchObject({ total: 1, limit: 50, offset: 0 });
    expect(list.body.data[0].secret).toBeUndefined();
  });

  it("a payments source keeps the given secret and does not echo it", async () => {
    const ws = await newWorkspace(emu());
    const res = await wh(emu(), "POST", "/v1/sources", { key: ws.webhooks.admin, body: { provider: "payments", secret: "whsec_from_provider" } });
    expect(res.status).toBe(201);
    expect(res.body.secret).toBeUndefined();
    expect(JSON.stringify(res.body)).not.toContain("whsec_from_provider");
  });

  it.each(["payments", "codehost", "broker"])("%s without a secret is a validation_error missing on secret", async (provider) => {
    const ws = await newWorkspace(emu(), "pro");
    const body = provider === "broker" ? { ...broker, secret: undefined } : { provider };
    expectValidation(await wh(emu(), "POST", "/v1/sources", { key: ws.webhooks.admin, body }), [{ loc: ["body", "secret"], type: "missing" }]);
  });

  it("PATCH changes fields (null resets), status, and project; provider is not changed; DELETE is 204 then 404", async () => {
    const ws = await newWorkspace(emu());
    const p2 = await control<{ id: string }>(emu(), "POST", "/projects", { workspace_id: ws.workspace_id, name: "p2" });
    const s = await createSource(emu(), ws.webhooks.admin, { name: "a", event_type_prefix: "gh." });
    const res = await wh(emu(), "PATCH", `/v1/sources/${s.id}`, { key: ws.webhooks.admin, body: { name: "b", event_type_prefix: null, status: "disabled", project_id: p2.id, provider: "payments" } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ name: "b", event_type_prefix: null, status: "disabled", project_id: p2.id, provider: "generic" });
    const filtered = await wh(emu(), "GET", `/v1/sources?project_id=${ws.project_id}`, { key: ws.webhooks.read });
    expect(filtered.body.total).toBe(0);
    expect((await wh(emu(), "DELETE", `/v1/sources/${s.id}`, { key: ws.webhooks.admin })).status).toBe(204);
    expectError(await wh(emu(), "GET", `/v1/sources/${s.id}`, { key: ws.webhooks.read }), 404, "not_found", { reason: "source", id: s.id });
  });

  it("a source of another workspace is 404", async () => {
    const ws = await newWorkspace(emu());
    const other = await newWorkspace(emu());
    const s = await createSource(emu(), other.webhooks.admin);
    expectError(await wh(emu(), "GET", `/v1/sources/${s.id}`, { key: ws.webhooks.read }), 404, "not_found", { reason: "source", id: s.id });
    expectError(await wh(emu(), "PATCH", `/v1/sources/${s.id}`, { key: ws.webhooks.admin, body: { name: "x" } }), 404, "not_found", { reason: "source", id: s.id });
  });

  it("event_type_source header or path needs event_type_key", async () => {
    const ws = await newWorkspace(emu());
    expectValidation(await wh(emu(), "POST", "/v1/sources", { key: ws.webhooks.admin, body: { provider: "generic", event_type_source: "header" } }), [
      { loc: ["body", "event_type_key"], type: "missing" },
    ]);
  });
});

describe("sources: broker rules and plan gate", () => {
  const emu = useEmulator();

  it("below Pro, creating a broker source is 402 not_entitled broker_sources", async () => {
    const ws = await newWorkspace(emu(), "free");
    expectError(await wh(emu(), "POST", "/v1/sources", { key: ws.webhooks.admin, body: broker }), 402, "not_entitled", { feature: "broker_sources" });
  });

  it("on Pro a complete broker source is created", async () => {
    const ws = await newWorkspace(emu(), "pro");
    const s = await createSource(emu(), ws.webhooks.admin, { ...broker, broker_port: 5671, broker_queues: "quorum", broker_vhost: "/" });
    expect(s).toMatchObject({ provider: "broker", broker_host: "mq.example.com", broker_port: 5671, broker_queues: "quorum" });
  });

  it("without every required broker field: 422 webhooks.broker_fields_required per missing field", async () => {
    const ws = await newWorkspace(emu(), "pro");
    const { broker_host: _h, broker_topic: _t, ...partial } = broker;
    expectValidation(await wh(emu(), "POST", "/v1/sources", { key: ws.webhooks.admin, body: partial }), [
      { loc: ["body", "broker_host"], type: "webhooks.broker_fields_required" },
      { loc: ["body", "broker_topic"], type: "webhooks.broker_fields_required" },
    ]);
  });

  it.each([
    [{ broker_port: 0 }, [{ loc: ["body", "broker_port"], type: "greater_than_equal", params: { limit: 1 } }]],
    [{ broker_port: 70000 }, [{ loc: ["body", "broker_port"], type: "less_than_equal", params: { limit: 65535 } }]],
    [{ broker_queues: "lazy" }, [{ loc: ["body", "broker_queues"], type: "enum" }]],
  ])("%j is a validation_error", async (extra, entries) => {
    const ws = await newWorkspace(emu(), "pro");
    expectValidation(await wh(emu(), "POST", "/v1/sources", { key: ws.webhooks.admin, body: { ...broker, ...extra } }), entries);
  });

  it.each([
    ["127.0.0.1", null, "127.0.0.1:5672"],
    ["10.0.0.5", 5671, "10.0.0.5:5671"],
    ["localhost", 5672, "localhost:5672"],
    ["::1", null, "[::1]:5672"],
  ])("a broker at %s is 422 broker_not_allowed", async (host, port, hostPort) => {
    const ws = await newWorkspace(emu(), "pro");
    expectError(await wh(emu(), "POST", "/v1/sources", { key: ws.webhooks.admin, body: { ...broker, broker_host: host, broker_port: port } }), 422, "broker_not_allowed", { host: hostPort });
  });

  it("PATCH moving the host to a private address is broker_not_allowed", async () => {
    const ws = await newWorkspace(emu(), "pro");
    const s = await createSource(emu(), ws.webhooks.admin, broker);
    expectError(await wh(emu(), "PATCH", `/v1/sources/${s.id}`, { key: ws.webhooks.admin, body: { broker_host: "192.168.1.10" } }), 422, "broker_not_allowed", { host: "192.168.1.10:5672" });
  });

  it("after a downgrade: renaming and disabling stay allowed; enabling or setting any broker_* field (even unchanged) is 402", async () => {
    const ws = await newWorkspace(emu(), "pro");
    const s = await createSource(emu(), ws.webhooks.admin, broker);
    await control(emu(), "PATCH", `/workspaces/${ws.workspace_id}`, { plan: "free" });
    const patch = (body: Record<string, unknown>) => wh(emu(), "PATCH", `/v1/sources/${s.id}`, { key: ws.webhooks.admin, body });
    expect((await patch({ name: "renamed" })).status).toBe(200);
    expect((await patch({ status: "disabled" })).body.status).toBe("disabled");
    expectError(await patch({ status: "enabled" }), 402, "not_entitled", { feature: "broker_sources" });
    expectError(await patch({ broker_host: "mq.example.com" }), 402, "not_entitled", { feature: "broker_sources" });
    expectError(await patch({ broker_port: 5672 }), 402, "not_entitled", { feature: "broker_sources" });
    expect((await wh(emu(), "GET", `/v1/sources/${s.id}`, { key: ws.webhooks.read })).body).toMatchObject({ name: "renamed", status: "disabled", broker_port: null });
  });

  it("PATCH clearing a required broker field is webhooks.broker_fields_required", async () => {
    const ws = await newWorkspace(emu(), "pro");
    const s = await createSource(emu(), ws.webhooks.admin, broker);
    expectValidation(await wh(emu(), "PATCH", `/v1/sources/${s.id}`, { key: ws.webhooks.admin, body: { broker_user: null } }), [
      { loc: ["body", "broker_user"], type: "webhooks.broker_fields_required" },
    ]);
  });
});

describe("sources: rotate-secret", () => {
  const emu = useEmulator();

  it.each(["payments", "codehost", "broker"])("%s without a new secret: 422 provider_secret_required", async (provider) => {
    const ws = await newWorkspace(emu(), "pro");
    const s = await createSource(emu(), ws.webhooks.admin, provider === "broker" ? broker : { provider, secret: "old" });
    expectError(await wh(emu(), "POST", `/v1/sources/${s.id}/rotate-secret`, { key: ws.webhooks.admin, body: {} }), 422, "provider_secret_required", { provider });
  });

  it("the body is required", async () => {
    const ws = await newWorkspace(emu());
    const s = await createSource(emu(), ws.webhooks.admin);
    expectValidation(await wh(emu(), "POST", `/v1/sources/${s.id}/rotate-secret`, { key: ws.webhooks.admin }), [{ loc: ["body"], type: "missing" }]);
  });

  it("a generic source gets a generated secret back once", async () => {
    const ws = await newWorkspace(emu());
    const s = await createSource(emu(), ws.webhooks.admin);
    const res = await wh(emu(), "POST", `/v1/sources/${s.id}/rotate-secret`, { key: ws.webhooks.admin, body: {} });
    expect(res.status).toBe(200);
    expect(res.body.secret).toMatch(/^whsec_/);
    expect(res.body.secret).not.toBe(s.secret);
    expect(res.body.id).toBe(s.id);
  });

  it("the previous secret keeps verifying for 24 hours, then stops; the new one verifies", async () => {
    const ws = await newWorkspace(emu());
    const s = await createSource(emu(), ws.webhooks.admin, { provider: "payments", secret: "old-secret" });
    const rotated = await wh(emu(), "POST", `/v1/sources/${s.id}/rotate-secret`, { key: ws.webhooks.admin, body: { secret: "new-secret" } });
    expect(rotated.status).toBe(200);
    expect(rotated.body.secret).toBeUndefined();
    const body = JSON.stringify({ type: "charge.succeeded" });
    expect((await ingest(emu(), s.id, body, { secret: "old-secret" })).status).toBe(202);
    expect((await ingest(emu(), s.id, body, { secret: "new-secret" })).status).toBe(202);
    await control(emu(), "POST", "/clock", { advance_seconds: 23 * 3600 });
    expect((await ingest(emu(), s.id, body, { secret: "old-secret" })).status).toBe(202);
    await control(emu(), "POST", "/clock", { advance_seconds: 3600 });
    expectError(await ingest(emu(), s.id, body, { secret: "old-secret" }), 401, "unauthorized", { reason: "invalid" });
    expect((await ingest(emu(), s.id, body, { secret: "new-secret" })).status).toBe(202);
  });
});
