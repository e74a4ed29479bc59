/** Quota requests: every transition, every 409, admin-only decisions, author-only edits, limits applied on approve. */
import { describe, expect, it } from "vitest";
import { call, control, errorOf, useEmulator } from "../../support/emulator";

const base = "/infra/api/v1/quota-request/";
const body = { service: "compute", region: "us-east-1", limits: { vms: 80 }, justification: "launch week" };

describe("Quota requests", () => {
  const emu = useEmulator();
  const admin = () => emu().keys.infra.admin;
  const member = () => emu().keys.infra.member;
  const file = async (key = member(), b: Record<string, unknown> = body) => {
    const res = await call(emu(), "POST", base, { key, body: b });
    if (res.status !== 201) throw new Error(`${res.status} ${res.text}`);
    return res.body as { id: string; state: string; [k: string]: unknown };
  };
  const get = async (id: string) => (await call(emu(), "GET", `${base}?id=${id}`, { key: member() })).body;
  const expectConflict = (res: { status: number; body: unknown; text: string }, reason: string, id: string, state: string) => {
    expect(res.status).toBe(409);
    expect(errorOf(res as never)).toMatchObject({ code: "conflict", details: { reason, id, state } });
  };

  it("create answers 201 with the request fields and the lifecycle fields", async () => {
    const r = await file();
    expect(r).toEqual({
      ...body, id: expect.stringMatching(/^qr_/), project_id: emu().keys.project_id, state: "pending", admin_message: null,
      requested_by: expect.stringMatching(/^key_[0-9a-f]{16}$/), created_at: expect.any(String), updated_at: r.created_at, decided_at: null,
    });
    expect(await get(r.id)).toEqual(r);
    expect(JSON.stringify(r)).not.toContain(member());
  });

  it("create refuses rule violations with 422 entries", async () => {
    const res = await call(emu(), "POST", base, { key: member(), body: { service: "compute", region: "us-east-1", limits: { vms: 0, disks: 2 } } });
    expect(res.status).toBe(422);
    expect(errorOf(res).details.errors.map((e: { loc: unknown[]; type: string }) => [e.loc, e.type])).toEqual([
      [["body", "limits", "vms"], "greater_than"],
      [["body", "limits", "disks"], "extra_forbidden"],
      [["body", "justification"], "missing"],
    ]);
    const other = await control<{ project_id: string }>(emu(), "POST", "/workspaces", {});
    expect((await call(emu(), "POST", base, { key: member(), body: { ...body, project_id: other.project_id } })).status).toBe(403);
  });

  it("GET needs id (422) and answers 404 quota_request for an unknown one", async () => {
    expect((await call(emu(), "GET", base, { key: member() })).status).toBe(422);
    const res = await call(emu(), "GET", `${base}?id=qr_nope`, { key: member() });
    expect(res.status).toBe(404);
    expect(errorOf(res).details).toEqual({ reason: "quota_request", id: "qr_nope" });
    // also without the trailing slash
    expect((await call(emu(), "GET", "/infra/api/v1/quota-request?id=qr_nope", { key: member() })).status).toBe(404);
  });

  it("pending -> needs_updates (admin update with message) -> pending (author edit) -> approved: limits applied", async () => {
    const r = await file();
    expect((await call(emu(), "POST", `${base}update`, { key: admin(), body: { id: r.id } })).status).toBe(422); // message required
    const flagged = await call(emu(), "POST", `${base}update`, { key: admin(), body: { id: r.id, message: "say which region" } });
    expect(flagged.status).toBe(200);
    expect(flagged.body).toMatchObject({ state: "needs_updates", admin_message: "say which region", decided_at: null });

    expectConflict(await call(emu(), "POST", `${base}approve`, { key: admin(), body: { id: r.id } }), "quota_request_not_pending", r.id, "needs_updates");
    expectConflict(await call(emu(), "POST", `${base}update`, { key: admin(), body: { id: r.id, message: "again" } }), "quota_request_not_pending", r.id, "needs_updates");

    const edited = await call(emu(), "PATCH", base, { key: member(), body: { id: r.id, limits: { vms: 90, vcpu: 300 } } });
    expect(edited.status).toBe(200);
    expect(edited.body).toMatchObject({ state: "pending", limits: { vms: 90, vcpu: 300 }, justification: "launch week" });

    const approved = await call(emu(), "POST", `${base}approve`, { key: admin(), body: { id: r.id } });
    expect(approved.status).toBe(200);
    expect(approved.body).toMatchObject({ state: "approved", decided_at: expect.any(String) });
    const limits = (await call(emu(), "GET", "/infra/api/v1/quota/compute?region=us-east-1", { key: member() })).body.limits;
    expect(limits).toEqual({ vms: 90, vcpu: 300, ram_gb: 800 });

    expectConflict(await call(emu(), "PATCH", base, { key: member(), body: { id: r.id, justification: "more" } }), "quota_request_decided", r.id, "approved");
    // the state conflict wins over a bad edit
    expectConflict(await call(emu(), "PATCH", base, { key: member(), body: { id: r.id, limits: { vms: -1 } } }), "quota_request_decided", r.id, "approved");
    expectConflict(await call(emu(), "DELETE", `${base}?id=${r.id}`, { key: member() }), "quota_request_decided", r.id, "approved");
    expectConflict(await call(emu(), "POST", `${base}approve`, { key: admin(), body: { id: r.id } }), "quota_request_decided", r.id, "approved");
    expectConflict(await call(emu(), "POST", `${base}reject`, { key: admin(), body: { id: r.id, message: "no" } }), "quota_request_decided", r.id, "approved");
    await call(emu(), "POST", "/infra/api/v1/quota/compute/reset", { key: admin(), body: {} });
  });

  it("pending -> rejected with the admin's message; needs_updates can be rejected too", async () => {
    const r = await file();
    const rejected = await call(emu(), "POST", `${base}reject`, { key: admin(), body: { id: r.id, message: "use another region" } });
    expect(rejected.body).toMatchObject({ state: "rejected", admin_message: "use another region", decided_at: expect.any(String) });
    expect((await call(emu(), "GET", "/infra/api/v1/quota/compute", { key: member() })).body.limits.vms).toBe(50);
    expectConflict(await call(emu(), "POST", `${base}update`, { key: admin(), body: { id: r.id, message: "x" } }), "quota_request_decided", r.id, "rejected");

    const r2 = await file();
    await call(emu(), "POST", `${base}update`, { key: admin(), body: { id: r2.id, message: "more detail" } });
    expect((await call(emu(), "POST", `${base}reject`, { key: admin(), body: { id: r2.id, message: "no" } })).body.state).toBe("rejected");
  });

  it("DELETE withdraws a pending or needs_updates request (204), then 409", async () => {
    const r = await file();
    expect((await call(emu(), "DELETE", `${base}?id=${r.id}`, { key: member() })).status).toBe(204);
    expect(await get(r.id)).toMatchObject({ state: "withdrawn", decided_at: expect.any(String) });
    expectConflict(await call(emu(), "DELETE", `${base}?id=${r.id}`, { key: member() }), "quota_request_decided", r.id, "withdrawn");
    expectConflict(await call(emu(), "POST", `${base}approve`, { key: admin(), body: { id: r.id } }), "quota_request_decided", r.id, "withdrawn");

    const r2 = await file();
    await call(emu(), "POST", `${base}update`, { key: admin(), body: { id: r2.id, message: "?" } });
    expect((await call(emu(), "DELETE", `${base}?id=${r2.id}`, { key: member() })).status).toBe(204);
  });

  it("approve, reject and update are admin only: a member key gets 403 forbidden", async () => {
    const r = await file();
    for (const action of ["approve", "reject", "update"]) {
      const res = await call(emu(), "POST", `${base}${action}`, { key: member(), body: { id: r.id, message: "m" } });
      expect(res.status).toBe(403);
      expect(errorOf(res).code).toBe("forbidden");
    }
    expect((await get(r.id)).state).toBe("pending");
  });

  it("a non-admin edits and withdraws only their own request; an admin may edit any", async () => {
    const mine = await file(admin());
    const { key: otherMember } = await control<{ key: string }>(emu(), "POST", "/keys", {
      product: "infra", scopes: ["iam:read", "vms:read"], workspace_id: emu().keys.workspace_id,
    });
    const res = await call(emu(), "PATCH", base, { key: otherMember, body: { id: mine.id, justification: "mine now" } });
    expect(res.status).toBe(403);
    expect((await call(emu(), "DELETE", `${base}?id=${mine.id}`, { key: otherMember })).status).toBe(403);

    const theirs = await file(otherMember);
    expect((await call(emu(), "PATCH", base, { key: admin(), body: { id: theirs.id, justification: "clarified" } })).body.justification).toBe("clarified");
    const bad = await call(emu(), "PATCH", base, { key: otherMember, body: { id: theirs.id, limits: { gpus: 1 } } });
    expect(bad.status).toBe(422);
    expect((await call(emu(), "PATCH", base, { key: otherMember, body: { id: theirs.id, service: "dns" } })).status).toBe(422);
  });

  it("list filters by states (comma list) and project, newest first", async () => {
    const ws = await control<{ infra: { admin: string; member: string }; project_id: string }>(emu(), "POST", "/workspaces", {});
    const k = ws.infra.member;
    const a = (await call(emu(), "POST", base, { key: k, body })).body;
    const b = (await call(emu(), "POST", base, { key: k, body })).body;
    const c = (await call(emu(), "POST", base, { key: k, body })).body;
    await call(emu(), "POST", `${base}update`, { key: ws.infra.admin, body: { id: b.id, message: "m" } });
    await call(emu(), "POST", `${base}approve`, { key: ws.infra.admin, body: { id: c.id } });
    const list = async (q: string) => (await call(emu(), "GET", `/infra/api/v1/quota-request/list${q}`, { key: k })).body.items.map((r: { id: string }) => r.id);
    expect(await list("")).toEqual([c.id, b.id, a.id]);
    expect(await list("?states=pending,needs_updates")).toEqual([b.id, a.id]);
    expect(await list("?states=approved")).toEqual([c.id]);
    expect(await list(`?project_id=${ws.project_id}&states=pending`)).toEqual([a.id]);
    const bad = await call(emu(), "GET", "/infra/api/v1/quota-request/list?states=open", { key: k });
    expect(bad.status).toBe(422);
    expect(errorOf(bad).details.errors[0]).toMatchObject({ loc: ["query", "states"], type: "enum" });
    expect((await call(emu(), "GET", `/infra/api/v1/quota-request/list?project_id=${emu().keys.project_id}`, { key: k })).status).toBe(403);
    // Another project's request is invisible.
    expect((await call(emu(), "GET", `${base}?id=${a.id}`, { key: member() })).status).toBe(404);
  });

  it("a project-wide request applies to the project", async () => {
    const r = await file(member(), { service: "iam", region: null, limits: { users: 40 }, justification: "team" });
    await call(emu(), "POST", `${base}approve`, { key: admin(), body: { id: r.id } });
    expect((await call(emu(), "GET", "/infra/api/v1/quota/iam", { key: member() })).body.limits).toEqual({ users: 40 });
    const entry = (await call(emu(), "GET", "/infra/v1/quotas", { key: member() })).body.items.find((e: { name: string }) => e.name === "users");
    expect(entry).toMatchObject({ scope: "project", limit: 40 });
  });
});
