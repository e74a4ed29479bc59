/**
 * Event types over HTTP: shape, scopes and shadowing, event_type_exists, exact-scope
 * read and delete, and every schema refusal (size bounds, unsafe patterns, remote
 * $ref, invalid draft 7) with its code and details.
 */
import { describe, expect, it } from "vitest";
import { control, useEmulator } from "../../support/emulator";
import { expectError, newWorkspace, wh } from "./endpoints-support";

const nest = (levels: number): unknown => {
  let s: unknown = { type: "string" };
  for (let i = 1; i < levels; i++) s = { not: s };
  return s;
};

describe("event types: CRUD and scopes", () => {
  const emu = useEmulator();

  it("create returns the documented shape with origin manual; GET reads exactly that scope", async () => {
    const ws = await newWorkspace(emu());
    const schema = { type: "object", required: ["id"] };
    const res = await wh(emu(), "POST", "/v1/event-types", { key: ws.webhooks.admin, body: { name: "order.created", description: "d", payload_schema: schema } });
    expect(res.status).toBe(201);
    expect(Object.keys(res.body).sort()).toEqual(["created_at", "description", "name", "origin", "payload_schema", "project_id"]);
    expect(res.body).toMatchObject({ name: "order.created", description: "d", project_id: null, payload_schema: schema, origin: "manual" });
    expect((await wh(emu(), "GET", "/v1/event-types/order.created", { key: ws.webhooks.read })).body).toEqual(res.body);
    // Not in the project's own scope.
    expectError(await wh(emu(), "GET", `/v1/event-types/order.created?project_id=${ws.project_id}`, { key: ws.webhooks.read }), 404, "not_found", { reason: "event_type", id: "order.created" });
  });

  it("a name is unique within its scope: 409 event_type_exists; the same name in a project is allowed", async () => {
    const ws = await newWorkspace(emu());
    expect((await wh(emu(), "POST", "/v1/event-types", { key: ws.webhooks.admin, body: { name: "a.b" } })).status).toBe(201);
    expectError(await wh(emu(), "POST", "/v1/event-types", { key: ws.webhooks.admin, body: { name: "a.b", description: "again" } }), 409, "conflict", { reason: "event_type_exists", event_type: "a.b" });
    const inProject = await wh(emu(), "POST", "/v1/event-types", { key: ws.webhooks.admin, body: { name: "a.b", project_id: ws.project_id } });
    expect(inProject.status).toBe(201);
    expect(inProject.body.project_id).toBe(ws.project_id);
    expectError(await wh(emu(), "POST", "/v1/event-types", { key: ws.webhooks.admin, body: { name: "a.b", project_id: ws.project_id } }), 409, "conflict", { reason: "event_type_exists", event_type: "a.b" });
  });

  it("a project's catalog lists its entries plus workspace-wide ones, the project's shadowing; other projects see only workspace-wide", async () => {
    const ws = await newWorkspace(emu());
    const p2 = await control<{ id: string }>(emu(), "POST", "/projects", { workspace_id: ws.workspace_id, name: "p2" });
    const create = (body: Record<string, unknown>) => wh(emu(), "POST", "/v1/event-types", { key: ws.webhooks.admin, body });
    await create({ name: "shared", description: "workspace" });
    await create({ name: "shared", description: "project", project_id: ws.project_id });
    await create({ name: "only.project", project_id: ws.project_id });
    await create({ name: "only.p2", project_id: p2.id });
    const list = await wh(emu(), "GET", `/v1/event-types?project_id=${ws.project_id}`, { key: ws.webhooks.read });
    expect(list.status).toBe(200);
    expect(list.body).toMatchObject({ total: 2, limit: 50, offset: 0 });
    expect(list.body.data.map((e: any) => [e.name, e.description, e.project_id])).toEqual([
      ["only.project", null, ws.project_id],
      ["shared", "project", ws.project_id],
    ]);
    const other = await wh(emu(), "GET", `/v1/event-types?project_id=${p2.id}`, { key: ws.webhooks.read });
    expect(other.body.data.map((e: any) => [e.name, e.project_id])).toEqual([["only.p2", p2.id], ["shared", null]]);
    const all = await wh(emu(), "GET", "/v1/event-types?limit=2&offset=1", { key: ws.webhooks.read });
    expect(all.body).toMatchObject({ total: 4, limit: 2, offset: 1 });
  });

  it("DELETE removes only the entry in exactly the named scope", async () => {
    const ws = await newWorkspace(emu());
    await wh(emu(), "POST", "/v1/event-types", { key: ws.webhooks.admin, body: { name: "x" } });
    await wh(emu(), "POST", "/v1/event-types", { key: ws.webhooks.admin, body: { name: "x", project_id: ws.project_id } });
    expect((await wh(emu(), "DELETE", `/v1/event-types/x?project_id=${ws.project_id}`, { key: ws.webhooks.admin })).status).toBe(204);
    expect((await wh(emu(), "GET", "/v1/event-types/x", { key: ws.webhooks.read })).status).toBe(200);
    expectError(await wh(emu(), "DELETE", `/v1/event-types/x?project_id=${ws.project_id}`, { key: ws.webhooks.admin }), 404, "not_found", { reason: "event_type", id: "x" });
    expect((await wh(emu(), "DELETE", "/v1/event-types/x", { key: ws.webhooks.admin })).status).toBe(204);
    expectError(await wh(emu(), "GET", "/v1/event-types/x", { key: ws.webhooks.read }), 404, "not_found", { reason: "event_type", id: "x" });
  });

  it("scopes: read keys cannot create; a project of another workspace is 404 project", async () => {
    const ws = await newWorkspace(emu());
    const other = await newWorkspace(emu());
    expectError(await wh(emu(), "POST", "/v1/event-types", { key: ws.webhooks.read, body: { name: "a" } }), 403, "forbidden", { reason: "scope", required: "admin" });
    expectError(await wh(emu(), "POST", "/v1/event-types", { key: ws.webhooks.admin, body: { name: "a", project_id: other.project_id } }), 404, "not_found", { reason: "project", id: other.project_id });
  });
});

