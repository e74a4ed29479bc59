/** Inboxes: the credential table of spec document 1 and the shared request handling. */
import { describe, expect, it } from "vitest";
import { call, control, errorOf, useEmulator } from "../../support/emulator";
import { createInbox, sessionCookie, workspace } from "./helpers";

describe("Inboxes credentials", () => {
  const emu = useEmulator();
  const list = "/inboxes/v1/inboxes";

  it("401 unauthorized missing with no credential", async () => {
    const res = await call(emu(), "GET", list);
    expect(res.status).toBe(401);
    expect(errorOf(res)).toMatchObject({ code: "unauthorized", details: { reason: "missing" } });
    expect(errorOf(res).request_id).toBe(res.headers.get("x-request-id"));
  });

  it("401 unauthorized revoked for a revoked key", async () => {
    const ws = await workspace(emu());
    await control(emu(), "POST", "/keys/revoke", { key: ws.inboxes.admin });
    const res = await call(emu(), "GET", list, { key: ws.inboxes.admin });
    expect(res.status).toBe(401);
    expect(errorOf(res)).toMatchObject({ code: "unauthorized", details: { reason: "revoked" } });
  });

  it("401 unauthorized revoked for a revoked session", async () => {
    const ws = await workspace(emu());
    const cookie = await sessionCookie(emu(), ws.workspace_id);
    await control(emu(), "POST", "/sessions/revoke", { key: cookie.split("=")[1] });
    const res = await call(emu(), "GET", list, { headers: { cookie } });
    expect(res.status).toBe(401);
    expect(errorOf(res).details).toEqual({ reason: "revoked" });
  });

  it("401 unauthorized invalid for an expired or unknown session", async () => {
    const ws = await workspace(emu());
    for (const cookie of [await sessionCookie(emu(), ws.workspace_id, true), "svc_session=nope"]) {
      const res = await call(emu(), "GET", list, { headers: { cookie } });
      expect(res.status).toBe(401);
      expect(errorOf(res)).toMatchObject({ code: "unauthorized", details: { reason: "invalid" } });
    }
  });

  it("401 unauthorized no_workspace for a key tied to no workspace", async () => {
    const { key } = await control<{ key: string }>(emu(), "POST", "/keys", { product: "inboxes", scope: "admin", workspace_id: null });
    const res = await call(emu(), "GET", list, { key });
    expect(res.status).toBe(401);
    expect(errorOf(res)).toMatchObject({ code: "unauthorized", details: { reason: "no_workspace" } });
  });

  it("401 invalid_credential (no details) for an unrecognised key, and for another product's key", async () => {
    for (const key of ["eyJnot.a.key", emu().keys.webhooks.admin]) {
      const res = await call(emu(), "GET", list, { key });
      expect(res.status).toBe(401);
      expect(errorOf(res).code).toBe("invalid_credential");
      expect(errorOf(res).details).toBeUndefined();
    }
  });

  it("accepts X-API-Key as well as Bearer", async () => {
    const res = await call(emu(), "GET", list, { headers: { "x-api-key": emu().keys.inboxes.read } });
    expect(res.status).toBe(200);
  });

  it("403 forbidden project_confined on every route for a project-limited key", async () => {
    const ws = await workspace(emu());
    const { key } = await control<{ key: string }>(emu(), "POST", "/keys", { product: "inboxes", scope: "admin", workspace_id: ws.workspace_id, project_id: ws.project_id });
    for (const [method, path] of [["GET", list], ["POST", list], ["GET", "/inboxes/v1/messages"], ["GET", "/inboxes/v1/plan"]] as const) {
      const res = await call(emu(), method, path, { key, body: method === "POST" ? {} : undefined });
      expect(res.status).toBe(403);
      expect(errorOf(res)).toMatchObject({ code: "forbidden", details: { reason: "project_confined" } });
    }
  });

  it("403 forbidden csrf for a session write without X-CSRF; allowed with it", async () => {
    const ws = await workspace(emu());
    const cookie = await sessionCookie(emu(), ws.workspace_id);
    const refused = await call(emu(), "POST", list, { headers: { cookie }, body: {} });
    expect(refused.status).toBe(403);
    expect(errorOf(refused)).toMatchObject({ code: "forbidden", details: { reason: "csrf" } });
    const ok = await call(emu(), "POST", list, { headers: { cookie, "x-csrf": "1" }, body: {} });
    expect(ok.status).toBe(201);
  });

  it("403 forbidden scope naming admin for a read key's write", async () => {
    const res = await call(emu(), "POST", list, { key: emu().keys.inboxes.read, body: {} });
    expect(res.status).toBe(403);
    expect(errorOf(res).details).toEqual({ reason: "scope", required: "admin" });
  });

  it("402 workspace_frozen refuses changes but not reads; workspace_suspended refuses both", async () => {
    const ws = await workspace(emu());
    await control(emu(), "PATCH", `/workspaces/${ws.workspace_id}`, { frozen: true });
    expect(errorOf(await call(emu(), "POST", list, { key: ws.inboxes.admin, body: {} })).code).toBe("workspace_frozen");
    expect((await call(emu(), "GET", list, { key: ws.inboxes.admin })).status).toBe(200);
    await control(emu(), "PATCH", `/workspaces/${ws.workspace_id}`, { frozen: false, suspended: true });
    const res = await call(emu(), "GET", "/inboxes/v1/usage", { key: ws.inboxes.admin });
    expect(res.status).toBe(402);
    expect(errorOf(res).code).toBe("workspace_suspended");
  });

  it("the DELETEs (402 column: none) work while the workspace is frozen or suspended", async () => {
    const ws = await workspace(emu());
    const a = await createInbox(emu(), ws.inboxes.admin);
    const b = await createInbox(emu(), ws.inboxes.admin);
    await control(emu(), "PATCH", `/workspaces/${ws.workspace_id}`, { frozen: true });
    expect((await call(emu(), "DELETE", `${list}/${a.id}/messages`, { key: ws.inboxes.admin })).status).toBe(200);
    expect((await call(emu(), "DELETE", `${list}/${a.id}`, { key: ws.inboxes.admin })).status).toBe(204);
    expect(errorOf(await call(emu(), "PATCH", `${list}/${b.id}`, { key: ws.inboxes.admin, body: { label: "x" } })).code).toBe("workspace_frozen");
    await control(emu(), "PATCH", `/workspaces/${ws.workspace_id}`, { suspended: true });
    expect((await call(emu(), "DELETE", `${list}/${b.id}`, { key: ws.inboxes.admin })).status).toBe(204);
    // still authenticated and scoped
    expect((await call(emu(), "DELETE", `${list}/${b.id}`, { key: ws.inboxes.read })).status).toBe(403);
  });
});

