/**
 * The EventType resource against the emulator over HTTP: create in both scopes,
 * read, replace on every change (delete first when the name is kept), delete,
 * refresh after out-of-band change and delete, adoption with adoptExisting, every
 * schema refusal at preview with the API's reason names, and the catalog listing
 * made at most once per scope per process.
 */
import { afterAll, beforeEach, describe, expect, it } from "vitest";
import { closeSharedDispatcher, providers } from "../../provider";
import { newOperation } from "../support/operation";
import { UNKNOWN } from "../../provider/engine/unknown";
import { useEmulator } from "../support/emulator";
import { configure, Driver, useWorkspace, type Props, type Workspace } from "./support";

const provider = providers["webhooks:EventType"]!;
const emu = useEmulator();
const d = () => new Driver(emu(), provider);
afterAll(() => closeSharedDispatcher());

const SCHEMA = { type: "object", required: ["id"], properties: { id: { type: "string" }, total: { type: "number" } } };
const SAME_SCHEMA_REORDERED = { properties: { total: { type: "number" }, id: { type: "string" } }, required: ["id"], type: "object" };

let ws: Workspace;
beforeEach(async () => {
  newOperation();
  ws = await useWorkspace(emu(), provider);
});

async function diffOf(id: string, outs: Props, news: Props) {
  return provider.diff!(id, outs, (await d().check(news, outs)).inputs);
}

