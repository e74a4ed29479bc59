/**
 * Every kind that can be replaced goes through a replacement under the engine
 * stand-in, which (as pulumi/pulumi's step generator, continueStepsFromDiff,
 * "recompute the default values") calls Check a second time with NO old inputs
 * once Diff says replace. A check that recognises its own object only through the
 * old inputs (an event type's name conflict, an inbox's allocation count) must not
 * fail there. Each test: up, change a field that forces a replacement, up again:
 * the run succeeds, and the service holds the new object only.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import type { EngineResult } from "../support/run-types";
import { describeWithCli } from "../support/cli-suite";
import { runCli } from "../support/pulumi-cli";
import { emulatorStack } from "../support/stack-config";
import { call, control, useEmulator } from "../support/emulator";
import type { Workspace } from "./support";

const PROGRAM = resolve(__dirname, "fixtures/replacements");
const emu = useEmulator();
let dir: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "svc-replacements-"));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Spec {
  kind: string;
  name: string;
  args: Record<string, unknown>;
}

/** One stack of the fixture program in a fresh workspace. */
async function stack(plan: "free" | "pro" = "pro") {
  const ws = await control<Workspace>(emu(), "POST", "/workspaces", { plan });
  const stateFile = join(dir, `${ws.workspace_id}.json`);
  const run = (verb: "preview" | "up", resources: Spec[], skipPreview = false) =>
    runCli({
      verb,
      skipPreview,
      cwd: PROGRAM,
      stack: "dev",
      stateFile,
      ...emulatorStack(emu(), { webhooks: ws.webhooks.admin, inboxes: ws.inboxes.admin, infra: ws.infra.admin }, { config: { "svc-replacements:resources": JSON.stringify(resources) } }),
    });
  return { ws, run };
}

const errorsOf = (r: EngineResult) => r.diagnostics.filter((d) => d.severity === "error").map((d) => d.message).join("\n");
const opOf = (r: EngineResult, name: string) => r.steps.find((s) => s.name === name)?.op;

/** up with `before`, then up with `after` (which previews first): the second run replaces `name`. */
async function replaces(before: Spec, after: Spec, plan: "free" | "pro" = "pro") {
  const { ws, run } = await stack(plan);
  const first = await run("up", [before], true);
  expect(first.ok, errorsOf(first)).toBe(true);
  const second = await run("up", [after]);
  expect(second.ok, errorsOf(second)).toBe(true);
  expect(opOf(second, after.name)).toBe("replace");
  return { ws, first, second };
}

const list = async (path: string, key: string) => (await call<{ data: Record<string, unknown>[] }>(emu(), "GET", path, { key })).body.data;

