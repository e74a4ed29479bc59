/**
 * The generic engine as tables: check (schemas, shared rules, unknowns), diff
 * (changes, replaces, delete-before-replace) and the update's calls.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { checkInputs } from "../../provider/engine/check";
import { diffFields } from "../../provider/engine/diff";
import { asIs, formatPropertyPath, listOf, renamedObject, type ResourceDefinition } from "../../provider/engine/fields";
import { jsonEqual, toPlainJson } from "../../provider/engine/json";
import { planUpdate } from "../../provider/engine/plan";
import { UNKNOWN } from "../../provider/engine/unknown";
import { quotaLimitsDefinition } from "../../provider/infra/quota-limits";
import { endpointDefinition as endpoint } from "../../provider/webhooks/endpoint";
import { sourceDefinition } from "../../provider/webhooks/source";
import { workspaceSettingsDefinition } from "../../provider/webhooks/workspace-settings";
import { inboxDefinition } from "../../provider/inboxes/inbox";
import { explainApiError } from "../../provider/engine/errors";
import { SvcApiError } from "../../provider/client";

/** A small resource using every mode, to test the engine apart from any real one. */
const widget: ResourceDefinition = {
  kind: "webhooks:Source",
  product: "webhooks",
  noun: "widget",
  paths: { create: "/v1/widgets", item: (id) => `/v1/widgets/${id}` },
  adoptHint: "adopt it",
  fields: {
    name: { mode: "createOnly", api: "name", input: z.string().max(10), uniqueName: true },
    region: { mode: "createOnly", api: "region", input: z.string() },
    size: { mode: "patch", api: "size", input: z.number().int().max(100) },
    label: { mode: "patch", api: "label", input: z.string() },
    tags: { mode: "put", api: "tags", input: z.array(z.object({ tagName: z.string() })), codec: listOf(renamedObject({ tagName: "tag_name" })), put: { path: "/tags", bodyKey: "tags" }, default: [] },
    token: { mode: "patch", api: "token", input: z.string(), writeOnly: true },
    rotation: { mode: "action", input: z.string(), action: { path: "/rotate", safeToRepeat: false } },
    wait: { mode: "local", input: z.number(), default: 0 },
    state: { mode: "patch", api: "state", input: z.enum(["on", "off"]), whenOmitted: "unmanaged" },
    createdAt: { mode: "output", api: "created_at" },
  },
};

describe("check", () => {
  it.each([
    { name: "valid", news: { name: "a", size: 5 }, failures: [] as string[] },
    { name: "too big a number names the limit and the API type", news: { size: 101 }, failures: ["size"] },
    { name: "too long a string", news: { name: "x".repeat(11) }, failures: ["name"] },
    { name: "nested path", news: { tags: [{ tagName: 5 }] }, failures: ["tags[0].tagName"] },
    { name: "unknown value skipped", news: { size: UNKNOWN, name: UNKNOWN }, failures: [] },
    { name: "unknown nested value skipped", news: { tags: [{ tagName: UNKNOWN }] }, failures: [] },
    { name: "unknown whole list skipped", news: { tags: UNKNOWN }, failures: [] },
  ])("$name", ({ news, failures }) => {
    const result = checkInputs(widget, news);
    expect(result.failures.map((f) => f.property)).toEqual(failures);
  });

  it("fills defaults, keeps unknowns, drops outputs sent as inputs", () => {
    const { inputs } = checkInputs(widget, { size: UNKNOWN, createdAt: "x" });
    expect(inputs).toEqual({ size: UNKNOWN, tags: [], wait: 0 });
  });

  it("reasons carry the limit and the API entry type", () => {
    const [failure] = checkInputs(widget, { size: 101 }).failures;
    expect(failure!.reason).toMatch(/less_than_equal, limit 100/);
  });
});