describe("EventType: lifecycle", () => {
  it("create workspace-wide and in a project: one POST each; ids carry the scope", async () => {
    const a = await d().calls(() => d().create({ name: "order.created", description: "an order", payloadSchema: SCHEMA }));
    expect(a.writes).toEqual(["POST /v1/event-types"]);
    expect(a.result.id).toBe("workspace/order.created");
    expect(a.result.outs).toMatchObject({ name: "order.created", projectId: null, description: "an order", payloadSchema: SCHEMA, origin: "manual", adoptExisting: false });
    const b = await d().create({ name: "order.created", projectId: ws.project_id });
    expect(b.id).toBe(`project/${ws.project_id}/order.created`);
    expect(b.outs.projectId).toBe(ws.project_id);
    for (const [k, v] of Object.entries(b.outs)) expect(v, k).not.toBeUndefined();
  });

  it("read gives the same outputs; a schema with another key order is no change", async () => {
    const declared = { name: "a.b", payloadSchema: SCHEMA };
    const { id, outs } = await d().create(declared);
    const read = await provider.read!(id, outs);
    expect(read).toMatchObject({ id, props: outs });
    expect(await diffOf(id, read.props!, { name: "a.b", payloadSchema: SAME_SCHEMA_REORDERED })).toMatchObject({ changes: false });
    expect(await diffOf(id, read.props!, { name: "a.b", payloadSchema: SCHEMA, adoptExisting: true })).toMatchObject({ changes: true, replaces: [] });
  });

  it("adoptExisting under a profile: the adopted event type keeps the profile, and the next diff shows no change (adv14c F1: every up replaced it)", async () => {
    await configure(provider, { "svc:webhooksUrl": emu().webhooksUrl, "svc:webhooksApiKey": ws.webhooks.admin, "svc:profiles": JSON.stringify({ whA: { webhooksUrl: emu().webhooksUrl, webhooksApiKey: ws.webhooks.admin } }) });
    await d().create({ name: "adopted.under.profile" });
    newOperation();
    const declared = { name: "adopted.under.profile", adoptExisting: true, profile: "whA" };
    const { id, outs } = await d().create(declared);
    expect(outs.profile).toBe("whA");
    newOperation();
    expect(await diffOf(id, outs, declared)).toMatchObject({ changes: false });
  });

  it("a schema member whose value is null, which Go and YAML programs drop before the provider sees it, is no change (an import previews clean); a schema as JSON text is refused naming what it must be", async () => {
    const withNulls = { type: "object", properties: { note: { type: "string", default: null } }, required: ["note"] };
    const { id, outs } = await d().create({ name: "null.member", payloadSchema: withNulls });
    const read = await provider.read!(id, outs);
    expect(read.props!.payloadSchema).toEqual(withNulls);
    expect(await diffOf(id, read.props!, { name: "null.member", payloadSchema: { type: "object", properties: { note: { type: "string" } }, required: ["note"] } })).toMatchObject({ changes: false });
    expect(await diffOf(id, read.props!, { name: "null.member", payloadSchema: { type: "object", properties: { note: { type: "number" } }, required: ["note"] } })).toMatchObject({ replaces: ["payloadSchema"] });
    const asText = await d().check({ name: "text.schema", payloadSchema: JSON.stringify(SCHEMA) });
    expect(asText.failures).toEqual([{ property: "payloadSchema", reason: expect.stringMatching(/^must be a JSON Schema as an object \(a dict, a map\), not JSON text or another value/) }]);
  });

  it.each([
    { what: "description", change: { description: "new" }, replaces: ["description"], dbr: true },
    { what: "schema", change: { payloadSchema: { type: "object" } }, replaces: ["payloadSchema"], dbr: true },
    { what: "schema removed", change: { payloadSchema: undefined }, replaces: ["payloadSchema"], dbr: true },
    { what: "name", change: { name: "a.c" }, replaces: ["name"], dbr: false },
    { what: "scope", change: { projectId: "__project__" }, replaces: ["projectId"], dbr: false },
  ])("a $what change replaces (delete first: $dbr)", async ({ change, replaces, dbr }) => {
    const declared = { name: "a.b", description: "old", payloadSchema: SCHEMA };
    const { id, outs } = await d().create(declared);
    const next = { ...declared, ...change } as Props;
    if (next.projectId === "__project__") next.projectId = ws.project_id;
    expect(await diffOf(id, outs, next)).toEqual({ changes: true, diffs: replaces, replaces, deleteBeforeReplace: dbr });
  });

  it("delete removes exactly that scope; again is already gone", async () => {
    await d().create({ name: "x.y" });
    const { id, outs } = await d().create({ name: "x.y", projectId: ws.project_id });
    const { calls } = await d().calls(() => provider.delete!(id, outs));
    expect(calls).toEqual(["DELETE /v1/event-types/x.y"]);
    await expect(provider.delete!(id, outs)).resolves.toBeUndefined();
    const left = await d().raw("GET", "/v1/event-types", ws.webhooks.admin);
    expect(left.body.data.map((e: Props) => [e.name, e.project_id])).toEqual([["x.y", null]]);
  });

  it("refresh after an out-of-band change shows the drift; after an out-of-band delete drops it", async () => {
    const { id, outs } = await d().create({ name: "r.s", description: "mine", payloadSchema: SCHEMA });
    await d().raw("DELETE", "/v1/event-types/r.s", ws.webhooks.admin);
    await d().raw("POST", "/v1/event-types", ws.webhooks.admin, { name: "r.s", description: "theirs", payload_schema: { type: "object" } });
    const read = await provider.read!(id, outs);
    expect(read.inputs).toMatchObject({ name: "r.s", description: "theirs", payloadSchema: { type: "object" } });
    // The next up replaces it, deleting first.
    expect(await diffOf(id, read.props!, { name: "r.s", description: "mine", payloadSchema: SCHEMA })).toMatchObject({ replaces: ["description", "payloadSchema"], deleteBeforeReplace: true });
    await d().raw("DELETE", "/v1/event-types/r.s", ws.webhooks.admin);
    expect(await provider.read!(id, outs)).toEqual({});
  });

  it("Resource.get-style read with no state", async () => {
    await d().create({ name: "g.h", projectId: ws.project_id, description: "x" });
    const read = await provider.read!(`project/${ws.project_id}/g.h`, {});
    expect(read.props).toMatchObject({ name: "g.h", projectId: ws.project_id, description: "x" });
  });
});

