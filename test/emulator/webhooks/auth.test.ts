/**
 * Spec document 1, credential failures, for Webhooks — over `GET /v1/auth/me`
 * (any valid key) and a write — plus the scope refusals of spec document 2.
 */
import { describe, expect, it } from "vitest";
import { control, useEmulator } from "../../support/emulator";
import { createEndpoint, expectError, newWorkspace, publish, wh } from "./endpoints-support";

describe("Webhooks credentials (GET /v1/auth/me)", () => {
  const emu = useEmulator();

  it.each(["admin", "read", "publish"] as const)("any valid key reads its credential info (%s)", async (scope) => {
    const ws = await newWorkspace(emu());
    const res = await wh(emu(), "GET", "/v1/auth/me", { key: ws.webhooks[scope] });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ scope, workspace_id: ws.workspace_id, email: null, created_at: null });
  });

  it("accepts X-API-Key", async () => {
    const ws = await newWorkspace(emu());
    const res = await wh(emu(), "GET", "/v1/auth/me", { headers: { "x-api-key": ws.webhooks.read } });
    expect(res.status).toBe(200);
    expect(res.body.workspace_id).toBe(ws.workspace_id);
  });

  it("no credential: 401 unauthorized, reason missing", async () => {
    expectError(await wh(emu(), "GET", "/v1/auth/me"), 401, "unauthorized", { reason: "missing" });
  });

  it("revoked key: 401 unauthorized, reason revoked", async () => {
    const ws = await newWorkspace(emu());
    await control(emu(), "POST", "/keys/revoke", { key: ws.webhooks.admin });
    expectError(await wh(emu(), "GET", "/v1/auth/me", { key: ws.webhooks.admin }), 401, "unauthorized", { reason: "revoked" });
  });

  it("revoked session: 401 unauthorized, reason revoked", async () => {
    const ws = await newWorkspace(emu());
    const s = await control(emu(), "POST", "/sessions", { workspace_id: ws.workspace_id });
    await control(emu(), "POST", "/sessions/revoke", { key: s.session });
    expectError(await wh(emu(), "GET", "/v1/auth/me", { headers: { cookie: s.cookie } }), 401, "unauthorized", { reason: "revoked" });
  });

  it("unknown key: 403 invalid_credential with no details", async () => {
    expectError(await wh(emu(), "GET", "/v1/auth/me", { key: "eyJnot.a.key" }), 403, "invalid_credential", undefined);
  });

  it("a key of another product: 403 invalid_credential", async () => {
    expectError(await wh(emu(), "GET", "/v1/auth/me", { key: emu().keys.inboxes.admin }), 403, "invalid_credential", undefined);
  });

  it("expired browser session: 403 invalid_credential", async () => {
    const ws = await newWorkspace(emu());
    const s = await control(emu(), "POST", "/sessions", { workspace_id: ws.workspace_id, expired: true });
    expectError(await wh(emu(), "GET", "/v1/auth/me", { headers: { cookie: s.cookie } }), 403, "invalid_credential", undefined);
  });

  it("browser session reads; writes need X-CSRF (403 forbidden, reason csrf)", async () => {
    const ws = await newWorkspace(emu());
    const s = await control(emu(), "POST", "/sessions", { workspace_id: ws.workspace_id });
    const me = await wh(emu(), "GET", "/v1/auth/me", { headers: { cookie: s.cookie } });
    expect(me.status).toBe(200);
    expect(me.body.workspace_id).toBe(ws.workspace_id);
    const body = { url: "https://a.example.com/h" };
    expectError(await wh(emu(), "POST", "/v1/endpoints", { headers: { cookie: s.cookie }, body }), 403, "forbidden", { reason: "csrf" });
    const ok = await wh(emu(), "POST", "/v1/endpoints", { headers: { cookie: s.cookie, "x-csrf": "1" }, body });
    expect(ok.status).toBe(201);
  });

  it("a project-confined credential naming another project of its workspace is 403 forbidden reason project (spec 1); another workspace's project is 404; it sees only its own", async () => {
    const ws = await newWorkspace(emu());
    const other = await control(emu(), "POST", "/projects", { workspace_id: ws.workspace_id, name: "other" });
    const { key } = await control(emu(), "POST", "/keys", { product: "webhooks", scope: "admin", workspace_id: ws.workspace_id, project_id: ws.project_id });
    const me = await wh(emu(), "GET", "/v1/auth/me", { key });
    expect(me.body.project_id).toBe(ws.project_id);
    expectError(await wh(emu(), "POST", "/v1/endpoints", { key, body: { url: "https://a.example.com/h", project_id: other.id } }), 403, "forbidden", { reason: "project" });
    expectError(await wh(emu(), "GET", `/v1/endpoints?project_id=${other.id}`, { key }), 403, "forbidden", { reason: "project" });
    const elsewhere = await newWorkspace(emu());
    expectError(await wh(emu(), "GET", `/v1/endpoints?project_id=${elsewhere.project_id}`, { key }), 404, "not_found", { reason: "project", id: elsewhere.project_id });
    const foreign = await createEndpoint(emu(), ws.webhooks.admin, { project_id: other.id });
    expectError(await wh(emu(), "GET", `/v1/endpoints/${foreign.id}`, { key }), 404, "not_found", { reason: "endpoint", id: foreign.id });
    const own = await createEndpoint(emu(), key);
    expect(own.project_id).toBe(ws.project_id);
    const list = await wh(emu(), "GET", "/v1/endpoints", { key });
    expect(list.body.data.map((e: { id: string }) => e.id)).toEqual([own.id]);
  });
});