describe("check: endpoint with the shared rules", () => {
  const ok = { url: "https://example.com/hook" };
  it.each([
    { name: "valid", news: ok, want: [] as [string, RegExp][] },
    { name: "http url", news: { url: "http://example.com" }, want: [["url", /webhooks.url_not_https/]] },
    { name: "header value too long", news: { ...ok, customHeaders: { "X-Team": "v".repeat(1025) } }, want: [["customHeaders", /webhooks.custom_header_value_too_long, count 1024/]] },
    { name: "managed header", news: { ...ok, customHeaders: { "X-Webhook-Id": "a" } }, want: [["customHeaders", /webhooks.custom_header_managed/]] },
    { name: "retry delay out of range", news: { ...ok, retrySchedule: [5, 700000] }, want: [["retrySchedule[1]", /webhooks.retry_delay_out_of_range, limit 604800/]] },
    { name: "bad pattern", news: { ...ok, subscriptions: [{ eventType: "order..x" }] }, want: [["subscriptions[0].eventType", /webhooks.subscription_pattern_invalid/]] },
    { name: "timeout above the clamp", news: { ...ok, deliveryTimeoutMs: 60001 }, want: [["deliveryTimeoutMs", /limit 60000/]] },
    // Past zod's safe-integer bound too: one failure, the field's own limit.
    { name: "timeout far above the clamp", news: { ...ok, deliveryTimeoutMs: 2 ** 64 }, want: [["deliveryTimeoutMs", /limit 60000/]] },
    { name: "unknown url skipped", news: { url: UNKNOWN }, want: [] },
    { name: "unknown header value: other rules still judged", news: { ...ok, customHeaders: { "X-A": UNKNOWN, Host: "h" } }, want: [["customHeaders", /webhooks.custom_header_forbidden/]] },
    // adv14b F1: the secret map is one unknown at preview once any value is; the names the SDK lists are still judged.
    { name: "whole header map unknown: the listed names judged", news: { ...ok, customHeaders: UNKNOWN, declaredHeaderNames: ["X-A", "Content-Type"] }, want: [["customHeaders", /Header 'Content-Type' is set by the service.*webhooks.custom_header_managed/]] },
    { name: "whole header map unknown: names past the count limit", news: { ...ok, customHeaders: UNKNOWN, declaredHeaderNames: Array.from({ length: 21 }, (_, i) => `X-${i}`) }, want: [["customHeaders", /At most 20 custom headers/]] },
    { name: "whole header map unknown, names unknown too: skipped", news: { ...ok, customHeaders: UNKNOWN, declaredHeaderNames: UNKNOWN }, want: [] },
    { name: "a listed name serialization dropped (__proto__) is judged", news: { ...ok, customHeaders: { "X-A": "a" }, declaredHeaderNames: ["X-A", "__proto__"] }, want: [["customHeaders", /Header name '__proto__' is a JavaScript prototype key/]] },
    { name: "wrong type reported once", news: { ...ok, retrySchedule: "soon" }, want: [["retrySchedule", /expected array/]] },
    // A mark copied from the dashboard would make the object read as that token's: the provider would leave it at destroy.
    { name: "owner mark as the program's own description", news: { ...ok, description: `managed by pulumi-svc (owner ${"a".repeat(26)})` }, want: [["description", /is an owner mark: .*Leave description unset/]] },
    { name: "text around a mark is text", news: { ...ok, description: `copied: managed by pulumi-svc (owner ${"a".repeat(26)})` }, want: [] },
  ])("$name", ({ news, want }) => {
    const { failures } = checkInputs(endpoint, news);
    expect(failures.map((f) => f.property)).toEqual(want.map(([p]) => p));
    want.forEach(([, re], i) => expect(failures[i]!.reason).toMatch(re));
  });

  it("never echoes a header value in a reason", () => {
    const secretValue = "s3cr3t-" + "v".repeat(1100);
    const { failures } = checkInputs(endpoint, { ...ok, customHeaders: { Authorization: secretValue } });
    expect(JSON.stringify(failures)).not.toContain("s3cr3t");
  });
});

describe("check: one failure per problem", () => {
  it.each([
    { name: "a string among the limits", limits: { vms: "80" }, want: /expected number, given string/ },
    { name: "a fraction among the limits", limits: { vms: 1.5 }, want: /expected int, given number/ },
  ])("$name: named once, not also as a missing field by the shared rules", ({ limits, want }) => {
    const { failures } = checkInputs(quotaLimitsDefinition, { service: "compute", region: "eu-west", limits });
    expect(failures.map((f) => f.property)).toEqual(["limits.vms"]);
    expect(failures[0]!.reason).toMatch(want);
  });
});

