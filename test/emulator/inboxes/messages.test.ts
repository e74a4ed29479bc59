/** Inboxes messages: bins and email, the read gate, time bounds, refusals of acceptance, audit, plan, usage. */
import { describe, expect, it } from "vitest";
import { call, control, errorOf, useEmulator } from "../../support/emulator";
import { createInbox, sendEmail, sessionCookie, workspace } from "./helpers";

const ids = (page: { data: { id: string }[] }) => page.data.map((m) => m.id);

describe("Inboxes messages", () => {
  const emu = useEmulator();

  it("a bin stores each request as a message (method, path, query, headers, body)", async () => {
    const ws = await workspace(emu());
    const bin = await createInbox(emu(), ws.inboxes.admin, { transport: "http" });
    const hit = await fetch(`${bin.url}/a/b?x=1`, { method: "PUT", body: "not json {", headers: { "content-type": "text/plain", "x-custom": "v" } });
    expect(hit.status).toBe(200);
    const { message_id } = (await hit.json()) as { message_id: string };
    await fetch(bin.url!, { method: "POST", body: Buffer.from([0xff, 0x00]) });

    const page = (await call(emu(), "GET", `/inboxes/v1/inboxes/${bin.id}/messages`, { key: ws.inboxes.read })).body;
    expect(page.total).toBe(2);
    const one = (await call(emu(), "GET", `/inboxes/v1/inboxes/${bin.id}/messages/${message_id}`, { key: ws.inboxes.read })).body;
    expect(one).toMatchObject({
      id: message_id, inbox_id: bin.id, transport: "http", method: "PUT", path: "/a/b", query: "x=1",
      body: "not json {", body_encoding: "utf8", content_type: "text/plain", size_bytes: 10,
    });
    expect(one.headers["x-custom"]).toBe("v");
    expect(page.data[0]).toMatchObject({ body: Buffer.from([0xff, 0x00]).toString("base64"), body_encoding: "base64", path: "/" });
  });

  it("email from the control plane; /v1/messages lists the workspace's messages newest first, each with its inbox_id", async () => {
    const ws = await workspace(emu());
    const a = await createInbox(emu(), ws.inboxes.admin);
    const b = await createInbox(emu(), ws.inboxes.admin);
    const m1 = (await sendEmail(emu(), a.id, { subject: "one", text: "code 123456 at https://x.test/verify" })).body;
    const m2 = (await sendEmail(emu(), b.id)).body;
    const m3 = (await call(emu(), "POST", "/_emulator/inboxes/messages", { body: { address: a.address, subject: "three" } })).body;
    expect(m1).toMatchObject({ inbox_id: a.id, transport: "email", subject: "one", to: a.address });

    const all = (await call(emu(), "GET", "/inboxes/v1/messages", { key: ws.inboxes.read })).body;
    expect(ids(all)).toEqual([m3.id, m2.id, m1.id]);
    expect(all.data.map((m: { inbox_id: string }) => m.inbox_id)).toEqual([a.id, b.id, a.id]);

    const extracted = (await call(emu(), "GET", `/inboxes/v1/inboxes/${a.id}/messages/${m1.id}?extract=codes`, { key: ws.inboxes.read })).body;
    expect(extracted.extracted).toEqual({ kind: "codes", matches: ["123456"] });
    const links = (await call(emu(), "GET", `/inboxes/v1/inboxes/${a.id}/messages?extract=links`, { key: ws.inboxes.read })).body;
    expect(links.data[1].extracted).toEqual({ kind: "links", matches: ["https://x.test/verify"] });
    for (const kind of ["qr", "constructor"]) {
      const other = await call(emu(), "GET", `/inboxes/v1/inboxes/${a.id}/messages/${m1.id}?extract=${kind}`, { key: ws.inboxes.read });
      expect(other.status).toBe(200);
      expect(other.body.extracted).toEqual({ kind, matches: [] });
    }
    expect((await call(emu(), "GET", `/inboxes/v1/inboxes/${a.id}/messages/${m1.id}`, { key: ws.inboxes.read })).body).not.toHaveProperty("extracted");
  });

  it("the control plane delivers an http request to a bin by id or slug", async () => {
    const ws = await workspace(emu());
    const bin = await createInbox(emu(), ws.inboxes.admin, { transport: "http" });
    const res = await call(emu(), "POST", "/_emulator/inboxes/messages", { body: { address: bin.slug, method: "put", path: "/x", body: "{}", content_type: "application/json" } });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ inbox_id: bin.id, transport: "http", method: "PUT", path: "/x", body: "{}", content_type: "application/json", from: null, subject: null });
    expect((await call(emu(), "POST", "/_emulator/inboxes/messages", { body: { inbox_id: bin.id } })).body.method).toBe("POST");
    expect((await call(emu(), "POST", "/_emulator/inboxes/messages", { body: { inbox_id: "inb_nope" } })).status).toBe(404);
  });

  it("a bin takes a JSON body as is and answers 413 with limit and size over the body limit", async () => {
    const ws = await workspace(emu());
    const bin = await createInbox(emu(), ws.inboxes.admin, { transport: "http" });
    const hit = await call(emu(), "POST", `/inboxes/bin/${bin.slug}`, { raw: '{"a":1', headers: { "content-type": "application/json" } });
    expect(hit.status).toBe(200);
    const m = (await call(emu(), "GET", `/inboxes/v1/inboxes/${bin.id}/messages/${hit.body.message_id}`, { key: ws.inboxes.read })).body;
    expect(m.body).toBe('{"a":1');
    const big = Buffer.alloc(1024 * 1024 + 1, 97);
    const res = await call(emu(), "POST", `/inboxes/bin/${bin.slug}`, { raw: big, headers: { "content-type": "text/plain" } });
    expect(res.status).toBe(413);
    expect(errorOf(res).details).toEqual({ limit: 1024 * 1024, size: big.length });
  });

  it("404 message for a message of another inbox; 404 inbox for messages of a released inbox", async () => {
    const ws = await workspace(emu());
    const a = await createInbox(emu(), ws.inboxes.admin);
    const b = await createInbox(emu(), ws.inboxes.admin);
    const m = (await sendEmail(emu(), a.id)).body;
    const wrong = await call(emu(), "GET", `/inboxes/v1/inboxes/${b.id}/messages/${m.id}`, { key: ws.inboxes.read });
    expect(wrong.status).toBe(404);
    expect(errorOf(wrong).details).toEqual({ reason: "message", id: m.id });

    await call(emu(), "DELETE", `/inboxes/v1/inboxes/${a.id}`, { key: ws.inboxes.admin });
    const gone = await call(emu(), "GET", `/inboxes/v1/inboxes/${a.id}/messages`, { key: ws.inboxes.read });
    expect(gone.status).toBe(404);
    expect(errorOf(gone).details).toEqual({ reason: "inbox", id: a.id });
    expect((await call(emu(), "GET", "/inboxes/v1/messages", { key: ws.inboxes.read })).body.total).toBe(0);
  });

  it("DELETE messages empties one inbox and answers the count", async () => {
    const ws = await workspace(emu());
    const a = await createInbox(emu(), ws.inboxes.admin);
    await sendEmail(emu(), a.id);
    await sendEmail(emu(), a.id);
    const res = await call(emu(), "DELETE", `/inboxes/v1/inboxes/${a.id}/messages`, { key: ws.inboxes.admin });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ deleted: 2 });
    expect((await call(emu(), "GET", `/inboxes/v1/inboxes/${a.id}/messages`, { key: ws.inboxes.read })).body.total).toBe(0);
  });

  it("since is exclusive, until inclusive, both normalised to UTC", async () => {
    const ws = await workspace(emu());
    const a = await createInbox(emu(), ws.inboxes.admin);
    const m1 = (await sendEmail(emu(), a.id)).body;
    await control(emu(), "POST", "/clock", { advance_seconds: 60 });
    const m2 = (await sendEmail(emu(), a.id)).body;
    await control(emu(), "POST", "/clock", { advance_seconds: 60 });
    const m3 = (await sendEmail(emu(), a.id)).body;
    const t2 = m2.received_at as string;
    const plus2h = new Date(Date.parse(t2) + 2 * 3600_000).toISOString().replace("Z", "+02:00");
    const list = async (q: string) => ids((await call(emu(), "GET", `/inboxes/v1/inboxes/${a.id}/messages?${q}`, { key: ws.inboxes.read })).body);

    expect(await list(`since=${encodeURIComponent(t2)}`)).toEqual([m3.id]);
    expect(await list(`until=${encodeURIComponent(t2)}`)).toEqual([m2.id, m1.id]);
    expect(await list(`since=${encodeURIComponent(t2)}&until=${encodeURIComponent(t2)}`)).toEqual([]);
    expect(await list(`since=${encodeURIComponent(plus2h)}`)).toEqual([m3.id]);
    expect(await list(`until=${encodeURIComponent(plus2h)}`)).toEqual([m2.id, m1.id]);
    expect(await list(`since=${encodeURIComponent(m1.received_at)}&until=${encodeURIComponent(m3.received_at)}`)).toEqual([m3.id, m2.id]);
    const all = (await call(emu(), "GET", `/inboxes/v1/messages?until=${encodeURIComponent(plus2h)}`, { key: ws.inboxes.read })).body;
    expect(ids(all)).toEqual([m2.id, m1.id]);

    const bad = await call(emu(), "GET", `/inboxes/v1/messages?since=yesterday`, { key: ws.inboxes.read });
    expect(bad.status).toBe(422);
    expect(errorOf(bad).details.errors[0]).toMatchObject({ loc: ["query", "since"], type: "datetime_parsing" });
  });
});

