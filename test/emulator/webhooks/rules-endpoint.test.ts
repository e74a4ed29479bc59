import { describe, expect, it } from "vitest";
import { endpointViolations, isHttpsUrl, maxAttemptsViolation, subscriptionMatches, ENDPOINT_LIMITS } from "../../../rules/endpoint";

const headers = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`X-H${i}`, "v"]));

describe("endpointViolations: custom headers", () => {
  it.each([
    ["21 headers", headers(21), "too_long", { count: 20 }],
    ["name with space", { "Bad Name": "v" }, "webhooks.custom_header_name_invalid", undefined],
    ["name with colon", { "X-A:": "v" }, "webhooks.custom_header_name_invalid", undefined],
    ["value 1025 chars", { "X-A": "a".repeat(1025) }, "webhooks.custom_header_value_too_long", { count: 1024 }],
    ["non-ASCII value", { "X-A": "café" }, "webhooks.custom_header_not_ascii", undefined],
    ["line break in value", { "X-A": "a\r\nX-Evil: 1" }, "webhooks.custom_header_control_character", undefined],
    ["NUL in value", { "X-A": "a\u0000" }, "webhooks.custom_header_control_character", undefined],
    ["DEL in value", { "X-A": "a\u007f" }, "webhooks.custom_header_control_character", undefined],
    ["total over 8192 bytes", Object.fromEntries(Array.from({ length: 9 }, (_, i) => [`X-H${i}`, "a".repeat(1000)])), "webhooks.custom_headers_too_large", { limit: 8192 }],
    ["Content-Type", { "Content-Type": "text/plain" }, "webhooks.custom_header_managed", undefined],
    ["user-agent lower case", { "user-agent": "x" }, "webhooks.custom_header_managed", undefined],
    ["X-Webhook- prefix", { "x-webhook-signature": "x" }, "webhooks.custom_header_managed", undefined],
    ["Host", { Host: "x" }, "webhooks.custom_header_forbidden", undefined],
    ["connection mixed case", { CoNNection: "close" }, "webhooks.custom_header_forbidden", undefined],
    ["Transfer-Encoding", { "Transfer-Encoding": "chunked" }, "webhooks.custom_header_forbidden", undefined],
    ["Content-Length", { "Content-Length": "1" }, "webhooks.custom_header_forbidden", undefined],
  ])("%s -> %s", (_label, custom_headers, type, params) => {
    const v = endpointViolations({ custom_headers });
    expect(v).toHaveLength(1);
    expect(v[0]).toMatchObject({ path: ["custom_headers"], type });
    expect(v[0]!.params).toEqual(params);
  });

  it.each([
    ["20 headers", headers(20)],
    ["value of exactly 1024", { "X-A": "a".repeat(1024) }],
    ["exactly 8192 bytes", Object.fromEntries(Array.from({ length: 8 }, (_, i) => [`X-H${i}`, "a".repeat(1024 - 4)]))],
    ["X-Webhook without dash is not the prefix", { "X-Webhooks": "v" }],
    ["Authorization is allowed", { Authorization: "Bearer x" }],
    ["null", null],
  ])("%s is accepted", (_label, custom_headers) => {
    expect(endpointViolations({ custom_headers })).toEqual([]);
  });

  it("reports several violations together", () => {
    const v = endpointViolations({ custom_headers: { Host: "a", "X-A": "é" } });
    expect(v.map((x) => x.type)).toEqual(["webhooks.custom_header_forbidden", "webhooks.custom_header_not_ascii"]);
  });
});

describe("endpointViolations: url, retries, timeout, subscriptions", () => {
  it.each([
    [{ url: "http://example.com/hook" }, ["url"], "webhooks.url_not_https", undefined],
    [{ url: "example.com" }, ["url"], "webhooks.url_not_https", undefined],
    [{ retry_schedule: [0, 604801] }, ["retry_schedule", 1], "webhooks.retry_delay_out_of_range", { limit: 604800 }],
    [{ retry_schedule: [-1] }, ["retry_schedule", 0], "webhooks.retry_delay_out_of_range", { limit: 604800 }],
    [{ delivery_timeout_ms: 60001 }, ["delivery_timeout_ms"], "less_than_equal", { limit: 60000 }],
    [{ delivery_timeout_ms: 0 }, ["delivery_timeout_ms"], "greater_than_equal", { limit: 1 }],
    [{ subscriptions: [{ event_type: "a" }, { event_type: "order..x" }] }, ["subscriptions", 1, "event_type"], "webhooks.subscription_pattern_invalid", undefined],
  ])("%j -> %s", (body, path, type, params) => {
    const v = endpointViolations(body as never);
    expect(v).toHaveLength(1);
    expect(v[0]).toMatchObject({ path, type });
    expect(v[0]!.params).toEqual(params);
  });

  it("accepts the bounds", () => {
    expect(endpointViolations({ url: "https://x.test/h", retry_schedule: [0, ENDPOINT_LIMITS.retryDelayMaxSeconds], delivery_timeout_ms: 60000, subscriptions: [{ event_type: "**" }] })).toEqual([]);
  });

  it("max_attempts above the plan", () => {
    expect(maxAttemptsViolation(6, 5)).toEqual({ path: ["max_attempts"], type: "webhooks.max_attempts_above_plan", msg: expect.any(String), params: { count: 5 } });
    expect(maxAttemptsViolation(5, 5)).toBeUndefined();
  });

  it.each([
    ["https://example.com", true],
    ["https://127.0.0.1:8443/x", true],
    ["HTTPS://EXAMPLE.COM/", true],
    ["http://example.com", false],
    ["ftp://example.com", false],
    ["https//example.com", false],
    ["", false],
  ])("isHttpsUrl(%j) = %s", (url, ok) => expect(isHttpsUrl(url)).toBe(ok));
});

describe("subscriptionMatches", () => {
  it.each([
    ["order.created", "order.created", true],
    ["order.created", "order.updated", false],
    ["order.*", "order.created", true],
    ["order.*", "order.item.added", false],
    ["order.*", "order", false],
    ["order.**", "order.created", true],
    ["order.**", "order.item.added", true],
    ["order.**", "order", false],
    ["*", "ping", true],
    ["*", "order.created", false],
    ["**", "ping", true],
    ["**", "a.b.c.d", true],
    ["*.created", "order.created", true],
    ["*.created", "order.item.created", false],
    ["**.created", "order.item.created", true],
    ["a.**.z", "a.b.c.z", true],
    ["a.**.z", "a.z", false],
    ["order.cre*", "order.created", false],
    ["order.cre*", "order.cre*", true],
    ["Order.created", "order.created", false],
    ["order..x", "order..x", false],
  ])("%s ~ %s = %s", (pattern, type, expected) => expect(subscriptionMatches(pattern, type)).toBe(expected));
});
