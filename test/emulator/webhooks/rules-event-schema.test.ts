import { describe, expect, it } from "vitest";
import { canonicalJson, payloadProblem, schemaProblem, SCHEMA_LIMITS } from "../../../rules/event-schema";

const nest = (levels: number): unknown => {
  let s: unknown = { type: "string" };
  for (let i = 1; i < levels; i++) s = { not: s };
  return s;
};

describe("schemaProblem: size bounds", () => {
  it.each([
    ["bytes", { description: "x".repeat(SCHEMA_LIMITS.bytes) }, { reason: "bytes", limit: 65536, size: SCHEMA_LIMITS.bytes + 18 }],
    ["depth", nest(SCHEMA_LIMITS.depth + 1), { reason: "depth", limit: 32 }],
    ["members", { properties: Object.fromEntries(Array.from({ length: 1000 }, (_, i) => [`p${i}`, true])) }, { reason: "members", limit: 1000 }],
    ["enum_values", { anyOf: [{ enum: Array.from({ length: 300 }, (_, i) => i) }, { enum: Array.from({ length: 201 }, (_, i) => i) }] }, { reason: "enum_values", limit: 500 }],
    ["patterns", { allOf: Array.from({ length: 101 }, (_, i) => ({ pattern: `^a{${i}}$` })) }, { reason: "patterns", limit: 100 }],
  ])("%s over its bound is schema_too_large", (_name, schema, details) => {
    expect(schemaProblem(schema)).toMatchObject({ code: "schema_too_large", details });
    expect(schemaProblem(schema)!.details).toEqual(details);
  });

  it.each([
    ["depth at the bound", nest(SCHEMA_LIMITS.depth)],
    ["500 enum values", { enum: Array.from({ length: 500 }, (_, i) => i) }],
    ["100 patterns", { allOf: Array.from({ length: 100 }, () => ({ pattern: "^a$" })) }],
    ["a property named pattern is no pattern", { properties: { pattern: { type: "string" }, enum: { type: "string" } } }],
  ])("%s passes", (_name, schema) => {
    expect(schemaProblem(schema)).toBeUndefined();
  });
});

describe("schemaProblem: patterns", () => {
  it.each([
    ["a".repeat(1001), "too_long", { limit: 1000 }],
    ["(", "does_not_compile", {}],
    ["\\p{Nope}", "does_not_compile", {}],
    ["(a*)*", "empty_repeat", {}],
    ["(a?)+$", "empty_repeat", {}],
    ["(a+)+$", "nested_quantifier", {}],
    ["^(\\w+\\s?)*$", "nested_quantifier", {}],
    ["(a|a)*$", "ambiguous_alternation", {}],
    ["^(\\w|\\d)+$", "ambiguous_alternation", {}],
    ["^\\d*\\d*$", "too_complex", {}],
  ])("/%s/ is schema_pattern_unsafe %s", (pattern, reason, extra) => {
    const p = schemaProblem({ type: "object", properties: { a: { type: "string", pattern } } });
    // The API's details as the spec gives them; where the pattern stands beside them, for the provider's messages.
    expect(p).toEqual({ code: "schema_pattern_unsafe", message: expect.any(String), details: { reason, pattern, ...extra }, pointer: "/properties/a/pattern" });
  });

  it("checks patternProperties keys too", () => {
    expect(schemaProblem({ patternProperties: { "(a+)+$": true } })).toMatchObject({ details: { reason: "nested_quantifier", pattern: "(a+)+$" }, pointer: "/patternProperties/(a+)+$" });
  });

  it.each(["^[a-z]+$", "^([a-z0-9]+\\.)*[a-z]+$", "^(\\d{1,3}\\.){3}\\d{1,3}$", "^[a-zA-Z0-9._%+-]+@[a-zA-Z0-9.-]+\\.[a-zA-Z]{2,}$", "^\\p{L}+$"])("/%s/ is safe", (pattern) => {
    expect(schemaProblem({ pattern })).toBeUndefined();
  });
});