// Each test runs the program three to five times; under load (8 helpers on 2 cores) that took up to 5 minutes.
describeWithCli("replacement under the engine's second Check (no old inputs)", () => {
  it("EventType: a description edit replaces the entry (delete first) instead of failing with event_type_exists", async () => {
    const schema = { type: "object", properties: { id: { type: "string" } } };
    const { ws } = await replaces(
      { kind: "webhooks.EventType", name: "order", args: { name: "order.created", description: "v1", payloadSchema: schema } },
      { kind: "webhooks.EventType", name: "order", args: { name: "order.created", description: "v2", payloadSchema: schema } },
    );
    const entries = (await list("/webhooks/v1/event-types", ws.webhooks.admin)).filter((e) => e.name === "order.created");
    expect(entries.map((e) => e.description)).toEqual(["v2"]);
  });

  it("EventType: a schema edit replaces the entry", async () => {
    const { ws } = await replaces(
      { kind: "webhooks.EventType", name: "paid", args: { name: "invoice.paid", payloadSchema: { type: "object" } } },
      { kind: "webhooks.EventType", name: "paid", args: { name: "invoice.paid", payloadSchema: { type: "object", required: ["id"] } } },
    );
    const entries = (await list("/webhooks/v1/event-types", ws.webhooks.admin)).filter((e) => e.name === "invoice.paid");
    expect(entries.map((e) => e.payload_schema)).toEqual([{ type: "object", required: ["id"] }]);
  });

  it("EventType: a new entry whose name is taken still fails at preview (the conflict check is kept)", async () => {
    const { ws, run } = await stack();
    await call(emu(), "POST", "/webhooks/v1/event-types", { key: ws.webhooks.admin, body: { name: "taken.name" } });
    const r = await run("preview", [{ kind: "webhooks.EventType", name: "t", args: { name: "taken.name" } }]);
    expect(r.ok).toBe(false);
    expect(errorsOf(r)).toContain("event_type_exists");
  });

  it("Source: a provider change replaces it", async () => {
    const { ws } = await replaces(
      { kind: "webhooks.Source", name: "src", args: { provider: "generic", name: "in" } },
      { kind: "webhooks.Source", name: "src", args: { provider: "payments", name: "in", secret: "whsec_test_payments_1" } },
    );
    expect((await list("/webhooks/v1/sources", ws.webhooks.admin)).map((s) => s.provider)).toEqual(["payments"]);
  });

  it("Endpoint: a project change replaces it", async () => {
    const { ws, run } = await stack();
    const other = await control<{ id: string }>(emu(), "POST", "/projects", { workspace_id: ws.workspace_id, name: "other" });
    const ep = (projectId: string): Spec => ({ kind: "webhooks.Endpoint", name: "ep", args: { url: "https://ep.example.com/in", projectId } });
    expect((await run("up", [ep(ws.project_id)], true)).ok).toBe(true);
    const r = await run("up", [ep(other.id)]);
    expect(r.ok, errorsOf(r)).toBe(true);
    expect(opOf(r, "ep")).toBe("replace");
    const projects = (await list("/webhooks/v1/endpoints", ws.webhooks.admin)).map((e) => e.project_id);
    expect(projects).toEqual([other.id]);
  });

  it("OperationalEndpoint: a URL change replaces it", async () => {
    const { ws } = await replaces(
      { kind: "webhooks.OperationalEndpoint", name: "ops", args: { url: "https://ops.example.com/a", eventTypes: ["delivery.dead"] } },
      { kind: "webhooks.OperationalEndpoint", name: "ops", args: { url: "https://ops.example.com/b", eventTypes: ["delivery.dead"] } },
    );
    expect((await list("/webhooks/v1/operational-endpoints", ws.webhooks.admin)).map((e) => e.url)).toEqual(["https://ops.example.com/b"]);
  });

  it("Inbox: a transport change replaces it, its new bin counted once against the plan's allocation", async () => {
    // Free plan: 3 request bins. With 2 live, the replacement's bin is the third: allowed.
    const { ws, run } = await stack("free");
    for (let i = 0; i < 2; i++) await call(emu(), "POST", "/inboxes/v1/inboxes", { key: ws.inboxes.admin, body: { transport: "http" } });
    expect((await run("up", [{ kind: "inboxes.Inbox", name: "box", args: { transport: "email" } }], true)).ok).toBe(true);
    const r = await run("up", [{ kind: "inboxes.Inbox", name: "box", args: { transport: "http" } }]);
    expect(r.ok, errorsOf(r)).toBe(true);
    expect(opOf(r, "box")).toBe("replace");
    const live = await list("/inboxes/v1/inboxes", ws.inboxes.admin);
    expect(live.map((i) => i.transport)).toEqual(["http", "http", "http"]);
  });

  it("QuotaRequest: a region change replaces it (its own open request is no duplicate)", async () => {
    const { ws } = await replaces(
      { kind: "infra.QuotaRequest", name: "qr", args: { service: "compute", region: "us-east-1", limits: { vms: 80 }, justification: "load tests" } },
      { kind: "infra.QuotaRequest", name: "qr", args: { service: "compute", region: "eu-west-1", limits: { vms: 80 }, justification: "load tests" } },
    );
    const open = (await call<{ items: { region: string }[] }>(emu(), "GET", "/infra/api/v1/quota-request/list?states=pending,needs_updates", { key: ws.infra.admin })).body.items;
    expect(open.map((r) => r.region)).toEqual(["eu-west-1"]);
  });
}, { timeout: 900_000 });
