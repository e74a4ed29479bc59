/**
 * Issue 16: a project-confined Webhooks key reaches only its own project's objects; it
 * reads the workspace-wide entries its project's listings include, and every change to
 * workspace-wide state is 403 `forbidden`, `details.reason` = `project_confined`.
 */
import { describe, expect, it } from "vitest";
import { control, useEmulator } from "../../support/emulator";
import { expectError, newWorkspace, wh } from "./endpoints-support";

describe("a project-confined Webhooks key and workspace-wide state", () => {
  const emu = useEmulator();

  async function confinedSetup() {
    const ws = await newWorkspace(emu());
    const project = await control<{ id: string }>(emu(), "POST", "/projects", { workspace_id: ws.workspace_id, name: "team" });
    const { key } = await control<{ key: string }>(emu(), "POST", "/keys", { product: "webhooks", scope: "admin", workspace_id: ws.workspace_id, project_id: project.id });
    return { ws, project, key };
  }

  it("PATCH /v1/workspace: 403 project_confined, settings unchanged; GET is allowed", async () => {
    const { ws, key } = await confinedSetup();
    const before = await wh(emu(), "GET", "/v1/workspace", { key });
    expect(before.status).toBe(200);
    expectError(await wh(emu(), "PATCH", "/v1/workspace", { key, body: { endpoint_verification: "required" } }), 403, "forbidden", { reason: "project_confined" });
    expectError(await wh(emu(), "PATCH", "/v1/workspace", { key, body: {} }), 403, "forbidden", { reason: "project_confined" });
    expect((await wh(emu(), "GET", "/v1/workspace", { key: ws.webhooks.admin })).body).toEqual(before.body);
  });

  it("the workspace-wide event type policy: PUT without project_id is 403 project_confined and changes nothing", async () => {
    const { ws, project, key } = await confinedSetup();
    expectError(await wh(emu(), "PUT", "/v1/event-types/policy", { key, body: { policy: "strict" } }), 403, "forbidden", { reason: "project_confined" });
    expect((await wh(emu(), "GET", "/v1/event-types/policy", { key: ws.webhooks.admin })).body.policy).toBe("lenient");
    // Its own project's override is its to set, and leaves the workspace's value alone.
    expect((await wh(emu(), "PUT", `/v1/event-types/policy?project_id=${project.id}`, { key, body: { policy: "strict" } })).status).toBe(200);
    expect((await wh(emu(), "GET", "/v1/event-types/policy", { key: ws.webhooks.admin })).body.policy).toBe("lenient");
  });

  it("workspace-wide event types: listed and read, but registering or deleting one is 403 project_confined", async () => {
    const { ws, key } = await confinedSetup();
    await wh(emu(), "POST", "/v1/event-types", { key: ws.webhooks.admin, body: { name: "shared.type" } });
    expect((await wh(emu(), "GET", "/v1/event-types", { key })).body.data.map((e: { name: string }) => e.name)).toContain("shared.type");
    expectError(await wh(emu(), "DELETE", "/v1/event-types/shared.type", { key }), 403, "forbidden", { reason: "project_confined" });
    expectError(await wh(emu(), "POST", "/v1/event-types", { key, body: { name: "other.type", project_id: null } }), 403, "forbidden", { reason: "project_confined" });
    expect((await wh(emu(), "GET", "/v1/event-types", { key: ws.webhooks.admin })).body.data.map((e: { name: string }) => e.name)).toEqual(["shared.type"]);
  });

  it("workspace-wide operational endpoints: listed and read, but creating or deleting one is 403 project_confined", async () => {
    const { ws, project, key } = await confinedSetup();
    const wide = await wh(emu(), "POST", "/v1/operational-endpoints", { key: ws.webhooks.admin, body: { url: "https://ops.example.com/h", event_types: ["delivery.dead"], project_id: null } });
    expect(wide.status).toBe(201);
    expect(wide.body.project_id).toBeNull();
    expect((await wh(emu(), "GET", `/v1/operational-endpoints/${wide.body.id}`, { key })).status).toBe(200);
    expect((await wh(emu(), "GET", `/v1/operational-endpoints?project_id=${project.id}`, { key })).body.data.map((o: { id: string }) => o.id)).toEqual([wide.body.id]);
    expectError(await wh(emu(), "DELETE", `/v1/operational-endpoints/${wide.body.id}`, { key }), 403, "forbidden", { reason: "project_confined" });
    expectError(await wh(emu(), "POST", "/v1/operational-endpoints", { key, body: { url: "https://ops.example.com/2", event_types: ["delivery.dead"], project_id: null } }), 403, "forbidden", { reason: "project_confined" });
    expect((await wh(emu(), "GET", `/v1/operational-endpoints/${wide.body.id}`, { key: ws.webhooks.admin })).status).toBe(200);
    // Its own project's subscriptions are its to create and delete.
    const own = await wh(emu(), "POST", "/v1/operational-endpoints", { key, body: { url: "https://ops.example.com/3", event_types: ["delivery.dead"] } });
    expect(own.body.project_id).toBe(project.id);
    expect((await wh(emu(), "DELETE", `/v1/operational-endpoints/${own.body.id}`, { key })).status).toBe(204);
  });

  it("another project's objects stay invisible (404), as before", async () => {
    const { ws, key } = await confinedSetup();
    const other = await wh(emu(), "POST", "/v1/operational-endpoints", { key: ws.webhooks.admin, body: { url: "https://ops.example.com/o", event_types: ["delivery.dead"], project_id: ws.project_id } });
    expectError(await wh(emu(), "DELETE", `/v1/operational-endpoints/${other.body.id}`, { key }), 404, "not_found", { reason: "operational_endpoint", id: other.body.id });
  });
});

