/**
 * The program-side functions over Webhooks (getAuthMe, getEventTypePolicy,
 * getEventTypes, getSource(s), getDeliveries) against the emulator: plain camelCase
 * data, every page walked, filters passed, no secret returned.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { closeSharedDispatcher } from "../../provider";
import * as svc from "../../sdk";
import { call, control, useEmulator } from "../support/emulator";
import { Driver, type Workspace } from "./support";

const emu = useEmulator();
let ws: Workspace;
const raw = (method: string, path: string, body?: unknown) => call(emu(), method, `/webhooks${path}`, { key: ws.webhooks.admin, body });
const d = () => new Driver(emu(), {} as never);

beforeAll(async () => {
  ws = await control<Workspace>(emu(), "POST", "/workspaces", { plan: "pro" });
  process.env.SVC_WEBHOOKS_URL = emu().webhooksUrl;
  process.env.SVC_WEBHOOKS_API_KEY = ws.webhooks.admin;
});
afterAll(async () => {
  delete process.env.SVC_WEBHOOKS_URL;
  delete process.env.SVC_WEBHOOKS_API_KEY;
  await closeSharedDispatcher();
});

describe("Webhooks functions (program process)", () => {
  it("getAuthMe: scope and workspace", async () => {
    expect(await svc.webhooks.getAuthMe()).toMatchObject({ scope: "admin", workspaceId: ws.workspace_id, email: null, createdAt: null });
  });

  it("getEventTypePolicy: the workspace's, and a project's with inherited", async () => {
    await raw("PUT", "/v1/event-types/policy", { policy: "strict" });
    expect(await svc.webhooks.getEventTypePolicy()).toEqual({ policy: "strict", projectId: null, inherited: false });
    expect(await svc.webhooks.getEventTypePolicy({ projectId: ws.project_id })).toEqual({ policy: "strict", projectId: ws.project_id, inherited: true });
    await raw("PUT", "/v1/event-types/policy", { policy: "lenient" });
  });

  it("getEventTypes walks every page; a project's catalog includes workspace-wide entries", async () => {
    for (let i = 0; i < 205; i++) await raw("POST", "/v1/event-types", { name: `bulk.${String(i).padStart(3, "0")}` });
    await raw("POST", "/v1/event-types", { name: "proj.only", project_id: ws.project_id, payload_schema: { type: "object" } });
    const { result, calls } = await d().calls(() => svc.webhooks.getEventTypes({ projectId: ws.project_id }));
    expect(calls).toEqual(["GET /v1/event-types", "GET /v1/event-types"]);
    expect(result).toHaveLength(206);
    expect(result.find((e) => e.name === "proj.only")).toMatchObject({ projectId: ws.project_id, payloadSchema: { type: "object" }, origin: "manual" });
    expect(result.find((e) => e.name === "bulk.000")).toMatchObject({ projectId: null, description: null });
  });

  it("getSource / getSources: camelCase, no secret", async () => {
    const a = await raw("POST", "/v1/sources", { provider: "generic", name: "a" });
    await raw("POST", "/v1/sources", { provider: "payments", secret: "pay-secret-q1", name: "b" });
    const all = await svc.webhooks.getSources({ projectId: ws.project_id });
    expect(all.map((s) => s.name).sort()).toEqual(["a", "b"]);
    const one = await svc.webhooks.getSource({ id: a.body.id });
    expect(one).toMatchObject({ id: a.body.id, provider: "generic", captureEnabled: false, status: "enabled", ingestUrl: a.body.ingest_url });
    expect(JSON.stringify(all)).not.toMatch(/pay-secret-q1|whsec_/);
    await expect(svc.webhooks.getSource({ id: "src_missing" })).rejects.toThrow(/404/);
  });

  it("getDeliveries: filters by endpoint, type and status", async () => {
    const ep = await raw("POST", "/v1/endpoints", { url: "https://d.example.com/in", subscriptions: [{ event_type: "order.*" }] });
    for (const t of ["order.created", "order.paid", "other.x"]) await raw("POST", "/v1/events", { event_type: t, payload: {} });
    const all = await svc.webhooks.getDeliveries({ endpointId: ep.body.id });
    expect(all.map((x) => x.eventType).sort()).toEqual(["order.created", "order.paid"]);
    expect(all[0]).toMatchObject({ endpointId: ep.body.id, projectId: ws.project_id });
    expect(await svc.webhooks.getDeliveries({ endpointId: ep.body.id, eventType: "order.paid" })).toHaveLength(1);
    expect(await svc.webhooks.getDeliveries({ endpointId: ep.body.id, status: "dead" })).toEqual([]);
  });
});
