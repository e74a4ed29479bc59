/**
 * Ingest over HTTP: 404 for unknown or disabled sources, one uniform 401 for every
 * signature failure, 202 into the normal pipeline, idempotent provider retries,
 * event type resolution (provider, header, path, prefix, default, webhook.received),
 * strict and schema refusals as outcomes, and 402 quota_exceeded passing through.
 */
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { startEmulator } from "../../../emulator";
import { control, useEmulator } from "../../support/emulator";
import { createEndpoint, expectError, newWorkspace, wh } from "./endpoints-support";
import { createSource, ingest, ingestLatin1Signature, sign } from "./sources-support";

describe("ingest: authentication", () => {
  const emu = useEmulator();

  it("an unknown source and a disabled source are the same 404", async () => {
    const ws = await newWorkspace(emu());
    const s = await createSource(emu(), ws.webhooks.admin);
    await wh(emu(), "PATCH", `/v1/sources/${s.id}`, { key: ws.webhooks.admin, body: { status: "disabled" } });
    const disabled = expectError(await ingest(emu(), s.id, "{}", { secret: s.secret }), 404, "not_found", { reason: "source", id: s.id });
    const unknown = expectError(await ingest(emu(), "src_doesnotexist", "{}", { secret: s.secret }), 404, "not_found", { reason: "source", id: "src_doesnotexist" });
    expect(disabled.message.replace(s.id, "ID")).toBe(unknown.message.replace("src_doesnotexist", "ID"));
  });

  it("every signature failure is one uniform 401 unauthorized reason invalid", async () => {
    const ws = await newWorkspace(emu());
    const s = await createSource(emu(), ws.webhooks.admin);
    const body = '{"type":"a"}';
    const failures = [
      await ingest(emu(), s.id, body),
      await ingest(emu(), s.id, body, { signature: "garbage" }),
      await ingest(emu(), s.id, body, { signature: "sha1=" + "0".repeat(40) }),
      await ingest(emu(), s.id, body, { signature: "sha256=" + "0".repeat(63) }),
      await ingest(emu(), s.id, body, { secret: "wrong-secret" }),
      // A valid signature of other bytes: the body was altered in transit.
      await ingest(emu(), s.id, body + " ", { signature: sign(s.secret!, body) }),
    ];
    const latin1 = await ingestLatin1Signature(emu(), s.id, body);
    const messages = new Set<string>();
    for (const res of failures) messages.add(expectError(res, 401, "unauthorized", { reason: "invalid" }).message);
    expect(latin1.status).toBe(401);
    expect(latin1.body.error).toMatchObject({ code: "unauthorized", details: { reason: "invalid" } });
    messages.add(latin1.body.error.message);
    expect(messages.size).toBe(1);
  });

  it("needs no API key: a correct signature is 202, with or without a key header", async () => {
    const ws = await newWorkspace(emu());
    const s = await createSource(emu(), ws.webhooks.admin);
    const res = await ingest(emu(), s.id, '{"type":"ping"}', { secret: s.secret });
    expect(res.status).toBe(202);
    expect(res.body).toMatchObject({ outcome: "accepted", event_type: "ping", replayed: false });
  });
});

