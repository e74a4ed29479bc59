/**
 * Bad inputs a user's fuzzing found, each refused with the property, the problem and
 * the limit, by the provider's check and by the emulator alike (the bound lives in
 * rules/):
 *   - control characters in every free-text field the spec bounds (labels, names,
 *     descriptions, justifications; line breaks allowed in multi-line text only);
 *   - custom header names that are prototype keys (`__proto__`, `constructor`,
 *     `prototype`); headers given as a Map are taken as their entries;
 *   - numbers beyond their bounds (max attempts, quota values) never reach the service.
 * The same mistakes in a program, under the real CLI: bad-inputs-cli.test.ts.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { providers } from "../../provider";
import { configure, type Workspace } from "../provider/support";
import { call, control, useEmulator } from "../support/emulator";
import { allProductsConfig } from "../support/stack-config";

const emu = useEmulator();
let ws: Workspace;

beforeAll(async () => {
  ws = await control<Workspace>(emu(), "POST", "/workspaces", { plan: "enterprise" });
  const values = allProductsConfig(emu(), ws);
  for (const provider of Object.values(providers)) await configure(provider, values);
});

const BELL = "\u0007";

/** Each free-text field, a valid body around it, and the emulator route that must refuse the same value. */
const TEXT_FIELDS = [
  { kind: "inboxes:Inbox", property: "label", news: { transport: "http" }, multiLine: false, api: { path: "/inboxes/v1/inboxes", key: () => ws.inboxes.admin, field: "label", body: { transport: "http" } } },
  { kind: "webhooks:Endpoint", property: "description", news: { url: "https://x.example.com/in" }, multiLine: true, api: { path: "/webhooks/v1/endpoints", key: () => ws.webhooks.admin, field: "description", body: { url: "https://x.example.com/in" } } },
  { kind: "webhooks:OperationalEndpoint", property: "description", news: { url: "https://x.example.com/ops", eventTypes: ["delivery.dead"] }, multiLine: true, api: { path: "/webhooks/v1/operational-endpoints", key: () => ws.webhooks.admin, field: "description", body: { url: "https://x.example.com/ops", event_types: ["delivery.dead"] } } },
  { kind: "webhooks:Source", property: "name", news: { provider: "generic" }, multiLine: false, api: { path: "/webhooks/v1/sources", key: () => ws.webhooks.admin, field: "name", body: { provider: "generic" } } },
  { kind: "infra:QuotaRequest", property: "justification", news: { service: "dns", limits: { dns_zones: 60 } }, multiLine: true, api: { path: "/infra/api/v1/quota-request/", key: () => ws.infra.admin, field: "justification", body: { service: "dns", limits: { dns_zones: 60 } } } },
  { kind: "webhooks:EventType", property: "description", news: { name: "bad.input.text" }, multiLine: true, api: { path: "/webhooks/v1/event-types", key: () => ws.webhooks.admin, field: "description", body: { name: "bad.input.text" } } },
  { kind: "webhooks:EventType", property: "name", news: {}, multiLine: false, api: { path: "/webhooks/v1/event-types", key: () => ws.webhooks.admin, field: "name", body: {} } },
] as const;

describe("control characters in free text", () => {
  it.each(TEXT_FIELDS)("$kind $property: check refuses a control character, naming the character and what is allowed", async ({ kind, property, news, multiLine }) => {
    const provider = providers[kind]!;
    const failures = (await provider.check!({}, { ...news, [property]: `fine${BELL}not` })).failures ?? [];
    expect(failures).toContainEqual({ property, reason: expect.stringMatching(/control character U\+0007 at position 4.*string_control_character/) });
    const lineBreak = (await provider.check!({}, { ...news, [property]: "line one\nline two" })).failures ?? [];
    expect(lineBreak.some((f) => f.property === property)).toBe(!multiLine);
  });

  it.each(TEXT_FIELDS.filter((f) => f.api))("$kind $property: the emulator refuses the same value (422 string_control_character)", async ({ api }) => {
    const res = await call(emu(), "POST", api!.path, { key: api!.key(), body: { ...api!.body, [api!.field]: `fine${BELL}not` } });
    expect(res.status).toBe(422);
    expect(JSON.stringify(res.body.error.details.errors)).toContain("string_control_character");
  });
});

describe("custom header names that are prototype keys", () => {
  const endpoint = () => providers["webhooks:Endpoint"]!;

  it.each(["__proto__", "constructor", "prototype", "Constructor"])("check refuses %s, naming the header and why", async (name) => {
    // JSON.parse makes "__proto__" an own key, as the plugin's decoded inputs would hold it.
    const headers = JSON.parse(`{${JSON.stringify(name)}: "x"}`) as Record<string, string>;
    const failures = (await endpoint().check!({}, { url: "https://x.example.com/in", customHeaders: headers })).failures ?? [];
    expect(failures).toContainEqual({ property: "customHeaders", reason: expect.stringContaining(`Header name '${name}' is a JavaScript prototype key`) });
  });

  it.each(["constructor", "prototype"])("the emulator refuses %s too", async (name) => {
    const res = await call(emu(), "POST", "/webhooks/v1/endpoints", { key: ws.webhooks.admin, body: { url: "https://x.example.com/in", custom_headers: { [name]: "x" } } });
    expect(res.status).toBe(422);
    expect(res.text).toContain("prototype key");
  });
});

describe("numbers beyond their bounds never reach the service", () => {
  it("endpoint maxAttempts 1e15: refused by check whatever the plan (limit 100), and by the emulator", async () => {
    const failures = (await providers["webhooks:Endpoint"]!.check!({}, { url: "https://x.example.com/in", maxAttempts: 1e15 })).failures ?? [];
    expect(failures).toContainEqual({ property: "maxAttempts", reason: expect.stringContaining("less_than_equal, limit 100") });
    const res = await call(emu(), "POST", "/webhooks/v1/endpoints", { key: ws.webhooks.admin, body: { url: "https://x.example.com/in", max_attempts: 1e15 } });
    expect(res.status).toBe(422);
  });

  it("quota values 1e15: refused by check (QuotaRequest and QuotaLimits) and by the emulator", async () => {
    for (const kind of ["infra:QuotaRequest", "infra:QuotaLimits"] as const) {
      const failures = (await providers[kind]!.check!({}, { service: "compute", region: "us-east-1", limits: { vcpu: 1e15 }, justification: "load" })).failures ?? [];
      expect(failures).toContainEqual({ property: "limits.vcpu", reason: expect.stringContaining("less_than_equal, limit 1000000000") });
    }
    const res = await call(emu(), "POST", "/infra/api/v1/quota-request/", { key: ws.infra.admin, body: { service: "compute", region: "us-east-1", limits: { vcpu: 1e15 }, justification: "load" } });
    expect(res.status).toBe(422);
  });
});