describe("EventType: an existing name at preview, and adoption", () => {
  it("preview fails on a name registered in that exact scope, naming 409 event_type_exists and adoptExisting", async () => {
    await d().raw("POST", "/v1/event-types", ws.webhooks.admin, { name: "taken", description: "by hand" });
    const checked = await d().check({ name: "taken" });
    expect(checked.failures).toEqual([{ property: "name", reason: expect.stringMatching(/already registered workspace-wide \(409 conflict, event_type_exists\).*adoptExisting: true/) }]);
    // Another scope is no clash (a project entry shadows the workspace-wide one).
    expect((await d().check({ name: "taken", projectId: ws.project_id })).failures).toEqual([]);
    // The resource's own entry is no clash.
    expect((await d().check({ name: "taken", description: "x" }, { name: "taken" })).failures).toEqual([]);
  });

  it("two EventTypes of one name in one scope fail the preview, naming the other; other scopes and a replacement's second check do not", async () => {
    expect((await d().check({ name: "twin", resourceName: "first" })).failures).toEqual([]);
    const { failures } = await d().check({ name: "twin", description: "again", resourceName: "second" });
    expect(failures).toEqual([{ property: "name", reason: expect.stringMatching(/EventType "first" of this program also declares event type "twin" workspace-wide/) }]);
    // Adopting does not let two resources hold one entry either.
    expect((await d().check({ name: "twin", adoptExisting: true, resourceName: "third" })).failures).toEqual([{ property: "name", reason: expect.stringMatching(/EventType "first"/) }]);
    // The same resource checked again (the engine's second Check of a replacement) and another scope are no clash.
    expect((await d().check({ name: "twin", resourceName: "first" })).failures).toEqual([]);
    expect((await d().check({ name: "twin", projectId: ws.project_id, resourceName: "in-project" })).failures).toEqual([]);
  });

  it("preview of N event types makes at most one catalog listing per scope", async () => {
    const { calls } = await d().calls(async () => {
      for (let i = 0; i < 10; i++) await d().check({ name: `t.${i}` });
      for (let i = 0; i < 10; i++) await d().check({ name: `t.${i}`, projectId: ws.project_id });
    });
    // Plus one auth/me: is the key confined to a project (which cannot register workspace-wide types)?
    expect(calls).toEqual(["GET /v1/event-types", "GET /v1/event-types"]);
  });

  it("the create's own 409 (a name registered after the preview) says how to adopt", async () => {
    await d().raw("POST", "/v1/event-types", ws.webhooks.admin, { name: "late" });
    const err = await provider.create({ name: "late" }).catch((e) => e);
    expect(err).toMatchObject({ status: 409, code: "conflict", reason: "event_type_exists" });
    expect(err.message).toMatch(/adoptExisting: true/);
  });

  it("adoptExisting with the same description and schema: one read, no write", async () => {
    await d().raw("POST", "/v1/event-types", ws.webhooks.admin, { name: "adopt.same", description: "d", payload_schema: SAME_SCHEMA_REORDERED });
    const checked = await d().check({ name: "adopt.same", description: "d", payloadSchema: SCHEMA, adoptExisting: true });
    expect(checked.failures).toEqual([]);
    const { calls, result } = await d().calls(() => provider.create(checked.inputs));
    expect(calls).toEqual(["GET /v1/event-types/adopt.same"]);
    expect(result.id).toBe("workspace/adopt.same");
  });

  it("adoptExisting with another schema: read, DELETE, POST", async () => {
    await d().raw("POST", "/v1/event-types", ws.webhooks.admin, { name: "adopt.diff", project_id: ws.project_id, payload_schema: { type: "object" } });
    const { calls, result } = await d().calls(() => d().create({ name: "adopt.diff", projectId: ws.project_id, payloadSchema: SCHEMA, adoptExisting: true }));
    // The preview's GET /v1/auth/me (is the key confined to another project than the one named?) is counted apart: test/provider/reach.test.ts.
    expect(calls).toEqual(["GET /v1/event-types/adopt.diff", "DELETE /v1/event-types/adopt.diff", "POST /v1/event-types"]);
    expect(result.outs.payloadSchema).toEqual(SCHEMA);
  });

  it("adoptExisting with nothing to adopt creates", async () => {
    const { calls } = await d().calls(() => d().create({ name: "adopt.none", adoptExisting: true }));
    expect(calls).toEqual(["GET /v1/event-types/adopt.none", "POST /v1/event-types"]);
  });
});