describe("Inboxes read gate", () => {
  const emu = useEmulator();

  it("an API key on the free plan gets 402 not_entitled read_api on every message read; a session reads", async () => {
    const ws = await workspace(emu(), "free");
    const inbox = await createInbox(emu(), ws.inboxes.admin);
    const m = (await sendEmail(emu(), inbox.id)).body;
    const reads = ["/inboxes/v1/messages", `/inboxes/v1/inboxes/${inbox.id}/messages`, `/inboxes/v1/inboxes/${inbox.id}/messages/${m.id}`];
    for (const path of reads) {
      const res = await call(emu(), "GET", path, { key: ws.inboxes.admin });
      expect(res.status).toBe(402);
      expect(errorOf(res)).toMatchObject({ code: "not_entitled", details: { feature: "read_api" } });
    }
    const cookie = await sessionCookie(emu(), ws.workspace_id);
    for (const path of reads) expect((await call(emu(), "GET", path, { headers: { cookie } })).status).toBe(200);
    // Deleting messages is not a read.
    expect((await call(emu(), "DELETE", `/inboxes/v1/inboxes/${inbox.id}/messages`, { key: ws.inboxes.admin })).status).toBe(200);
  });

  it("an API key on a paid plan reads", async () => {
    const ws = await workspace(emu(), "pro");
    const inbox = await createInbox(emu(), ws.inboxes.admin);
    expect((await call(emu(), "GET", `/inboxes/v1/inboxes/${inbox.id}/messages`, { key: ws.inboxes.read })).status).toBe(200);
  });
});

