/** Inboxes: create, read, update, release, address lookup, expiry, plan ceilings. */
import { describe, expect, it } from "vitest";
import { call, control, errorOf, useEmulator } from "../../support/emulator";
import { createInbox, workspace } from "./helpers";

const base = "/inboxes/v1/inboxes";

describe("Inboxes CRUD", () => {
  const emu = useEmulator();

  it("creates an email inbox with an address and an http inbox with a working bin", async () => {
    const ws = await workspace(emu());
    const email = await createInbox(emu(), ws.inboxes.admin, { label: "signup", transport: "email" });
    expect(email).toMatchObject({ label: "signup", phrase: false, transport: "email", status: "active", slug: null, url: null, expires_at: null });
    expect(email.address).toMatch(/^[a-z2-7]+@inbox\.svc\.test$/);
    expect(Object.keys(email).sort()).toEqual(["address", "created_at", "expires_at", "id", "label", "phrase", "slug", "status", "transport", "url"]);

    const bin = await createInbox(emu(), ws.inboxes.admin, { transport: "http" });
    expect(bin.address).toBeNull();
    expect(bin.url).toBe(`${emu().url}/inboxes/bin/${bin.slug}`);
    const hit = await fetch(`${bin.url}/hook?x=1`, { method: "POST", body: "plain text", headers: { "content-type": "text/plain" } });
    expect(hit.status).toBe(200);
  });

  it("defaults to the email transport", async () => {
    const ws = await workspace(emu());
    expect((await createInbox(emu(), ws.inboxes.admin)).transport).toBe("email");
  });

  it("422 string_too_long with params.count 200 on a long label", async () => {
    const res = await call(emu(), "POST", base, { key: emu().keys.inboxes.admin, body: { label: "l".repeat(201) } });
    expect(res.status).toBe(422);
    expect(errorOf(res).details.errors).toEqual([{ loc: ["body", "label"], type: "string_too_long", msg: expect.any(String), params: { count: 200 } }]);
  });

  it("422 on a create-only field in PATCH", async () => {
    const ws = await workspace(emu());
    const inbox = await createInbox(emu(), ws.inboxes.admin);
    const res = await call(emu(), "PATCH", `${base}/${inbox.id}`, { key: ws.inboxes.admin, body: { transport: "http" } });
    expect(res.status).toBe(422);
    expect(errorOf(res).details.errors[0]).toMatchObject({ loc: ["body", "transport"], type: "extra_forbidden" });
  });

  it("reads, updates (null resets) and releases", async () => {
    const ws = await workspace(emu());
    const inbox = await createInbox(emu(), ws.inboxes.admin, { label: "a" });
    expect((await call(emu(), "GET", `${base}/${inbox.id}`, { key: ws.inboxes.read })).body).toEqual(inbox);

    const patched = await call(emu(), "PATCH", `${base}/${inbox.id}`, { key: ws.inboxes.admin, body: { label: "b", status: "paused", phrase: true } });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ label: "b", status: "paused", phrase: true });
    const reset = await call(emu(), "PATCH", `${base}/${inbox.id}`, { key: ws.inboxes.admin, body: { label: null, status: null, phrase: null } });
    expect(reset.body).toMatchObject({ label: null, status: "active", phrase: false });

    expect((await call(emu(), "DELETE", `${base}/${inbox.id}`, { key: ws.inboxes.admin })).status).toBe(204);
    const gone = await call(emu(), "GET", `${base}/${inbox.id}`, { key: ws.inboxes.admin });
    expect(gone.status).toBe(404);
    expect(errorOf(gone).details).toEqual({ reason: "inbox", id: inbox.id });
    expect((await call(emu(), "DELETE", `${base}/${inbox.id}`, { key: ws.inboxes.admin })).status).toBe(404);
  });

  it("lists newest first with the page shape", async () => {
    const ws = await workspace(emu());
    const a = await createInbox(emu(), ws.inboxes.admin);
    const b = await createInbox(emu(), ws.inboxes.admin, { transport: "http" });
    const res = await call(emu(), "GET", `${base}?limit=1`, { key: ws.inboxes.read });
    expect(res.body).toMatchObject({ total: 2, limit: 1, offset: 0 });
    expect(res.body.data.map((i: { id: string }) => i.id)).toEqual([b.id]);
    const next = await call(emu(), "GET", `${base}?limit=1&offset=1`, { key: ws.inboxes.read });
    expect(next.body.data.map((i: { id: string }) => i.id)).toEqual([a.id]);
    expect((await call(emu(), "GET", `${base}?limit=201`, { key: ws.inboxes.read })).status).toBe(422);
  });
});