describe("ingest: publishing", () => {
  const emu = useEmulator();

  it("publishes into the source's project; the event carries the payload and fans out", async () => {
    const ws = await newWorkspace(emu());
    const ep = await createEndpoint(emu(), ws.webhooks.admin, { subscriptions: [{ event_type: "invoice.*" }] });
    const s = await createSource(emu(), ws.webhooks.admin, { provider: "payments", secret: "pay-secret" });
    const res = await ingest(emu(), s.id, JSON.stringify({ type: "invoice.paid", amount: 5 }), { secret: "pay-secret", id: "evt_1" });
    expect(res.status).toBe(202);
    const event = await wh(emu(), "GET", `/v1/events/${res.body.event_id}`, { key: ws.webhooks.read });
    expect(event.body).toMatchObject({ event_type: "invoice.paid", project_id: ws.project_id, payload: { type: "invoice.paid", amount: 5 }, deliveries: 1 });
    const deliveries = await wh(emu(), "GET", `/v1/deliveries?endpoint_id=${ep.id}`, { key: ws.webhooks.read });
    expect(deliveries.body.total).toBe(1);
    const entry = await wh(emu(), "GET", "/v1/event-types/invoice.paid", { key: ws.webhooks.read });
    expect(entry.body.origin).toBe("ingest");
  });

  it("a provider retry with the same X-Webhook-Id replays: one event, no second fan-out", async () => {
    const ws = await newWorkspace(emu());
    const ep = await createEndpoint(emu(), ws.webhooks.admin);
    const s = await createSource(emu(), ws.webhooks.admin);
    const body = JSON.stringify({ type: "order.created" });
    const first = await ingest(emu(), s.id, body, { secret: s.secret, id: "prov-42" });
    const retry = await ingest(emu(), s.id, body, { secret: s.secret, id: "prov-42" });
    expect(first.status).toBe(202);
    expect(retry.status).toBe(202);
    expect(retry.body).toMatchObject({ outcome: "accepted", event_id: first.body.event_id, replayed: true });
    const events = await wh(emu(), "GET", "/v1/events?event_type=order.created", { key: ws.webhooks.read });
    expect(events.body.total).toBe(1);
    expect((await wh(emu(), "GET", `/v1/deliveries?endpoint_id=${ep.id}`, { key: ws.webhooks.read })).body.total).toBe(1);
    // The same provider id at another source is another event.
    const s2 = await createSource(emu(), ws.webhooks.admin);
    const other = await ingest(emu(), s2.id, body, { secret: s2.secret, id: "prov-42" });
    expect(other.body.event_id).not.toBe(first.body.event_id);
  });

  it("a publisher's Idempotency-Key spelling an ingest key does not take the provider's event: both are published, each replays on its own", async () => {
    const ws = await newWorkspace(emu());
    const s = await createSource(emu(), ws.webhooks.admin);
    const key = `ingest:${s.id}:evt_1`;
    const published = await wh(emu(), "POST", "/v1/events", { key: ws.webhooks.publish, body: { event_type: "order.created", payload: { n: 1 } }, headers: { "idempotency-key": key } });
    expect(published.status).toBe(201);
    const body = JSON.stringify({ type: "order.created" });
    const ingested = await ingest(emu(), s.id, body, { secret: s.secret, id: "evt_1" });
    expect(ingested.status).toBe(202);
    expect(ingested.body).toMatchObject({ outcome: "accepted", replayed: false });
    expect(ingested.body.event_id).not.toBe(published.body.id);
    // Each namespace still replays its own: the provider's retry and the publisher's.
    expect((await ingest(emu(), s.id, body, { secret: s.secret, id: "evt_1" })).body).toMatchObject({ event_id: ingested.body.event_id, replayed: true });
    const again = await wh(emu(), "POST", "/v1/events", { key: ws.webhooks.publish, body: { event_type: "order.created", payload: { n: 1 } }, headers: { "idempotency-key": key } });
    expect(again.body.id).toBe(published.body.id);
    expect((await wh(emu(), "GET", "/v1/events?event_type=order.created", { key: ws.webhooks.read })).body.total).toBe(2);
  });

  it.each([
    ["provider (codehost header)", { provider: "codehost", secret: "gh" }, "{}", { "x-codehost-event": "push" }, "push"],
    ["provider (payments body type) with prefix", { provider: "payments", secret: "gh", event_type_prefix: "pay." }, '{"type":"charge.failed"}', {}, "pay.charge.failed"],
    ["header", { event_type_source: "header", event_type_key: "X-Event-Name" }, "{}", { "x-event-name": "custom.one" }, "custom.one"],
    ["path", { event_type_source: "path", event_type_key: "data.items.0.kind" }, '{"data":{"items":[{"kind":"deep.kind"}]}}', {}, "deep.kind"],
    ["default when unreadable", { event_type_source: "path", event_type_key: "missing", default_event_type: "fallback.type", event_type_prefix: "p." }, "{}", {}, "fallback.type"],
    ["webhook.received without a default", { event_type_source: "header", event_type_key: "X-None" }, "not json", {}, "webhook.received"],
  ])("event type from %s", async (_name, sourceBody, body, headers, expected) => {
    const ws = await newWorkspace(emu());
    const s = await createSource(emu(), ws.webhooks.admin, sourceBody);
    const secret = (sourceBody as { secret?: string }).secret ?? s.secret!;
    const res = await ingest(emu(), s.id, body, { secret, headers });
    expect(res.status).toBe(202);
    expect(res.body.event_type).toBe(expected);
  });

  it("webhook.received appears in the catalog (origin ingest) and passes even under strict; a non-JSON body is wrapped", async () => {
    const ws = await newWorkspace(emu());
    await wh(emu(), "PUT", "/v1/event-types/policy", { key: ws.webhooks.admin, body: { policy: "strict" } });
    const s = await createSource(emu(), ws.webhooks.admin);
    const res = await ingest(emu(), s.id, "a=1&b=2", { secret: s.secret, headers: { "content-type": "application/x-www-form-urlencoded" } });
    expect(res.body).toMatchObject({ outcome: "accepted", event_type: "webhook.received" });
    const entry = await wh(emu(), "GET", "/v1/event-types/webhook.received", { key: ws.webhooks.read });
    expect(entry.body).toMatchObject({ name: "webhook.received", origin: "ingest", project_id: null });
    const event = await wh(emu(), "GET", `/v1/events/${res.body.event_id}`, { key: ws.webhooks.read });
    expect(event.body.payload).toEqual({ body_base64: Buffer.from("a=1&b=2").toString("base64"), content_type: "application/x-www-form-urlencoded" });
  });

  it("strict refusal and schema mismatch are 202 with their outcome; nothing is published", async () => {
    const ws = await newWorkspace(emu());
    const s = await createSource(emu(), ws.webhooks.admin);
    await wh(emu(), "POST", "/v1/event-types", { key: ws.webhooks.admin, body: { name: "typed", payload_schema: { required: ["id"] } } });
    const bad = await ingest(emu(), s.id, '{"type":"typed"}', { secret: s.secret });
    expect(bad.status).toBe(202);
    expect(bad.body).toMatchObject({ outcome: "invalid_payload", event_type: "typed", event_id: null });
    await wh(emu(), "PUT", "/v1/event-types/policy", { key: ws.webhooks.admin, body: { policy: "strict" } });
    const unknown = await ingest(emu(), s.id, '{"type":"never.registered"}', { secret: s.secret });
    expect(unknown.status).toBe(202);
    expect(unknown.body).toMatchObject({ outcome: "unknown_event_type", event_id: null });
    expect((await wh(emu(), "GET", "/v1/events", { key: ws.webhooks.read })).body.total).toBe(0);
  });

  it("402 quota_exceeded from publish passes through to the provider", async () => {
    const ws = await newWorkspace(emu());
    await createEndpoint(emu(), ws.webhooks.admin);
    await control(emu(), "POST", "/webhooks/usage", { workspace_id: ws.workspace_id, deliveries: 10_000 });
    const s = await createSource(emu(), ws.webhooks.admin);
    const res = await ingest(emu(), s.id, '{"type":"a"}', { secret: s.secret });
    const error = expectError(res, 402, "quota_exceeded", expect.objectContaining({ reason: "period", metric: "deliveries", limit: 10_000 }) as any);
    expect(error.details.current).toBe(10_000);
  });
});