describe("Inboxes acceptance refusals", () => {
  const emu = useEmulator({ plans: { free: { inboxes: { messages_per_month: 2 } } } });

  it("402 quota_exceeded period with metric messages, limit and period YYYY-MM (no current)", async () => {
    const ws = await workspace(emu(), "free");
    const inbox = await createInbox(emu(), ws.inboxes.admin, { transport: "http" });
    expect((await fetch(inbox.url!, { method: "POST", body: "1" })).status).toBe(200);
    expect((await sendEmail(emu(), (await createInbox(emu(), ws.inboxes.admin)).id)).status).toBe(201);
    const res = await call(emu(), "POST", `/inboxes/bin/${inbox.slug}`, { raw: "3" });
    expect(res.status).toBe(402);
    const { now } = await control<{ now: string }>(emu(), "GET", "/clock");
    expect(errorOf(res)).toMatchObject({ code: "quota_exceeded" });
    expect(errorOf(res).details).toEqual({ reason: "period", metric: "messages", limit: 2, period: now.slice(0, 7) });
    expect((await call(emu(), "GET", "/inboxes/v1/usage", { key: ws.inboxes.read })).body).toEqual({ period: now.slice(0, 7), inboxes: 1, http_bins: 1, messages: 2 });
  });

  it("429 rate_limited inbox_rate with retry_after and rate_per_min; the limit is per inbox", async () => {
    const ws = await workspace(emu(), "pro");
    await control(emu(), "POST", "/inboxes/rate-limit", { rate_per_min: 2 });
    try {
      const a = await createInbox(emu(), ws.inboxes.admin);
      const b = await createInbox(emu(), ws.inboxes.admin);
      expect((await sendEmail(emu(), a.id)).status).toBe(201);
      expect((await sendEmail(emu(), a.id)).status).toBe(201);
      const res = await sendEmail(emu(), a.id);
      expect(res.status).toBe(429);
      expect(errorOf(res)).toMatchObject({ code: "rate_limited" });
      const d = errorOf(res).details;
      expect(Object.keys(d).sort()).toEqual(["rate_per_min", "reason", "retry_after"]);
      expect(d).toMatchObject({ reason: "inbox_rate", rate_per_min: 2 });
      expect(d.retry_after).toBeGreaterThanOrEqual(1);
      expect(res.headers.get("retry-after")).toBe(String(d.retry_after));
      expect((await sendEmail(emu(), b.id)).status).toBe(201);
      await control(emu(), "POST", "/clock", { advance_seconds: 61 });
      expect((await sendEmail(emu(), a.id)).status).toBe(201);
    } finally {
      await control(emu(), "POST", "/inboxes/rate-limit", { rate_per_min: 60 });
    }
  });

  it("503 unavailable ingest_disabled while acceptance is switched off, for bins and email", async () => {
    const ws = await workspace(emu(), "pro");
    const bin = await createInbox(emu(), ws.inboxes.admin, { transport: "http" });
    const email = await createInbox(emu(), ws.inboxes.admin);
    await control(emu(), "POST", "/inboxes/ingest", { enabled: false });
    try {
      for (const res of [await call(emu(), "POST", `/inboxes/bin/${bin.slug}`, { raw: "x" }), await sendEmail(emu(), email.id)]) {
        expect(res.status).toBe(503);
        expect(errorOf(res).code).toBe("unavailable");
        expect(errorOf(res).details).toEqual({ reason: "ingest_disabled" });
      }
    } finally {
      await control(emu(), "POST", "/inboxes/ingest", { enabled: true });
    }
    expect((await sendEmail(emu(), email.id)).status).toBe(201);
  });
});