describe("event types: schema refusals on save", () => {
  const emu = useEmulator();
  const save = async (payload_schema: unknown) => {
    const ws = await newWorkspace(emu());
    return wh(emu(), "POST", "/v1/event-types", { key: ws.webhooks.admin, body: { name: "t", payload_schema } });
  };

  it.each([
    ["bytes", { description: "x".repeat(65536) }, { reason: "bytes", limit: 65536, size: 65554 }],
    ["depth", nest(33), { reason: "depth", limit: 32 }],
    ["members", { properties: Object.fromEntries(Array.from({ length: 1000 }, (_, i) => [`p${i}`, true])) }, { reason: "members", limit: 1000 }],
    ["enum values", { enum: Array.from({ length: 501 }, (_, i) => i) }, { reason: "enum_values", limit: 500 }],
    ["patterns", { allOf: Array.from({ length: 101 }, () => ({ pattern: "^a$" })) }, { reason: "patterns", limit: 100 }],
  ])("%s over its bound: 422 schema_too_large", async (_n, schema, details) => {
    expectError(await save(schema), 422, "schema_too_large", details);
  });

  it.each([
    ["a".repeat(1001), { reason: "too_long", limit: 1000 }],
    ["[", { reason: "does_not_compile" }],
    ["(a*)*", { reason: "empty_repeat" }],
    ["(a+)+$", { reason: "nested_quantifier" }],
    ["(a|a)*$", { reason: "ambiguous_alternation" }],
    ["^\\d*\\d*$", { reason: "too_complex" }],
  ])("pattern /%s/: 422 schema_pattern_unsafe", async (pattern, details) => {
    expectError(await save({ properties: { s: { type: "string", pattern } } }), 422, "schema_pattern_unsafe", { ...details, pattern });
  });

  it("a remote $ref: 422 schema_ref_unsupported with the ref", async () => {
    expectError(await save({ properties: { a: { $ref: "https://schemas.example.com/a.json" } } }), 422, "schema_ref_unsupported", { ref: "https://schemas.example.com/a.json" });
  });

  it.each([
    [{ type: "text" }, "/type"],
    [{ properties: { a: { maxLength: "3" } } }, "/properties/a/maxLength"],
    [{ items: { $ref: "#/definitions/none" } }, "/items/$ref"],
  ])("invalid draft 7 %j: 422 invalid_payload reason schema_invalid with the pointer", async (schema, path) => {
    expectError(await save(schema), 422, "invalid_payload", { reason: "schema_invalid", path });
  });

  it("a payload_schema that is not an object is a validation_error", async () => {
    const res = await save("string");
    expect(res.status).toBe(422);
    expect(res.body.error.code).toBe("validation_error");
    expect(res.body.error.details.errors[0].loc).toEqual(["body", "payload_schema"]);
  });

  it("a valid schema with a safe pattern and local refs is saved", async () => {
    const res = await save({ definitions: { id: { type: "string", pattern: "^[a-z0-9]+(-[a-z0-9]+)*$" } }, type: "object", properties: { id: { $ref: "#/definitions/id" } } });
    expect(res.status).toBe(201);
  });
});