describe("ingest: bodies and the control plane", () => {
  const emu = useEmulator();

  it("accepts any content type, none at all, and an empty body", async () => {
    const ws = await newWorkspace(emu());
    const s = await createSource(emu(), ws.webhooks.admin, { default_event_type: "raw.in" });
    const noType = await fetch(`${emu().url}/webhooks/v1/ingest/${s.id}`, { method: "POST", body: new Uint8Array(Buffer.from('{"type":"t.none"}')), headers: { "x-webhook-signature": sign(s.secret!, '{"type":"t.none"}') } });
    expect(noType.status).toBe(202);
    expect(((await noType.json()) as { event_type: string }).event_type).toBe("t.none");
    const xml = await ingest(emu(), s.id, "<a/>", { secret: s.secret, headers: { "content-type": "application/xml" } });
    expect(xml.body).toMatchObject({ outcome: "accepted", event_type: "raw.in" });
    const empty = await ingest(emu(), s.id, "", { secret: s.secret });
    expect(empty.status).toBe(202);
  });

  it("POST /_emulator/webhooks/sources/{id}/sign gives the header value the source accepts", async () => {
    const ws = await newWorkspace(emu());
    const s = await createSource(emu(), ws.webhooks.admin, { provider: "codehost", secret: "gh-secret" });
    const body = '{"zen":"ok"}';
    const signed = await control<{ header: string; signature: string }>(emu(), "POST", `/webhooks/sources/${s.id}/sign`, { body });
    expect(signed).toEqual({ header: "X-Webhook-Signature", signature: sign("gh-secret", body) });
    expect((await ingest(emu(), s.id, body, { signature: signed.signature, headers: { "x-codehost-event": "ping" } })).status).toBe(202);
    const secret = await control(emu(), "GET", `/webhooks/sources/${s.id}/secret`);
    expect(secret).toEqual({ secret: "gh-secret", previous_secret: null, previous_secret_expires_at: null });
  });
});