describe("Webhooks scopes", () => {
  const emu = useEmulator();

  it("a read key writing: 403 forbidden, reason scope, required admin", async () => {
    const ws = await newWorkspace(emu());
    expectError(await wh(emu(), "POST", "/v1/endpoints", { key: ws.webhooks.read, body: { url: "https://a.example.com/h" } }), 403, "forbidden", { reason: "scope", required: "admin" });
  });

  it("a publish key reading or managing endpoints: 403 forbidden, required read / admin", async () => {
    const ws = await newWorkspace(emu());
    expectError(await wh(emu(), "GET", "/v1/endpoints", { key: ws.webhooks.publish }), 403, "forbidden", { reason: "scope", required: "read" });
    expectError(await wh(emu(), "GET", "/v1/events", { key: ws.webhooks.publish }), 403, "forbidden", { reason: "scope", required: "read" });
    expectError(await wh(emu(), "POST", "/v1/endpoints", { key: ws.webhooks.publish, body: { url: "https://a.example.com/h" } }), 403, "forbidden", { reason: "scope", required: "admin" });
  });

  it("a read key publishing: 403 forbidden, required publish; publish and admin keys may publish", async () => {
    const ws = await newWorkspace(emu());
    expectError(await publish(emu(), ws.webhooks.read, { event_type: "a.b" }), 403, "forbidden", { reason: "scope", required: "publish" });
    expect((await publish(emu(), ws.webhooks.publish, { event_type: "a.b" })).status).toBe(201);
    expect((await publish(emu(), ws.webhooks.admin, { event_type: "a.b" })).status).toBe(201);
  });

  it("replay and redeliver are admin only", async () => {
    const ws = await newWorkspace(emu());
    expectError(await wh(emu(), "POST", "/v1/events/evt_x/replay", { key: ws.webhooks.publish, body: { endpoint_id: "ep_x" } }), 403, "forbidden", { reason: "scope", required: "admin" });
    expectError(await wh(emu(), "POST", "/v1/deliveries/redeliver", { key: ws.webhooks.read, body: {} }), 403, "forbidden", { reason: "scope", required: "admin" });
  });

  it("a suspended workspace: 402 workspace_suspended on reads, writes and publish", async () => {
    const ws = await newWorkspace(emu());
    await control(emu(), "PATCH", `/workspaces/${ws.workspace_id}`, { suspended: true });
    for (const res of [
      await wh(emu(), "GET", "/v1/endpoints", { key: ws.webhooks.read }),
      await wh(emu(), "POST", "/v1/endpoints", { key: ws.webhooks.admin, body: { url: "https://a.example.com" } }),
      await publish(emu(), ws.webhooks.publish, { event_type: "a" }),
    ]) {
      expect(res.status).toBe(402);
      expect(res.body.error.code).toBe("workspace_suspended");
    }
  });

  it("writes on a frozen workspace: 402 workspace_frozen; reads still work", async () => {
    const ws = await newWorkspace(emu());
    const ep = await createEndpoint(emu(), ws.webhooks.admin);
    await control(emu(), "PATCH", `/workspaces/${ws.workspace_id}`, { frozen: true });
    for (const res of [
      await wh(emu(), "PATCH", `/v1/endpoints/${ep.id}`, { key: ws.webhooks.admin, body: { description: "x" } }),
      await wh(emu(), "POST", "/v1/endpoints", { key: ws.webhooks.admin, body: { url: "https://a.example.com" } }),
      await publish(emu(), ws.webhooks.publish, { event_type: "a" }),
    ]) {
      expect(res.status).toBe(402);
      expect(res.body.error.code).toBe("workspace_frozen");
    }
    expect((await wh(emu(), "GET", `/v1/endpoints/${ep.id}`, { key: ws.webhooks.read })).status).toBe(200);
  });
});
