/**
 * The event type policy and publish checks over HTTP: policy reads and overrides,
 * lenient registration (origin lenient), strict refusal, payload validation against
 * the registered schema (with shadowing), through POST /v1/events.
 */
import { describe, expect, it } from "vitest";
import { control, useEmulator } from "../../support/emulator";
import { expectError, newWorkspace, publish, wh } from "./endpoints-support";

describe("event type policy", () => {
  const emu = useEmulator();

  it("defaults to lenient; a project inherits until it has an override; a project-level set leaves the workspace value", async () => {
    const ws = await newWorkspace(emu());
    const get = (q = "") => wh(emu(), "GET", `/v1/event-types/policy${q}`, { key: ws.webhooks.read });
    expect((await get()).body).toEqual({ policy: "lenient", project_id: null, inherited: false });
    expect((await get(`?project_id=${ws.project_id}`)).body).toEqual({ policy: "lenient", project_id: ws.project_id, inherited: true });

    const put = await wh(emu(), "PUT", `/v1/event-types/policy?project_id=${ws.project_id}`, { key: ws.webhooks.admin, body: { policy: "strict" } });
    expect(put.status).toBe(200);
    expect(put.body).toEqual({ policy: "strict", project_id: ws.project_id, inherited: false });
    expect((await get()).body).toEqual({ policy: "lenient", project_id: null, inherited: false });

    await wh(emu(), "PUT", "/v1/event-types/policy", { key: ws.webhooks.admin, body: { policy: "strict" } });
    const p2 = await control<{ id: string }>(emu(), "POST", "/projects", { workspace_id: ws.workspace_id, name: "p2" });
    expect((await get(`?project_id=${p2.id}`)).body).toEqual({ policy: "strict", project_id: p2.id, inherited: true });
    expect((await wh(emu(), "GET", "/v1/workspace", { key: ws.webhooks.read })).body.event_type_policy).toBe("strict");
  });

  it("rejects an unknown policy value and a read key", async () => {
    const ws = await newWorkspace(emu());
    const bad = await wh(emu(), "PUT", "/v1/event-types/policy", { key: ws.webhooks.admin, body: { policy: "loose" } });
    expect(bad.status).toBe(422);
    expect(bad.body.error.details.errors[0]).toMatchObject({ loc: ["body", "policy"], type: "enum" });
    expectError(await wh(emu(), "PUT", "/v1/event-types/policy", { key: ws.webhooks.read, body: { policy: "strict" } }), 403, "forbidden", { reason: "scope", required: "admin" });
  });
});

describe("publish checks (checkPublish through POST /v1/events)", () => {
  const emu = useEmulator();

  it("lenient: an unregistered type is accepted and added to the catalog with origin lenient", async () => {
    const ws = await newWorkspace(emu());
    expect((await publish(emu(), ws.webhooks.publish, { event_type: "new.thing" })).status).toBe(201);
    const entry = await wh(emu(), "GET", "/v1/event-types/new.thing", { key: ws.webhooks.read });
    expect(entry.body).toMatchObject({ name: "new.thing", origin: "lenient", project_id: null, payload_schema: null });
    // Registering it manually now clashes.
    expectError(await wh(emu(), "POST", "/v1/event-types", { key: ws.webhooks.admin, body: { name: "new.thing" } }), 409, "conflict", { reason: "event_type_exists", event_type: "new.thing" });
  });

  it("strict: an unregistered type is 422 unknown_event_type; a registered one is accepted; a project override applies", async () => {
    const ws = await newWorkspace(emu());
    await wh(emu(), "PUT", `/v1/event-types/policy?project_id=${ws.project_id}`, { key: ws.webhooks.admin, body: { policy: "strict" } });
    expectError(await publish(emu(), ws.webhooks.publish, { event_type: "not.registered" }), 422, "unknown_event_type", { event_type: "not.registered" });
    expect((await wh(emu(), "GET", "/v1/event-types/not.registered", { key: ws.webhooks.read })).status).toBe(404);
    await wh(emu(), "POST", "/v1/event-types", { key: ws.webhooks.admin, body: { name: "registered" } });
    expect((await publish(emu(), ws.webhooks.publish, { event_type: "registered" })).status).toBe(201);
    // Another project inherits lenient.
    const p2 = await control<{ id: string }>(emu(), "POST", "/projects", { workspace_id: ws.workspace_id, name: "p2" });
    expect((await publish(emu(), ws.webhooks.publish, { event_type: "not.registered", project_id: p2.id })).status).toBe(201);
  });

  it("a registered schema is enforced: 422 invalid_payload reason payload with entries and total", async () => {
    const ws = await newWorkspace(emu());
    const schema = { type: "object", required: ["id", "amount"], additionalProperties: false, properties: { id: { type: "string" }, amount: { type: "integer", minimum: 1 } } };
    await wh(emu(), "POST", "/v1/event-types", { key: ws.webhooks.admin, body: { name: "order.paid", payload_schema: schema } });
    expectError(await publish(emu(), ws.webhooks.publish, { event_type: "order.paid", payload: { amount: 0, extra: true } }), 422, "invalid_payload", {
      reason: "payload",
      errors: [
        { path: "", keyword: "required", params: { property: "id" } },
        { path: "", keyword: "additionalProperties", params: { property: "extra" } },
        { path: "/amount", keyword: "minimum", params: { limit: 1 } },
      ],
      total: 3,
    });
    expect((await publish(emu(), ws.webhooks.publish, { event_type: "order.paid", payload: { id: "o1", amount: 5 } })).status).toBe(201);
  });

  it("entries are cut at 20 with the total before the cut", async () => {
    const ws = await newWorkspace(emu());
    await wh(emu(), "POST", "/v1/event-types", { key: ws.webhooks.admin, body: { name: "closed", payload_schema: { type: "object", additionalProperties: false } } });
    const payload = Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`k${i}`, i]));
    const res = await publish(emu(), ws.webhooks.publish, { event_type: "closed", payload });
    const error = expectError(res, 422, "invalid_payload", expect.objectContaining({ reason: "payload", total: 30 }) as any);
    expect(error.details.errors).toHaveLength(20);
  });

  it("the project's entry shadows the workspace's schema in that project only", async () => {
    const ws = await newWorkspace(emu());
    const p2 = await control<{ id: string }>(emu(), "POST", "/projects", { workspace_id: ws.workspace_id, name: "p2" });
    await wh(emu(), "POST", "/v1/event-types", { key: ws.webhooks.admin, body: { name: "s", payload_schema: { required: ["a"] } } });
    await wh(emu(), "POST", "/v1/event-types", { key: ws.webhooks.admin, body: { name: "s", project_id: ws.project_id, payload_schema: { required: ["b"] } } });
    expect((await publish(emu(), ws.webhooks.publish, { event_type: "s", payload: { b: 1 } })).status).toBe(201);
    expectError(await publish(emu(), ws.webhooks.publish, { event_type: "s", payload: { a: 1 } }), 422, "invalid_payload", {
      reason: "payload", errors: [{ path: "", keyword: "required", params: { property: "b" } }], total: 1,
    });
    expect((await publish(emu(), ws.webhooks.publish, { event_type: "s", payload: { a: 1 }, project_id: p2.id })).status).toBe(201);
  });
});