describe("EventType: schema refusals at preview, with the API's reason names", () => {
  const deep = (n: number): Props => (n === 0 ? { type: "string" } : { type: "object", properties: { a: deep(n - 1) } });
  it.each([
    { what: "not draft 7", schema: { type: "nonsense" }, re: /invalid_payload, reason "schema_invalid"/, property: "payloadSchema.type" },
    { what: "another $schema", schema: { $schema: "https://json-schema.org/draft/2020-12/schema" }, re: /invalid_payload, reason "schema_invalid"/, property: "payloadSchema.$schema" },
    { what: "remote $ref", schema: { $ref: "https://example.com/s.json" }, re: /schema_ref_unsupported, ref "https:\/\/example.com\/s.json"/, property: "payloadSchema" },
    { what: "too many bytes", schema: { description: "x".repeat(70_000) }, re: /schema_too_large, reason "bytes", limit 65536/, property: "payloadSchema" },
    { what: "too deep", schema: deep(20), re: /schema_too_large, reason "depth", limit 32/, property: "payloadSchema" },
    { what: "too many members", schema: { properties: Object.fromEntries(Array.from({ length: 1001 }, (_, i) => [`p${i}`, true])) }, re: /schema_too_large, reason "members", limit 1000/, property: "payloadSchema" },
    { what: "too many enum values", schema: { enum: Array.from({ length: 501 }, (_, i) => i) }, re: /schema_too_large, reason "enum_values", limit 500/, property: "payloadSchema" },
    { what: "too many patterns", schema: { properties: Object.fromEntries(Array.from({ length: 101 }, (_, i) => [`p${i}`, { pattern: `^a${i}$` }])) }, re: /schema_too_large, reason "patterns", limit 100/, property: "payloadSchema" },
    { what: "pattern too long", schema: { pattern: "a".repeat(1001) }, re: /schema_pattern_unsafe, reason "too_long", limit 1000/, property: "payloadSchema.pattern" },
    { what: "pattern does not compile", schema: { pattern: "(" }, re: /schema_pattern_unsafe, reason "does_not_compile"/, property: "payloadSchema.pattern" },
    { what: "nested quantifier", schema: { pattern: "^(a+)+$" }, re: /schema_pattern_unsafe, reason "nested_quantifier"/, property: "payloadSchema.pattern" },
    { what: "unsafe pattern deep inside", schema: { type: "object", properties: { a: { type: "object", properties: { b: { type: "string", pattern: "^(a+)+$" } } } } }, re: /schema_pattern_unsafe, reason "nested_quantifier"/, property: "payloadSchema.properties.a.properties.b.pattern" },
    { what: "unsafe patternProperties key", schema: { type: "object", patternProperties: { "^(a+)+$": { type: "string" } } }, re: /schema_pattern_unsafe, reason "nested_quantifier"/, property: 'payloadSchema.patternProperties["^(a+)+$"]' },
    { what: "empty repeat", schema: { pattern: "(a*)*" }, re: /schema_pattern_unsafe, reason "empty_repeat"/, property: "payloadSchema.pattern" },
  ])("$what", async ({ schema, re, property }) => {
    const { result, calls } = await d().calls(() => d().check({ name: "bad.schema", payloadSchema: schema }));
    expect(result.failures).toEqual([{ property, reason: expect.stringMatching(re) }]);
    expect(calls).toEqual([]); // judged locally: no listing for a refused resource
    // The service agrees: the same schema is refused with that code.
    const res = await d().raw("POST", "/v1/event-types", ws.webhooks.admin, { name: "bad.schema", payload_schema: schema });
    expect(res.status).toBe(422);
    expect(re.source).toContain(res.body.error.code);
  });

  it("a schema with a value not known yet is not judged there", async () => {
    const checked = await d().check({ name: "u.v", payloadSchema: { type: UNKNOWN, properties: { a: { pattern: UNKNOWN } } } });
    expect(checked.failures).toEqual([]);
    expect((await d().check({ name: "u.v", payloadSchema: UNKNOWN })).failures).toEqual([]);
  });

  it("a schema refused by the service anyway is explained with the property", async () => {
    const err = await provider.create({ name: "srv.bad", payloadSchema: { type: "nonsense" } }).catch((e) => e);
    expect(err).toMatchObject({ status: 422, code: "invalid_payload" });
    expect(err.message).toMatch(/payloadSchema at payloadSchema\/type.*schema_invalid/);
  });

  it("a read-only key names the scope needed", async () => {
    await configure(provider, { "svc:webhooksUrl": emu().webhooksUrl, "svc:webhooksApiKey": ws.webhooks.read });
    const err = await provider.create({ name: "ro.x" }).catch((e) => e);
    expect(err.message).toMatch(/needs the admin scope/);
  });
});
