/**
 * Prototype safety as a rule (issue 16): the names an object inherits from
 * `Object.prototype` (`__proto__`, `constructor`, `prototype`, `hasOwnProperty`)
 * sent through every path parameter, query key, header name, cookie name and JSON key
 * the API takes are ordinary unknown names: a 4xx in the error contract (or the success
 * an unknown name gets), never a 500, and never a change to how later requests behave.
 *
 * The routes are the server's own list (`emu.routes`), so a route added later is swept too.
 */
import { describe, expect, it } from "vitest";
import type { RunningEmulator } from "../../emulator";
import { call, errorOf, useEmulator, type CallResult } from "../support/emulator";

const NAMES = ["__proto__", "constructor", "prototype", "hasOwnProperty"];

/** The credential a route's product takes (the control plane takes none). */
function keyFor(emu: RunningEmulator, url: string): string | undefined {
  if (url.startsWith("/webhooks/")) return emu.keys.webhooks.admin;
  if (url.startsWith("/inboxes/")) return emu.keys.inboxes.admin;
  if (url.startsWith("/infra/")) return emu.keys.infra.admin;
  return undefined;
}

const withParams = (url: string, value: string) => url.replace(/:[A-Za-z_]+/g, encodeURIComponent(value));
const hasBody = (method: string) => method === "POST" || method === "PUT" || method === "PATCH";

/** Not a 5xx; a refusal carries the error body (the edge's own answers aside, which have none). */
function expectContract(res: CallResult, what: string): void {
  expect(res.status, `${what} -> ${res.status} ${res.text.slice(0, 200)}`).toBeLessThan(500);
  if (res.status >= 400) expect(() => errorOf(res), `${what}: ${res.text.slice(0, 200)}`).not.toThrow();
}

/** A JSON object text with every poisoned name as a member (a JS literal would set the prototype instead). */
const poisonedMembers = (value: string) => NAMES.map((n) => `"${n}": ${value}`).join(", ");

describe("prototype names through every input of every route", () => {
  const emu = useEmulator();

  it("the route list covers the three products and the control plane", () => {
    const prefixes = new Set(emu().routes.map((r) => r.url.split("/")[1]));
    expect([...prefixes].sort()).toEqual(["_emulator", "inboxes", "infra", "webhooks"]);
  });

  it("as every path parameter: 4xx in the contract", async () => {
    const routes = emu().routes.filter((r) => r.url.includes(":"));
    expect(routes.length).toBeGreaterThan(30);
    for (const route of routes) {
      for (const name of NAMES) {
        const path = withParams(route.url, name);
        const res = await call(emu(), route.method, path, { key: keyFor(emu(), route.url), body: hasBody(route.method) ? {} : undefined });
        const what = `${route.method} ${path}`;
        expectContract(res, what);
        // A bin accepts any request by design; everything else has no object of that name.
        if (!route.url.startsWith("/inboxes/bin/")) expect(res.status, `${what} -> ${res.text.slice(0, 200)}`).toBeGreaterThanOrEqual(400);
      }
    }
  });

  it("as query keys, header names and cookie names: never a 500", async () => {
    const query = NAMES.map((n) => `${n}=1&${n}[x]=1`).join("&");
    for (const route of emu().routes) {
      const path = withParams(route.url, "x");
      const key = keyFor(emu(), route.url);
      const headers = Object.fromEntries(NAMES.map((n) => [n, "1"]));
      const body = hasBody(route.method) ? {} : undefined;
      expectContract(await call(emu(), route.method, `${path}?${query}`, { key, body }), `${route.method} ${path}?${query}`);
      expectContract(await call(emu(), route.method, path, { key, body, headers }), `${route.method} ${path} with headers`);
    }
  });

  it("as the session cookie's name or value on Webhooks and Inboxes: 401/403 in the contract", async () => {
    const routes = emu().routes.filter((r) => r.url.startsWith("/webhooks/v1/") || r.url.startsWith("/inboxes/v1/"));
    for (const route of routes) {
      if (route.url.startsWith("/webhooks/v1/ingest/")) continue; // signed, takes no credential
      for (const name of NAMES) {
        for (const cookie of [`${name}=x`, `svc_session=${name}`, `${name}=x; svc_session=${name}`]) {
          const res = await call(emu(), route.method, withParams(route.url, "x"), { headers: { cookie }, body: hasBody(route.method) ? {} : undefined });
          const what = `${route.method} ${route.url} cookie ${cookie}`;
          expectContract(res, what);
          expect([401, 403], `${what} -> ${res.status}`).toContain(res.status);
        }
      }
    }
  });

  it("as top-level JSON members of every body: never a 500", async () => {
    for (const route of emu().routes.filter((r) => hasBody(r.method))) {
      const path = withParams(route.url, "x");
      const raw = `{${poisonedMembers(`{"polluted": true}`)}}`;
      expectContract(await call(emu(), route.method, path, { key: keyFor(emu(), route.url), raw, headers: { "content-type": "application/json" } }), `${route.method} ${path}`);
    }
  });

  it("as the names of the maps the API takes (custom headers, payloads, schemas, quota limits): the contract", async () => {
    const e = emu();
    const wh = e.keys.webhooks.admin;
    const cases: [string, string, string, string | undefined][] = [
      ["POST", "/webhooks/v1/endpoints", `{"url": "https://a.example.com/h", "custom_headers": {${poisonedMembers(`"v"`)}}}`, wh],
      ["POST", "/webhooks/v1/events", `{"event_type": "proto.test", "payload": {${poisonedMembers(`{"a": 1}`)}}}`, wh],
      ["POST", "/webhooks/v1/event-types", `{"name": "proto.schema", "payload_schema": {"type": "object", "properties": {${poisonedMembers(`{"type": "string"}`)}}, "required": ["__proto__"]}}`, wh],
      ["POST", "/webhooks/v1/sources", `{"provider": "generic", "name": "s", "custom": {${poisonedMembers("1")}}}`, wh],
      ["PATCH", "/infra/api/v1/quota/compute", `{"limits": {${poisonedMembers("5")}}}`, e.keys.infra.admin],
      ["POST", "/infra/api/v1/quota-request/", `{"service": "compute", "region": "us-east-1", "limits": {${poisonedMembers("5")}}, "justification": "j"}`, e.keys.infra.admin],
      ["POST", "/infra/api/v1/quota-request/", `{"service": "constructor", "limits": {"vms": 5}, "justification": "j"}`, e.keys.infra.admin],
      ["POST", "/infra/api/v1/quota-request/", `{"service": "__proto__", "limits": {"vms": 5}, "justification": "j"}`, e.keys.infra.admin],
    ];
    for (const [method, path, raw, key] of cases) {
      const res = await call(e, method, path, { key, raw, headers: { "content-type": "application/json" } });
      expectContract(res, `${method} ${path} ${raw}`);
    }
    // Quota names are a closed set: an inherited name is refused, not taken as a quota.
    for (const [method, path, raw] of cases.slice(4)) {
      const res = await call(e, method, path, { key: e.keys.infra.admin, raw, headers: { "content-type": "application/json" } });
      expect(res.status, `${method} ${path} -> ${res.text}`).toBe(422);
    }
  });

  it("afterwards nothing inherited changed and the emulator still answers", async () => {
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    const res = await call(emu(), "GET", "/webhooks/v1/endpoints", { key: emu().keys.webhooks.admin });
    expect(res.status).toBe(200);
  });
});