describe("ingest: limits and billing state", () => {
  const emu = useEmulator({ bodyLimit: 1024 });

  it("a body over the limit is 413 payload_too_large with the limit", async () => {
    const ws = await newWorkspace(emu());
    const s = await createSource(emu(), ws.webhooks.admin);
    const body = JSON.stringify({ type: "big", pad: "x".repeat(2000) });
    expectError(await ingest(emu(), s.id, body, { secret: s.secret }), 413, "payload_too_large", { limit: 1024 });
  });

  it("a frozen workspace's source answers 402 workspace_frozen, captured as that outcome", async () => {
    const ws = await newWorkspace(emu());
    const s = await createSource(emu(), ws.webhooks.admin, { capture_enabled: true });
    await control(emu(), "PATCH", `/workspaces/${ws.workspace_id}`, { frozen: true });
    expectError(await ingest(emu(), s.id, '{"type":"a"}', { secret: s.secret }), 402, "workspace_frozen", undefined);
    const captures = await wh(emu(), "GET", `/v1/captures?source_id=${s.id}`, { key: ws.webhooks.read });
    expect(captures.body.data.map((c: any) => c.outcome)).toEqual(["workspace_frozen"]);
  });
});

describe("ingest: unreadable types", () => {
  const emu = useEmulator();

  it.each([
    ["a number", '{"type": 42}'],
    ["an empty string", '{"type": ""}'],
    ["over 255 characters with the prefix", JSON.stringify({ type: "t".repeat(250) })],
  ])("a type that is %s falls back to the default", async (_name, body) => {
    const ws = await newWorkspace(emu());
    const s = await createSource(emu(), ws.webhooks.admin, { event_type_prefix: "prefix.", default_event_type: "fallback" });
    const res = await ingest(emu(), s.id, body, { secret: s.secret });
    expect(res.body).toMatchObject({ outcome: "accepted", event_type: "fallback" });
  });
});

describe("a state file from an emulator that kept ingest keys among publishers' (0.1.0)", () => {
  it("is read with those keys as ingest's: the provider's retry replays, a publisher's same-spelled key publishes", async () => {
    const stateFile = join(mkdtempSync(join(tmpdir(), "svc-ingest-keys-")), "state.json");
    const first = await startEmulator({ port: 0, stateFile });
    const keys = first.keys.webhooks;
    const s = await createSource(first, keys.admin);
    const body = JSON.stringify({ type: "order.created" });
    const original = await ingest(first, s.id, body, { secret: s.secret, id: "evt_1" });
    expect(original.status).toBe(202);
    await first.close();
    // As 0.1.0's emulator wrote it: the ingest key in the publishers' `<workspace>:<key>` form.
    const saved = JSON.parse(readFileSync(stateFile, "utf8"));
    const idempotency = saved.products["webhooks.events"].idempotency as Record<string, unknown>;
    for (const slot of Object.keys(idempotency)) {
      idempotency[slot.replace("\n", ":")] = idempotency[slot];
      if (slot.includes("\n")) delete idempotency[slot];
    }
    writeFileSync(stateFile, JSON.stringify(saved));
    const second = await startEmulator({ port: 0, stateFile });
    try {
      expect((await ingest(second, s.id, body, { secret: s.secret, id: "evt_1" })).body).toMatchObject({ event_id: original.body.event_id, replayed: true });
      const published = await wh(second, "POST", "/v1/events", { key: keys.publish, body: { event_type: "order.created", payload: {} }, headers: { "idempotency-key": `ingest:${s.id}:evt_1` } });
      expect(published.status).toBe(201);
      expect((await wh(second, "GET", "/v1/events?event_type=order.created", { key: keys.read })).body.total).toBe(2);
    } finally {
      await second.close();
    }
  });
});