describe("Inboxes address lookup", () => {
  const emu = useEmulator();

  it("finds by email address (any case), bin slug and bin URL; an empty list otherwise", async () => {
    const ws = await workspace(emu());
    const email = await createInbox(emu(), ws.inboxes.admin);
    const bin = await createInbox(emu(), ws.inboxes.admin, { transport: "http" });
    const lookup = async (address: string) => (await call(emu(), "GET", `${base}?address=${encodeURIComponent(address)}`, { key: ws.inboxes.read })).body;

    for (const [address, id] of [[email.address!, email.id], [email.address!.toUpperCase(), email.id], [bin.slug!, bin.id], [bin.url!, bin.id]] as const) {
      const page = await lookup(address);
      expect(page.total).toBe(1);
      expect(page.data[0].id).toBe(id);
    }
    const none = await lookup("nobody@inbox.svc.test");
    expect(none).toEqual({ data: [], total: 0, limit: 50, offset: 0 });
  });

  it("does not find another workspace's inbox", async () => {
    const other = await workspace(emu());
    const theirs = await createInbox(emu(), other.inboxes.admin);
    const res = await call(emu(), "GET", `${base}?address=${encodeURIComponent(theirs.address!)}`, { key: emu().keys.inboxes.read });
    expect(res.status).toBe(200);
    expect(res.body.total).toBe(0);
  });
});

describe("Inboxes expiry", () => {
  const emu = useEmulator();

  it("sets expires_at from expires_in_minutes; past it the inbox reads as 404 inbox", async () => {
    const ws = await workspace(emu());
    const inbox = await createInbox(emu(), ws.inboxes.admin, { expires_in_minutes: 10 });
    expect(Date.parse(inbox.expires_at!) - Date.parse(inbox.created_at as string)).toBe(10 * 60_000);
    expect((await call(emu(), "GET", `${base}/${inbox.id}`, { key: ws.inboxes.read })).status).toBe(200);

    await control(emu(), "POST", "/clock", { advance_seconds: 601 });
    const res = await call(emu(), "GET", `${base}/${inbox.id}`, { key: ws.inboxes.read });
    expect(res.status).toBe(404);
    expect(errorOf(res).details).toEqual({ reason: "inbox", id: inbox.id });
    expect((await call(emu(), "GET", `${base}?address=${encodeURIComponent(inbox.address!)}`, { key: ws.inboxes.read })).body.total).toBe(0);
  });

  it("the control plane expires an inbox now", async () => {
    const ws = await workspace(emu());
    const inbox = await createInbox(emu(), ws.inboxes.admin, { transport: "http" });
    await control(emu(), "POST", `/inboxes/inboxes/${inbox.id}/expire`);
    expect((await call(emu(), "GET", `${base}/${inbox.id}`, { key: ws.inboxes.read })).status).toBe(404);
    expect((await fetch(inbox.url!, { method: "POST", body: "x" })).status).toBe(404);
  });
});

describe("Inboxes plan ceilings", () => {
  const emu = useEmulator({ plans: { free: { inboxes: { inboxes: 2, http_bins: 1 } } } });

  it("402 quota_exceeded allocation with metric, limit and current, per transport; release frees a slot", async () => {
    const ws = await workspace(emu(), "free");
    const first = await createInbox(emu(), ws.inboxes.admin);
    await createInbox(emu(), ws.inboxes.admin);
    const res = await call(emu(), "POST", base, { key: ws.inboxes.admin, body: { transport: "email" } });
    expect(res.status).toBe(402);
    expect(errorOf(res)).toMatchObject({ code: "quota_exceeded" });
    expect(errorOf(res).details).toEqual({ reason: "allocation", metric: "inboxes", limit: 2, current: 2 });

    await createInbox(emu(), ws.inboxes.admin, { transport: "http" });
    const bins = await call(emu(), "POST", base, { key: ws.inboxes.admin, body: { transport: "http" } });
    expect(errorOf(bins).details).toEqual({ reason: "allocation", metric: "http_bins", limit: 1, current: 1 });

    await call(emu(), "DELETE", `${base}/${first.id}`, { key: ws.inboxes.admin });
    expect((await call(emu(), "POST", base, { key: ws.inboxes.admin, body: {} })).status).toBe(201);
  });

  it("the Pro plan has 25 addresses", async () => {
    const ws = await workspace(emu(), "pro");
    for (let i = 0; i < 25; i++) await createInbox(emu(), ws.inboxes.admin);
    const res = await call(emu(), "POST", base, { key: ws.inboxes.admin, body: {} });
    expect(errorOf(res).details).toEqual({ reason: "allocation", metric: "inboxes", limit: 25, current: 25 });
  });

  it("402 not_entitled optional_phrase_gate for phrase below Pro (PATCH and create); null is always allowed", async () => {
    const ws = await workspace(emu(), "free");
    const inbox = await createInbox(emu(), ws.inboxes.admin);
    for (const phrase of [true, false]) {
      const res = await call(emu(), "PATCH", `${base}/${inbox.id}`, { key: ws.inboxes.admin, body: { phrase } });
      expect(res.status).toBe(402);
      expect(errorOf(res)).toMatchObject({ code: "not_entitled", details: { feature: "optional_phrase_gate" } });
    }
    expect(errorOf(await call(emu(), "POST", base, { key: ws.inboxes.admin, body: { phrase: true } })).code).toBe("not_entitled");
    expect((await call(emu(), "PATCH", `${base}/${inbox.id}`, { key: ws.inboxes.admin, body: { phrase: null, label: "ok" } })).status).toBe(200);
  });
});