describe("diff", () => {
  const olds = { name: "a", region: "eu", size: 5, label: null, tags: [], token: "t1", rotation: null, wait: 0, state: "on", createdAt: "2026" };
  it.each([
    { name: "no change", news: { name: "a", region: "eu", size: 5, tags: [], token: "t1", wait: 0 }, changed: [] as string[], replaces: [] as string[], dbr: false },
    { name: "patch field", news: { name: "a", region: "eu", size: 6, tags: [], token: "t1" }, changed: ["size"], replaces: [], dbr: false },
    { name: "omitted patch field clears", news: { name: "a", region: "eu", tags: [], token: "t1" }, changed: ["size"], replaces: [], dbr: false },
    { name: "omitted unmanaged field ignored", news: { name: "a", region: "eu", size: 5, tags: [], token: "t1" }, changed: [], replaces: [], dbr: false },
    { name: "write-only compared with last applied", news: { name: "a", region: "eu", size: 5, tags: [], token: "t2" }, changed: ["token"], replaces: [], dbr: false },
    { name: "replace keeping the unique name deletes first", news: { name: "a", region: "us", size: 5, tags: [], token: "t1" }, changed: ["region"], replaces: ["region"], dbr: true },
    { name: "replace changing the unique name creates first", news: { name: "b", region: "us", size: 5, tags: [], token: "t1" }, changed: ["name", "region"], replaces: ["name", "region"], dbr: false },
    { name: "unknown is a change", news: { name: "a", region: "eu", size: UNKNOWN, tags: [], token: "t1" }, changed: ["size"], replaces: [], dbr: false },
    { name: "unknown createOnly replaces", news: { name: "a", region: UNKNOWN, size: 5, tags: [], token: "t1" }, changed: ["region"], replaces: ["region"], dbr: true },
    { name: "action field", news: { name: "a", region: "eu", size: 5, tags: [], token: "t1", rotation: "2" }, changed: ["rotation"], replaces: [], dbr: false },
    { name: "local field", news: { name: "a", region: "eu", size: 5, tags: [], token: "t1", wait: 30 }, changed: ["wait"], replaces: [], dbr: false },
  ])("$name", ({ news, changed, replaces, dbr }) => {
    const d = diffFields(widget, olds, { wait: 0, ...news });
    expect(d.changed).toEqual(changed);
    expect(d.replaces).toEqual(replaces);
    expect(d.deleteBeforeReplace).toBe(dbr);
  });

  it("an omitted local setting with a default is its default (a refresh's diff compares unchecked inputs, such as an import's)", () => {
    expect(diffFields(widget, olds, { name: "a", region: "eu", size: 5, tags: [], token: "t1" }).changed).toEqual([]);
    expect(diffFields(widget, { ...olds, wait: 30 }, { name: "a", region: "eu", size: 5, tags: [], token: "t1" }).changed).toEqual(["wait"]);
  });
});

describe("planUpdate", () => {
  const olds = { name: "a", region: "eu", size: 5, label: "x", tags: [{ tagName: "t" }], token: "t1", rotation: "1", wait: 0, state: "on" };
  const base = { name: "a", region: "eu", size: 5, label: "x", tags: [{ tagName: "t" }], token: "t1", rotation: "1", wait: 0 };
  it.each([
    { name: "no-op: no call", news: base, calls: [] as string[], bodies: [] as unknown[] },
    { name: "one patch field: one PATCH with it only", news: { ...base, size: 6 }, calls: ["PATCH"], bodies: [{ size: 6 }] },
    { name: "two patch fields: still one PATCH", news: { ...base, size: 6, label: "y", token: "t2" }, calls: ["PATCH"], bodies: [{ size: 6, label: "y", token: "t2" }] },
    { name: "put only", news: { ...base, tags: [{ tagName: "u" }] }, calls: ["PUT /tags"], bodies: [{ tags: [{ tag_name: "u" }] }] },
    { name: "action only", news: { ...base, rotation: "2" }, calls: ["rotate"], bodies: [undefined] },
    { name: "order: PATCH, PUT, action", news: { ...base, rotation: "2", tags: [], size: 1 }, calls: ["PATCH", "PUT /tags", "rotate"], bodies: [{ size: 1 }, { tags: [] }, undefined] },
    { name: "local only: no call", news: { ...base, wait: 5 }, calls: [], bodies: [] },
  ])("$name", ({ news, calls, bodies }) => {
    const plan = planUpdate(widget, olds, news);
    expect(plan.map((c) => c.label)).toEqual(calls);
    expect(plan.map((c) => c.body)).toEqual(bodies);
  });

  it("endpoint: status enabled on an auto-disabled endpoint is POST /enable, not PATCH", () => {
    const olds = { url: "https://a.example", subscriptions: [], status: "auto_disabled", description: null };
    const plan = planUpdate(endpoint, olds, { url: "https://a.example", subscriptions: [], status: "enabled" });
    expect(plan.map((c) => `${c.method} ${c.path}`)).toEqual(["POST /enable"]);
    const both = planUpdate(endpoint, olds, { url: "https://a.example", subscriptions: [], status: "enabled", description: "d" });
    expect(both.map((c) => `${c.method} ${c.path}`)).toEqual(["PATCH ", "POST /enable"]);
    expect(both[0]!.body).toEqual({ description: "d" });
  });

  it("endpoint: disabled → enabled is a PATCH", () => {
    const plan = planUpdate(endpoint, { url: "https://a.example", subscriptions: [], status: "disabled" }, { url: "https://a.example", subscriptions: [], status: "enabled" });
    expect(plan.map((c) => c.label)).toEqual(["PATCH"]);
  });
});