describe("event types: project-confined credentials", () => {
  const emu = useEmulator();

  it("a confined key registers and sets policy in its own project (named); with no project_id it reads its project, and a workspace-wide change is 403 project_confined", async () => {
    const ws = await newWorkspace(emu());
    const p2 = await control<{ id: string }>(emu(), "POST", "/projects", { workspace_id: ws.workspace_id, name: "p2" });
    const { key } = await control<{ key: string }>(emu(), "POST", "/keys", { product: "webhooks", scope: "admin", workspace_id: ws.workspace_id, project_id: p2.id });
    await wh(emu(), "POST", "/v1/event-types", { key: ws.webhooks.admin, body: { name: "wide" } });
    expectError(await wh(emu(), "POST", "/v1/event-types", { key, body: { name: "mine" } }), 403, "forbidden", { reason: "project_confined" });
    const created = await wh(emu(), "POST", "/v1/event-types", { key, body: { name: "mine", project_id: p2.id } });
    expect(created.body.project_id).toBe(p2.id);
    expect((await wh(emu(), "GET", "/v1/event-types/mine", { key })).status).toBe(200);
    expect((await wh(emu(), "GET", "/v1/event-types", { key })).body.data.map((e: any) => e.name)).toEqual(["mine", "wide"]);
    expectError(await wh(emu(), "PUT", "/v1/event-types/policy", { key, body: { policy: "strict" } }), 403, "forbidden", { reason: "project_confined" });
    const policy = await wh(emu(), "PUT", `/v1/event-types/policy?project_id=${p2.id}`, { key, body: { policy: "strict" } });
    expect(policy.body).toEqual({ policy: "strict", project_id: p2.id, inherited: false });
    expect((await wh(emu(), "GET", "/v1/event-types/policy", { key })).body).toEqual({ policy: "strict", project_id: p2.id, inherited: false });
    expect((await wh(emu(), "GET", "/v1/event-types/policy", { key: ws.webhooks.read })).body.policy).toBe("lenient");
    expectError(await wh(emu(), "GET", `/v1/event-types?project_id=${ws.project_id}`, { key }), 403, "forbidden", { reason: "project" });
  });
});

describe("a body that is not UTF-8", () => {
  const emu = useEmulator();

  it("is 422 validation_error with type json_invalid, and nothing is stored (never read as U+FFFD)", async () => {
    const ws = await newWorkspace(emu());
    const raw = Buffer.concat([Buffer.from('{"name":"caf'), Buffer.from([0xe9]), Buffer.from('"}')]);
    const res = await wh(emu(), "POST", "/v1/event-types", { key: ws.webhooks.admin, raw });
    expectError(res, 422, "validation_error", { errors: [{ loc: ["body", 0], type: "json_invalid", msg: "JSON decode error: the body is not valid UTF-8" }] });
    expect((await wh(emu(), "GET", "/v1/event-types", { key: ws.webhooks.read })).body.data).toEqual([]);
  });
});
