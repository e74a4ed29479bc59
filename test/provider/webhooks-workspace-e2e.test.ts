/**
 * examples/webhooks-workspace end to end through the engine stand-in (test/engine),
 * the real program runtime and the real dynamic-provider plugin loading dist/:
 * preview (no write, one catalog listing per scope), up, publishing through the
 * emulator obeys what was declared (strict policy, schemas, subscriptions, ingest
 * signed with the declared secret), an edit of a schema (replace, deleting first), a
 * preview failing on an existing event type name and on an unsafe schema, refresh
 * after an out-of-band policy change, and destroy leaving the workspace as it was
 * (policy and settings restored). No secret in plaintext in state or output.
 */
import { createHmac } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import type { EngineResult } from "../support/run-types";
import { describeWithCli } from "../support/cli-suite";
import { runCli } from "../support/pulumi-cli";
import { emulatorStack } from "../support/stack-config";
import { call, control, lastSeq, requestsSince, useEmulator } from "../support/emulator";
import type { Workspace } from "./support";

const program = resolve(__dirname, "../../examples/webhooks-workspace");
const PAYMENTS_SECRET = "pay-signing-secret-e2e-91b7";

const emu = useEmulator();
let ws: Workspace;
let dir: string;
let before: { workspace: unknown; policy: unknown; projectPolicy: unknown };
const stateFile = () => join(dir, "dev.json");

const api = (method: string, path: string, body?: unknown, headers?: Record<string, string>) => call(emu(), method, `/webhooks${path}`, { key: ws.webhooks.admin, body, headers });

async function snapshot() {
  return {
    workspace: (await api("GET", "/v1/workspace")).body,
    policy: (await api("GET", "/v1/event-types/policy")).body,
    projectPolicy: (({ policy }) => ({ policy }))((await api("GET", `/v1/event-types/policy?project_id=${ws.project_id}`)).body),
  };
}