describe("Inboxes audit, plan, usage", () => {
  const emu = useEmulator();

  it("records every change of the workspace, newest first, with since/until; releases are kept", async () => {
    const ws = await workspace(emu());
    const inbox = await createInbox(emu(), ws.inboxes.admin);
    await control(emu(), "POST", "/clock", { advance_seconds: 5 });
    await call(emu(), "PATCH", `/inboxes/v1/inboxes/${inbox.id}`, { key: ws.inboxes.admin, body: { label: "x" } });
    await call(emu(), "DELETE", `/inboxes/v1/inboxes/${inbox.id}/messages`, { key: ws.inboxes.admin });
    await call(emu(), "DELETE", `/inboxes/v1/inboxes/${inbox.id}`, { key: ws.inboxes.admin });
    const page = (await call(emu(), "GET", "/inboxes/v1/audit", { key: ws.inboxes.read })).body;
    expect(page.data.map((a: { action: string }) => a.action)).toEqual(["inbox.released", "messages.deleted", "inbox.updated", "inbox.created"]);
    expect(page.data.every((a: { target_id: string }) => a.target_id === inbox.id)).toBe(true);
    const created = page.data[3].created_at as string;
    const after = (await call(emu(), "GET", `/inboxes/v1/audit?since=${encodeURIComponent(created)}`, { key: ws.inboxes.read })).body;
    expect(after.total).toBe(3);
    const upTo = (await call(emu(), "GET", `/inboxes/v1/audit?until=${encodeURIComponent(created)}`, { key: ws.inboxes.read })).body;
    expect(upTo.data.map((a: { action: string }) => a.action)).toEqual(["inbox.created"]);
    // Another workspace sees none of it.
    expect((await call(emu(), "GET", "/inboxes/v1/audit", { key: emu().keys.inboxes.read })).body.total).toBe(0);
  });

  it("plan names the limits and features of the workspace's plan", async () => {
    const free = await workspace(emu(), "free");
    expect((await call(emu(), "GET", "/inboxes/v1/plan", { key: free.inboxes.read })).body).toEqual({
      name: "free", limits: { inboxes: 3, http_bins: 3, messages_per_month: 1000 }, features: { read_api: false, optional_phrase_gate: false },
    });
    const pro = await workspace(emu(), "pro");
    expect((await call(emu(), "GET", "/inboxes/v1/plan", { key: pro.inboxes.read })).body).toMatchObject({ name: "pro", limits: { inboxes: 25, http_bins: 25 }, features: { read_api: true, optional_phrase_gate: true } });
  });
});