describe("schemaProblem: references and draft-7 validity", () => {
  it.each([
    [{ $ref: "https://example.com/s.json" }, "https://example.com/s.json"],
    [{ properties: { a: { $ref: "other.json#/x" } } }, "other.json#/x"],
  ])("remote $ref %#", (schema, ref) => {
    expect(schemaProblem(schema)).toMatchObject({ code: "schema_ref_unsupported", details: { ref } });
  });

  it("local $ref resolves", () => {
    expect(schemaProblem({ definitions: { id: { type: "string" } }, properties: { a: { $ref: "#/definitions/id" } } })).toBeUndefined();
  });

  it.each([
    [{ type: "strin" }, "/type"],
    [{ properties: { a: { minLength: -1 } } }, "/properties/a/minLength"],
    [{ required: "a" }, "/required"],
    [{ properties: { a: { $ref: "#/definitions/missing" } } }, "/properties/a/$ref"],
    [{ $schema: "https://json-schema.org/draft/2020-12/schema" }, "/$schema"],
  ])("invalid draft 7 %# is invalid_payload schema_invalid with the pointer", (schema, path) => {
    expect(schemaProblem(schema)).toEqual({ code: "invalid_payload", message: expect.any(String), details: { reason: "schema_invalid", path } });
  });

  it("a draft-7 $schema, unknown keywords and unknown formats are accepted", () => {
    expect(schemaProblem({ $schema: "http://json-schema.org/draft-07/schema#", type: "object", "x-note": 1, properties: { a: { format: "custom" } } })).toBeUndefined();
  });
});

describe("payloadProblem", () => {
  const schema = {
    type: "object",
    required: ["id"],
    additionalProperties: false,
    properties: {
      id: { type: "string", maxLength: 3, pattern: "^[a-z]+$" },
      n: { type: "integer", minimum: 1 },
      tags: { type: "array", minItems: 2 },
      kind: { enum: ["a", "b"] },
      either: { type: ["string", "null"] },
      at: { type: "string", format: "date-time" },
      k: { const: 1 },
      m: { multipleOf: 2 },
    },
  };

  it.each([
    [{}, { path: "", keyword: "required", params: { property: "id" } }],
    [{ id: "a", extra: 1 }, { path: "", keyword: "additionalProperties", params: { property: "extra" } }],
    [{ id: "abcd" }, { path: "/id", keyword: "maxLength", params: { count: 3 } }],
    [{ id: "A" }, { path: "/id", keyword: "pattern", params: {} }],
    [{ id: "a", n: 0 }, { path: "/n", keyword: "minimum", params: { limit: 1 } }],
    [{ id: "a", n: "x" }, { path: "/n", keyword: "type", params: { type: "integer" } }],
    [{ id: "a", tags: [1] }, { path: "/tags", keyword: "minItems", params: { count: 2 } }],
    [{ id: "a", kind: "c" }, { path: "/kind", keyword: "enum", params: {} }],
    [{ id: "a", either: 1 }, { path: "/either", keyword: "type", params: {} }],
    [{ id: "a", at: "yesterday" }, { path: "/at", keyword: "format", params: {} }],
    [{ id: "a", k: 2 }, { path: "/k", keyword: "const", params: {} }],
    [{ id: "a", m: 3 }, { path: "/m", keyword: "other", params: {} }],
  ])("%j fails with one spec entry", (payload, entry) => {
    expect(payloadProblem(schema, payload)).toEqual({ code: "invalid_payload", message: expect.any(String), details: { reason: "payload", errors: [entry], total: 1 } });
  });

  it("cuts entries at 20 and reports the total", () => {
    const s = { type: "object", additionalProperties: false };
    const payload = Object.fromEntries(Array.from({ length: 25 }, (_, i) => [`k${i}`, i]));
    const p = payloadProblem(s, payload)!;
    expect((p.details.errors as unknown[]).length).toBe(20);
    expect(p.details.total).toBe(25);
  });

  it("passes a matching payload", () => {
    expect(payloadProblem(schema, { id: "ab", n: 2 })).toBeUndefined();
  });
});

describe("canonicalJson", () => {
  it("ignores key order and formatting, keeps array order", () => {
    expect(canonicalJson(JSON.parse('{ "b": 1, "a": {"d": [2, 1], "c": null} }'))).toBe(canonicalJson({ a: { c: null, d: [2, 1] }, b: 1 }));
    expect(canonicalJson({ a: [1, 2] })).not.toBe(canonicalJson({ a: [2, 1] }));
  });
});

describe("schemaProblem: recursion and ids", () => {
  it("a root-recursive $ref and two schemas sharing an $id are valid", () => {
    expect(schemaProblem({ type: "object", properties: { child: { $ref: "#" } } })).toBeUndefined();
    expect(schemaProblem({ $id: "http://example.com/a.json", type: "object" })).toBeUndefined();
    expect(schemaProblem({ $id: "http://example.com/a.json", type: "string" })).toBeUndefined();
    expect(payloadProblem({ $id: "http://example.com/a.json", type: "string" }, 1)?.details.errors).toEqual([{ path: "", keyword: "type", params: { type: "string" } }]);
  });
});