beforeAll(async () => {
  ws = await control<Workspace>(emu(), "POST", "/workspaces", { plan: "pro" });
  dir = mkdtempSync(join(tmpdir(), "svc-webhooks-ws-"));
  before = await snapshot();
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function run(verb: "preview" | "up" | "refresh" | "destroy", config: Record<string, string> = {}) {
  return runCli({
    verb,
    cwd: program,
    stack: "dev",
    stateFile: stateFile(),
    ...emulatorStack(emu(), { webhooks: ws.webhooks.admin }, { config: { productionProjectId: ws.project_id, ...config }, secrets: { paymentsSigningSecret: PAYMENTS_SECRET } }),
  });
}

const errorsOf = (r: EngineResult) => r.diagnostics.filter((d) => d.severity === "error").map((d) => d.message).join("\n");
const opsOf = (r: EngineResult) => Object.fromEntries(r.steps.filter((s) => s.type.includes("svc/webhooks")).map((s) => [s.name, s.op]));

async function during<T>(fn: () => Promise<T>) {
  const since = await lastSeq(emu());
  const result = await fn();
  const log = (await requestsSince(emu(), since)) as { method: string; path: string; query?: string }[];
  const calls = log.map((r) => `${r.method} ${r.path.replace(/^\/webhooks/, "")}${r.query ? `?${r.query}` : ""}`);
  return { result, calls, writes: calls.filter((c) => !c.startsWith("GET ")) };
}

const seen: string[] = [];
let generatedSecret: string | undefined;

/** No key, no payments secret, no generated source secret in plaintext. */
function expectNoPlaintextSecrets(text: string) {
  expect(text).not.toContain(ws.webhooks.admin);
  expect(text).not.toContain(PAYMENTS_SECRET);
  if (generatedSecret) expect(text).not.toContain(generatedSecret);
  expect(text).not.toMatch(/whsec_[A-Za-z0-9+/=]{8,}/);
}

const ALL = ["order-created", "order-shipped", "invoice-paid", "production-strict", "settings", "orders", "billing", "payments", "partners", "on-call"];

describeWithCli("examples/webhooks-workspace end to end", () => {
  it("preview: every resource planned, no write, at most one catalog listing per scope", async () => {
    const { result: r, calls, writes } = await during(() => run("preview"));
    expect(r.ok, errorsOf(r)).toBe(true);
    expect(opsOf(r)).toEqual(Object.fromEntries(ALL.map((n) => [n, "create"])));
    expect(writes).toEqual([]);
    const listings = calls.filter((c) => c.startsWith("GET /v1/event-types?"));
    expect(listings.sort()).toEqual([`GET /v1/event-types?project_id=${ws.project_id}&limit=200&offset=0`, "GET /v1/event-types?limit=200&offset=0"].sort());
    seen.push(JSON.stringify(r));
  });

  it("up: creates everything; ingest URLs exported, the generated secret only as a secret", async () => {
    const { result: r } = await during(() => run("up"));
    expect(r.ok, errorsOf(r)).toBe(true);
    expect(opsOf(r)).toEqual(Object.fromEntries(ALL.map((n) => [n, "create"])));
    expect(r.outputs.paymentsIngestUrl).toMatch(new RegExp(`^${emu().webhooksUrl}/v1/ingest/src_`));
    expect(r.outputs.partnersIngestUrl).toMatch(/\/v1\/ingest\/src_/);
    expect(r.outputs.partnersSigningSecret).toBe("[secret]");
    expect(r.outputs.eventTypeIds).toEqual([`project/${ws.project_id}/order.created`, `project/${ws.project_id}/order.shipped`, "workspace/invoice.paid"]);
    const partnersId = String(r.outputs.partnersIngestUrl).split("/").pop()!;
    generatedSecret = (await control<{ secret: string }>(emu(), "GET", `/webhooks/sources/${partnersId}/secret`)).secret;
    expect(generatedSecret).toMatch(/^whsec_/);
    expect((await api("GET", `/v1/event-types/policy?project_id=${ws.project_id}`)).body).toMatchObject({ policy: "strict", inherited: false });
    expect((await api("GET", "/v1/workspace")).body.endpoint_verification).toBe("required");
    seen.push(JSON.stringify(r));
  });

  it("a second up is no change and no write", async () => {
    const { result: r, writes } = await during(() => run("up"));
    expect(r.ok, errorsOf(r)).toBe(true);
    expect(new Set(Object.values(opsOf(r)))).toEqual(new Set(["same"]));
    expect(writes).toEqual([]);
  });

  it("publishing obeys the program: strict refuses an unregistered type, schemas refuse bad payloads, endpoints get what their patterns match", async () => {
    const publish = (event_type: string, payload: unknown) => api("POST", "/v1/events", { event_type, payload, project_id: ws.project_id });
    const unknown = await publish("order.cancelled", { id: "ord_1" });
    expect(unknown.status).toBe(422);
    expect(unknown.body.error).toMatchObject({ code: "unknown_event_type", details: { event_type: "order.cancelled" } });
    const bad = await publish("order.created", { id: "not-an-order-id" });
    expect(bad.status).toBe(422);
    expect(bad.body.error).toMatchObject({ code: "invalid_payload", details: { reason: "payload" } });
    expect((await publish("order.created", { id: "ord_1", total: 12.5, currency: "EUR" })).status).toBe(201);
    expect((await publish("order.shipped", { id: "ord_1", carrier: "dhl" })).status).toBe(201);
    // The payments provider's webhook, signed with the secret the program declared.
    const body = JSON.stringify({ type: "invoice.paid", id: "in_1", amount: 1250 });
    const sig = `sha256=${createHmac("sha256", PAYMENTS_SECRET).update(body).digest("hex")}`;
    const paymentsId = String((await snapshotOutputs()).paymentsIngestUrl).split("/").pop()!;
    const ingested = await call(emu(), "POST", `/webhooks/v1/ingest/${paymentsId}`, { raw: body, headers: { "content-type": "application/json", "x-webhook-signature": sig, "x-webhook-id": "evt_pay_1" } });
    expect(ingested.status).toBe(202);
    expect(ingested.body).toMatchObject({ outcome: "accepted", event_type: "invoice.paid" });
    const outs = await snapshotOutputs();
    const typesOf = async (endpointId: unknown) => ((await api("GET", `/v1/deliveries?endpoint_id=${String(endpointId)}`)).body.data as { event_type: string }[]).map((d) => d.event_type).sort();
    expect(await typesOf(outs.ordersEndpointId)).toEqual(["order.created", "order.shipped"]);
    expect(await typesOf(outs.billingEndpointId)).toEqual(["invoice.paid"]);
  });

  it("a preview fails on an event type name that already exists in that scope, saying how to adopt it, and writes nothing", async () => {
    await api("POST", "/v1/event-types", { name: "order.refunded", project_id: ws.project_id, description: "by hand" });
    const { result: r, writes } = await during(() => run("preview", { extraEventType: "order.refunded" }));
    expect(r.ok).toBe(false);
    expect(errorsOf(r)).toMatch(/"order.refunded" is already registered in project .*event_type_exists.*adoptExisting: true/);
    expect(writes).toEqual([]);
    seen.push(JSON.stringify(r));
  });

  // One up carries the schema edit and the adoption: each replaces only its own event type.
  it("an edit of a schema replaces that event type, deleting it first; adoptExisting takes the existing name over; nothing else", async () => {
    const { result: r, writes } = await during(() => run("up", { orderCreatedRequired: "id,total,currency", extraEventType: "order.refunded", adoptExtra: "true" }));
    expect(r.ok, errorsOf(r)).toBe(true);
    const step = r.steps.find((s) => s.name === "order-created")!;
    expect(step).toMatchObject({ op: "replace", replaces: ["payloadSchema"], deleteBeforeReplace: true });
    expect(Object.entries(opsOf(r)).filter(([, op]) => op !== "same").sort()).toEqual([["extra", "create"], ["order-created", "replace"]]);
    // Each event type deleted, then registered (the adopted entry had a description, the program declares none: replaced);
    // a register before its delete would be refused (event_type_exists), so success tells the order.
    expect([...writes].sort()).toEqual([`DELETE /v1/event-types/order.created?project_id=${ws.project_id}`, `DELETE /v1/event-types/order.refunded?project_id=${ws.project_id}`, "POST /v1/event-types", "POST /v1/event-types"].sort());
    const entry = await api("GET", `/v1/event-types/order.created?project_id=${ws.project_id}`);
    expect(entry.body.payload_schema.required).toEqual(["id", "total", "currency"]);
    seen.push(JSON.stringify(r));
  });

  it("a preview fails on an unsafe schema pattern, naming the property and the API's reason", async () => {
    const { result: r, writes } = await during(() => run("preview", { orderCreatedRequired: "id,total,currency", extraEventType: "order.refunded", adoptExtra: "true", brokenSchema: "true" }));
    expect(r.ok).toBe(false);
    expect(errorsOf(r)).toMatch(/payloadSchema.*schema_pattern_unsafe, reason "nested_quantifier"/);
    expect(writes).toEqual([]);
  });

  it("refresh shows a policy changed by hand; the next up puts it back with one PUT", async () => {
    const config = { orderCreatedRequired: "id,total,currency", extraEventType: "order.refunded", adoptExtra: "true" };
    await api("PUT", `/v1/event-types/policy?project_id=${ws.project_id}`, { policy: "lenient" });
    const r = await run("refresh", config);
    expect(r.ok, errorsOf(r)).toBe(true);
    const step = r.steps.find((s) => s.name === "production-strict")!;
    expect(step.op).toBe("update");
    expect(step.diffs).toContain("policy");
    const { result: up, writes } = await during(() => run("up", config));
    expect(up.ok, errorsOf(up)).toBe(true);
    expect(writes).toEqual([`PUT /v1/event-types/policy?project_id=${ws.project_id}`]);
    seen.push(JSON.stringify(r), JSON.stringify(up));
  });

  it("destroy leaves the workspace as it was: policy and settings restored, nothing left", async () => {
    // The receivers answered: no delivery is pending (the service refuses to delete an endpoint with some).
    const outs = await snapshotOutputs();
    for (const id of [outs.ordersEndpointId, outs.billingEndpointId]) await control(emu(), "POST", `/webhooks/endpoints/${String(id)}/deliveries`, { to: "sent" });
    const r = await run("destroy", { orderCreatedRequired: "id,total,currency", extraEventType: "order.refunded", adoptExtra: "true" });
    expect(r.ok, errorsOf(r)).toBe(true);
    expect(await snapshot()).toEqual(before);
    for (const path of ["/v1/event-types", "/v1/sources", "/v1/endpoints", "/v1/operational-endpoints"]) {
      expect((await api("GET", path)).body.total, path).toBe(0);
    }
    seen.push(JSON.stringify(r));
  });

  it("no output of any run, nor the state file, holds a secret in plaintext", () => {
    expectNoPlaintextSecrets(seen.join("\n") + readFileSync(stateFile(), "utf8"));
  });
});

/** The stack outputs as the state file holds them (plain values only). */
async function snapshotOutputs(): Promise<Record<string, unknown>> {
  const state = JSON.parse(readFileSync(stateFile(), "utf8"));
  const stack = state.checkpoint.latest.resources.find((x: { type: string }) => x.type === "pulumi:pulumi:Stack");
  return stack.outputs;
}
