/**
 * Captures over HTTP: one row per distinct request with seen_count on retries,
 * outcomes, newest last_seen_at first, no bodies in the list, base64 bodies on the
 * detail read (non-UTF-8 bytes included), filters and their 404s, delete with a read key.
 */
import { describe, expect, it } from "vitest";
import { control, useEmulator } from "../../support/emulator";
import { expectError, newWorkspace, wh } from "./endpoints-support";
import { createSource, ingest } from "./sources-support";

describe("captures", () => {
  const emu = useEmulator();

  it("a retry of the same request increments seen_count on one row; the list has no bodies", async () => {
    const ws = await newWorkspace(emu());
    const s = await createSource(emu(), ws.webhooks.admin, { capture_enabled: true });
    const body = '{"type":"a.b"}';
    const first = await ingest(emu(), s.id, body, { secret: s.secret, id: "p1" });
    await control(emu(), "POST", "/clock", { advance_seconds: 5 });
    const again = await ingest(emu(), s.id, body, { secret: s.secret, id: "p1" });
    expect(again.body.capture_id).toBe(first.body.capture_id);
    const list = await wh(emu(), "GET", `/v1/captures?source_id=${s.id}`, { key: ws.webhooks.read });
    expect(list.status).toBe(200);
    expect(list.body.total).toBe(1);
    const row = list.body.data[0];
    expect(row).toMatchObject({ id: first.body.capture_id, source_id: s.id, outcome: "accepted", seen_count: 2, event_type: "a.b", event_id: first.body.event_id, webhook_id: "p1" });
    expect(Date.parse(row.last_seen_at) - Date.parse(row.first_seen_at)).toBeGreaterThanOrEqual(5000);
    expect(row.body).toBeUndefined();
    expect(row.headers).toBeUndefined();
  });

  it("without an id, the same body is the same request; another body is another row", async () => {
    const ws = await newWorkspace(emu());
    const s = await createSource(emu(), ws.webhooks.admin, { capture_enabled: true });
    await ingest(emu(), s.id, '{"type":"x"}', { secret: s.secret });
    await ingest(emu(), s.id, '{"type":"x"}', { secret: s.secret });
    await ingest(emu(), s.id, '{"type":"y"}', { secret: s.secret });
    const list = await wh(emu(), "GET", `/v1/captures?source_id=${s.id}`, { key: ws.webhooks.read });
    expect(list.body.data.map((c: any) => [c.event_type, c.seen_count])).toEqual([["y", 1], ["x", 2]]);
  });

  it("the detail read has the exact body as base64, even when it is not UTF-8; signature failures are captured", async () => {
    const ws = await newWorkspace(emu());
    const s = await createSource(emu(), ws.webhooks.admin, { capture_enabled: true });
    const bytes = Buffer.from([0xff, 0xfe, 0x00, 0x41]);
    const res = await ingest(emu(), s.id, bytes, { secret: "wrong", headers: { "content-type": "application/octet-stream" } });
    expect(res.status).toBe(401);
    const list = await wh(emu(), "GET", `/v1/captures?outcome=signature_invalid`, { key: ws.webhooks.read });
    expect(list.body.total).toBe(1);
    const detail = await wh(emu(), "GET", `/v1/captures/${list.body.data[0].id}`, { key: ws.webhooks.read });
    expect(detail.status).toBe(200);
    expect(Buffer.from(detail.body.body, "base64").equals(bytes)).toBe(true);
    expect(detail.body).toMatchObject({ outcome: "signature_invalid", size: 4, content_type: "application/octet-stream" });
  });

  it("outcomes of refused requests are recorded; newest last_seen_at first; outcome filter narrows", async () => {
    const ws = await newWorkspace(emu());
    await wh(emu(), "PUT", "/v1/event-types/policy", { key: ws.webhooks.admin, body: { policy: "strict" } });
    await wh(emu(), "POST", "/v1/event-types", { key: ws.webhooks.admin, body: { name: "known" } });
    const s = await createSource(emu(), ws.webhooks.admin, { capture_enabled: true });
    await ingest(emu(), s.id, '{"type":"unknown.one"}', { secret: s.secret, id: "1" });
    await ingest(emu(), s.id, '{"type":"known"}', { secret: s.secret, id: "2" });
    const all = await wh(emu(), "GET", "/v1/captures", { key: ws.webhooks.read });
    expect(all.body.data.map((c: any) => [c.webhook_id, c.outcome])).toEqual([["2", "accepted"], ["1", "unknown_event_type"]]);
    // A retry moves the row to the top.
    await ingest(emu(), s.id, '{"type":"unknown.one"}', { secret: s.secret, id: "1" });
    const after = await wh(emu(), "GET", "/v1/captures", { key: ws.webhooks.read });
    expect(after.body.data.map((c: any) => [c.webhook_id, c.seen_count])).toEqual([["1", 2], ["2", 1]]);
    const refused = await wh(emu(), "GET", "/v1/captures?outcome=unknown_event_type", { key: ws.webhooks.read });
    expect(refused.body.data.map((c: any) => c.webhook_id)).toEqual(["1"]);
  });

  it("a source without capture_enabled records nothing", async () => {
    const ws = await newWorkspace(emu());
    const s = await createSource(emu(), ws.webhooks.admin);
    const res = await ingest(emu(), s.id, '{"type":"x"}', { secret: s.secret });
    expect(res.body.capture_id).toBeNull();
    expect((await wh(emu(), "GET", `/v1/captures?source_id=${s.id}`, { key: ws.webhooks.read })).body.total).toBe(0);
  });

  it("a source_id outside the workspace is 404 source; project_id narrows to that project's sources", async () => {
    const ws = await newWorkspace(emu());
    const other = await newWorkspace(emu());
    const foreign = await createSource(emu(), other.webhooks.admin, { capture_enabled: true });
    expectError(await wh(emu(), "GET", `/v1/captures?source_id=${foreign.id}`, { key: ws.webhooks.read }), 404, "not_found", { reason: "source", id: foreign.id });
    expectError(await wh(emu(), "GET", `/v1/captures?project_id=${other.project_id}`, { key: ws.webhooks.read }), 404, "not_found", { reason: "project", id: other.project_id });

    const p2 = await control<{ id: string }>(emu(), "POST", "/projects", { workspace_id: ws.workspace_id, name: "p2" });
    const a = await createSource(emu(), ws.webhooks.admin, { capture_enabled: true });
    const b = await createSource(emu(), ws.webhooks.admin, { capture_enabled: true, project_id: p2.id });
    await ingest(emu(), a.id, '{"type":"x"}', { secret: a.secret });
    await ingest(emu(), b.id, '{"type":"x"}', { secret: b.secret });
    const narrowed = await wh(emu(), "GET", `/v1/captures?project_id=${p2.id}`, { key: ws.webhooks.read });
    expect(narrowed.body.data.map((c: any) => [c.source_id, c.project_id])).toEqual([[b.id, p2.id]]);
  });

  it("a capture is deleted with a read key (204), then 404 capture; another workspace's capture is 404", async () => {
    const ws = await newWorkspace(emu());
    const other = await newWorkspace(emu());
    const s = await createSource(emu(), ws.webhooks.admin, { capture_enabled: true });
    const res = await ingest(emu(), s.id, '{"type":"x"}', { secret: s.secret });
    const id = res.body.capture_id as string;
    expectError(await wh(emu(), "GET", `/v1/captures/${id}`, { key: other.webhooks.read }), 404, "not_found", { reason: "capture", id });
    expectError(await wh(emu(), "DELETE", `/v1/captures/${id}`, { key: other.webhooks.read }), 404, "not_found", { reason: "capture", id });
    expect((await wh(emu(), "DELETE", `/v1/captures/${id}`, { key: ws.webhooks.read })).status).toBe(204);
    expectError(await wh(emu(), "GET", `/v1/captures/${id}`, { key: ws.webhooks.read }), 404, "not_found", { reason: "capture", id });
  });
});