describe("Inboxes request handling", () => {
  const emu = useEmulator({ bodyLimit: 4096 });

  it("413 payload_too_large with limit and size", async () => {
    const raw = JSON.stringify({ label: "x".repeat(5000) });
    const res = await call(emu(), "POST", "/inboxes/v1/inboxes", { key: emu().keys.inboxes.admin, raw });
    expect(res.status).toBe(413);
    expect(errorOf(res)).toMatchObject({ code: "payload_too_large", details: { limit: 4096, size: Buffer.byteLength(raw) } });
  });

  it("400 bad_request for a body that is not UTF-8; 422 json_invalid for bad JSON", async () => {
    const bad = await call(emu(), "POST", "/inboxes/v1/inboxes", { key: emu().keys.inboxes.admin, raw: Buffer.from([0x7b, 0xff, 0xfe, 0x7d]) });
    expect(bad.status).toBe(400);
    expect(errorOf(bad).code).toBe("bad_request");
    const notJson = await call(emu(), "POST", "/inboxes/v1/inboxes", { key: emu().keys.inboxes.admin, raw: "{label" });
    expect(notJson.status).toBe(422);
    expect(errorOf(notJson).details.errors[0].type).toBe("json_invalid");
  });

  it("405 method_not_allowed on a known path", async () => {
    const res = await call(emu(), "PUT", "/inboxes/v1/inboxes", { key: emu().keys.inboxes.admin, body: {} });
    expect(res.status).toBe(405);
    expect(errorOf(res).code).toBe("method_not_allowed");
  });

  it("404 with no details on an unknown path", async () => {
    const res = await call(emu(), "GET", "/inboxes/v1/nothing-here", { key: emu().keys.inboxes.admin });
    expect(res.status).toBe(404);
    expect(errorOf(res).code).toBe("not_found");
    expect(errorOf(res).details).toBeUndefined();
  });

  it("404 not_found reason inbox with the id for a missing inbox", async () => {
    const res = await call(emu(), "GET", "/inboxes/v1/inboxes/inb_missing", { key: emu().keys.inboxes.admin });
    expect(res.status).toBe(404);
    expect(errorOf(res).details).toEqual({ reason: "inbox", id: "inb_missing" });
  });

  it("does not show another workspace's inbox", async () => {
    const other = await workspace(emu());
    const inbox = await createInbox(emu(), other.inboxes.admin);
    const res = await call(emu(), "GET", `/inboxes/v1/inboxes/${inbox.id}`, { key: emu().keys.inboxes.admin });
    expect(res.status).toBe(404);
  });
});