describe("helpers", () => {
  it.each([
    [["customHeaders", "X-Team"], 'customHeaders["X-Team"]'],
    [["subscriptions", 0, "eventType"], "subscriptions[0].eventType"],
    [["url"], "url"],
  ] as const)("formatPropertyPath %j", (path, want) => expect(formatPropertyPath([...path])).toBe(want));

  it("renamed codecs map both ways and map API paths", () => {
    const codec = listOf(renamedObject({ eventType: "event_type" }));
    expect(codec.toApi([{ eventType: "a.*" }])).toEqual([{ event_type: "a.*" }]);
    expect(codec.fromApi([{ event_type: "a.*" }])).toEqual([{ eventType: "a.*" }]);
    expect(codec.propertyPath([0, "event_type"])).toEqual([0, "eventType"]);
    expect(asIs.toApi({ "X-A": "1" })).toEqual({ "X-A": "1" });
  });

  it("plain JSON: no undefined, no Date", () => {
    expect(toPlainJson({ a: undefined, d: new Date(0), n: [1, undefined], f: () => 1 })).toEqual({ a: null, d: "1970-01-01T00:00:00.000Z", n: [1, null] });
    expect(jsonEqual({ a: null }, {})).toBe(true);
    expect(jsonEqual([1, 2], [2, 1])).toBe(false);
  });
});

// adv14b F13: the messages' grammar: the article by the noun, no dangling clause.
describe("messages: articles and clauses", () => {
  const refusal = (status: number, code: string, details: Record<string, unknown>) =>
    new SvcApiError({ status, method: "PUT", path: "/v1/endpoints/ep_1/subscriptions", body: { code, details }, requestId: "req-1" });

  it.each([
    { def: endpoint, want: /^unknown argument zzzzzzzz \(known: .*\)\. An endpoint takes url, / },
    { def: sourceDefinition, want: /\. A source takes / },
    { def: quotaLimitsDefinition, want: /\. Quota limits take / },
  ])("an unknown argument of $def.noun: the sentence that lists the arguments", ({ def, want }) => {
    const failure = checkInputs(def, { zzzzzzzz: 1 }).failures.find((f) => f.property === "zzzzzzzz");
    expect(failure?.reason).toMatch(want);
  });

  it.each([
    { def: endpoint, want: "cannot create an endpoint: it needs the admin scope" },
    { def: sourceDefinition, want: "cannot create a source: it needs the admin scope" },
    { def: inboxDefinition, want: "cannot create an inbox: it needs the admin scope" },
    { def: workspaceSettingsDefinition, want: "cannot update workspace settings: it needs the admin scope" },
  ])("a key without the scope: $want", ({ def, want }) => {
    const operation = want.includes("update") ? "update" : "create";
    expect(explainApiError(def, refusal(403, "forbidden", { reason: "scope", required: "admin" }), operation, {}).message).toContain(want);
  });

  it("the schema's Info types: 'An endpoint as the service reports it', never 'A endpoint'", () => {
    const schema = JSON.parse(readFileSync(join(__dirname, "..", "..", "schema.json"), "utf8")) as { types: Record<string, { description?: string }> };
    const infos = Object.values(schema.types).map((t) => t.description ?? "").filter((d) => d.includes("as the service reports it ("));
    expect(infos).toContain("An endpoint as the service reports it (values it never returns are not here).");
    expect(infos.filter((d) => /^A [aeiou]/i.test(d))).toEqual([]);
  });

  it("a 5xx after the retries: no dangling clause, with or without details", () => {
    expect(explainApiError(endpoint, refusal(500, "internal", {}), "update", {}).message).toBe(
      "The service failed (500 internal) after the retries allowed. Run again later. (PUT /v1/endpoints/ep_1/subscriptions → 500 internal, request id req-1)",
    );
    expect(explainApiError(endpoint, refusal(503, "unavailable", { shard: "s2" }), "update", {}).message).toMatch(/^The service failed \(503 unavailable\) after the retries allowed: shard="s2"\. Run again later\. \(PUT /);
  });
});
