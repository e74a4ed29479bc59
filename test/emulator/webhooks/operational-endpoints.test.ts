/**
 * Operational endpoints over HTTP: validation entries, create/list/read/delete,
 * project and workspace-wide scopes, no update.
 */
import { describe, expect, it } from "vitest";
import { control, useEmulator } from "../../support/emulator";
import { expectError, expectValidation, newWorkspace, wh } from "./endpoints-support";

describe("operational endpoints", () => {
  const emu = useEmulator();

  it("validation: webhooks.url_not_https on url and webhooks.unknown_operational_event_type on each unknown name", async () => {
    const ws = await newWorkspace(emu());
    const res = await wh(emu(), "POST", "/v1/operational-endpoints", { key: ws.webhooks.admin, body: { url: "http://ops.example.com/h", event_types: ["delivery.dead", "order.created", "quota.warning", "nope"] } });
    expectValidation(res, [
      { loc: ["body", "url"], type: "webhooks.url_not_https" },
      { loc: ["body", "event_types", 1], type: "webhooks.unknown_operational_event_type" },
      { loc: ["body", "event_types", 3], type: "webhooks.unknown_operational_event_type" },
    ]);
  });

  it("create (default project), read, list with workspace-wide ones, delete; no update", async () => {
    const ws = await newWorkspace(emu());
    const p2 = await control<{ id: string }>(emu(), "POST", "/projects", { workspace_id: ws.workspace_id, name: "p2" });
    const create = (body: Record<string, unknown>) => wh(emu(), "POST", "/v1/operational-endpoints", { key: ws.webhooks.admin, body: { url: "https://ops.example.com/h", event_types: ["delivery.dead"], ...body } });
    const inDefault = await create({ description: "pager" });
    expect(inDefault.status).toBe(201);
    expect(inDefault.body).toMatchObject({ url: "https://ops.example.com/h", event_types: ["delivery.dead"], project_id: ws.project_id, description: "pager" });
    expect(Object.keys(inDefault.body).sort()).toEqual(["created_at", "description", "event_types", "id", "project_id", "url"]);
    const wide = await create({ project_id: null, event_types: ["quota.warning", "usage.threshold_reached"] });
    expect(wide.body.project_id).toBeNull();
    const inP2 = await create({ project_id: p2.id });

    const listP2 = await wh(emu(), "GET", `/v1/operational-endpoints?project_id=${p2.id}`, { key: ws.webhooks.read });
    expect(listP2.body.data.map((o: any) => o.id).sort()).toEqual([wide.body.id, inP2.body.id].sort());
    expect((await wh(emu(), "GET", "/v1/operational-endpoints", { key: ws.webhooks.read })).body.total).toBe(3);

    const read = await wh(emu(), "GET", `/v1/operational-endpoints/${inDefault.body.id}`, { key: ws.webhooks.read });
    expect(read.body).toEqual(inDefault.body);
    expect((await wh(emu(), "PATCH", `/v1/operational-endpoints/${inDefault.body.id}`, { key: ws.webhooks.admin, body: { url: "https://x.example" } })).status).toBe(405);
    expect((await wh(emu(), "DELETE", `/v1/operational-endpoints/${inDefault.body.id}`, { key: ws.webhooks.admin })).status).toBe(204);
    expectError(await wh(emu(), "GET", `/v1/operational-endpoints/${inDefault.body.id}`, { key: ws.webhooks.read }), 404, "not_found", { reason: "operational_endpoint", id: inDefault.body.id });
  });

  it("another workspace's operational endpoint is 404; a read key cannot create", async () => {
    const ws = await newWorkspace(emu());
    const other = await newWorkspace(emu());
    const res = await wh(emu(), "POST", "/v1/operational-endpoints", { key: other.webhooks.admin, body: { url: "https://ops.example.com", event_types: ["endpoint.enabled"] } });
    expectError(await wh(emu(), "GET", `/v1/operational-endpoints/${res.body.id}`, { key: ws.webhooks.read }), 404, "not_found", { reason: "operational_endpoint", id: res.body.id });
    expectError(await wh(emu(), "POST", "/v1/operational-endpoints", { key: ws.webhooks.read, body: { url: "https://ops.example.com", event_types: ["endpoint.enabled"] } }), 403, "forbidden", { reason: "scope", required: "admin" });
  });
});
