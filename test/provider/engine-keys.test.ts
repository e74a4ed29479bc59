/**
 * Engine additions as tables: unique keys of several fields (delete-before-replace
 * only when the replacement keeps the whole key), a field's own equality, and an
 * action field that is also sent on create (its body for a value and for none).
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { canonicalJson } from "../../rules/event-schema";
import { diffFields, fieldEqual } from "../../provider/engine/diff";
import type { ResourceDefinition } from "../../provider/engine/fields";
import { planUpdate } from "../../provider/engine/plan";
import { UNKNOWN } from "../../provider/engine/unknown";
import { eventTypeDefinition } from "../../provider/webhooks/event-type";
import { sourceDefinition } from "../../provider/webhooks/source";

const scoped: ResourceDefinition = {
  kind: "webhooks:EventType",
  product: "webhooks",
  noun: "entry",
  paths: { create: "/v1/entries", item: (id) => `/v1/entries/${id}` },
  adoptHint: "adopt it",
  fields: {
    name: { mode: "createOnly", api: "name", input: z.string(), uniqueName: true },
    scope: { mode: "createOnly", api: "scope", input: z.string(), uniqueName: true },
    body: { mode: "createOnly", api: "body", input: z.record(z.string(), z.unknown()), equal: (a, b) => canonicalJson(a) === canonicalJson(b) },
    note: { mode: "local", input: z.string() },
  },
};

describe("unique keys and delete-before-replace", () => {
  const olds = { name: "a", scope: "s1", body: { x: 1, y: [1, 2] }, note: "n" };
  it.each([
    { what: "nothing", news: olds, changed: [], replaces: [], dbr: false },
    { what: "body key order", news: { ...olds, body: { y: [1, 2], x: 1 } }, changed: [], replaces: [], dbr: false },
    { what: "body array order", news: { ...olds, body: { x: 1, y: [2, 1] } }, changed: ["body"], replaces: ["body"], dbr: true },
    { what: "body, key kept", news: { ...olds, body: { x: 2 } }, changed: ["body"], replaces: ["body"], dbr: true },
    { what: "name", news: { ...olds, name: "b" }, changed: ["name"], replaces: ["name"], dbr: false },
    { what: "scope", news: { ...olds, scope: "s2" }, changed: ["scope"], replaces: ["scope"], dbr: false },
    { what: "scope and body", news: { ...olds, scope: "s2", body: {} }, changed: ["scope", "body"], replaces: ["scope", "body"], dbr: false },
    { what: "a local field only", news: { ...olds, note: "m" }, changed: ["note"], replaces: [], dbr: false },
    { what: "body not known yet", news: { ...olds, body: { x: UNKNOWN } }, changed: ["body"], replaces: ["body"], dbr: true },
  ])("$what", ({ news, changed, replaces, dbr }) => {
    expect(diffFields(scoped, olds, news)).toEqual({ changed, replaces, deleteBeforeReplace: dbr });
  });

  it("the event type resource: any change of a declared field replaces; a name kept in its scope deletes first", () => {
    const olds = { name: "a.b", projectId: null, description: "d", payloadSchema: { type: "object" }, adoptExisting: false };
    expect(diffFields(eventTypeDefinition, olds, { ...olds, description: "e" })).toMatchObject({ replaces: ["description"], deleteBeforeReplace: true });
    expect(diffFields(eventTypeDefinition, olds, { ...olds, projectId: "p" })).toMatchObject({ replaces: ["projectId"], deleteBeforeReplace: false });
  });

  it.each([
    { a: { a: 1, b: 2 }, b: { b: 2, a: 1 }, equal: true },
    { a: { a: null }, b: {}, equal: false },
    { a: null, b: undefined, equal: true },
    { a: { a: 1 }, b: null, equal: false },
  ])("fieldEqual with a field's own equality: $a vs $b", ({ a, b, equal }) => {
    expect(fieldEqual(scoped.fields.body!, a, b)).toBe(equal);
  });
});

describe("an action also sent on create (a source's secret)", () => {
  const olds = { provider: "payments", secret: "s1", name: "n" };
  it.each([
    { what: "new value", news: { ...olds, secret: "s2" }, calls: [["POST", "/rotate-secret", { secret: "s2" }]] },
    { what: "removed (generic: generate one)", news: { ...olds, provider: "generic", secret: undefined }, calls: [["POST", "/rotate-secret", {}]] },
    { what: "same", news: olds, calls: [] },
    { what: "name and secret: PATCH then rotate", news: { ...olds, name: "m", secret: "s2" }, calls: [["PATCH", "", { name: "m" }], ["POST", "/rotate-secret", { secret: "s2" }]] },
  ])("$what", ({ news, calls }) => {
    expect(planUpdate(sourceDefinition, olds, news).map((c) => [c.method, c.path, c.body])).toEqual(calls);
  });
});
