/**
 * Issue 16: a project-confined Webhooks key declaring workspace-wide state fails at
 * preview with the service's reason (project_confined), and the same declaration with
 * the project named passes; the emulator refuses the same changes with 403.
 */
import { afterAll, beforeEach, describe, expect, it } from "vitest";
import { closeSharedDispatcher, providers } from "../../provider";
import { clearReadCache } from "../../provider/engine/resource-provider";
import { call, control, useEmulator } from "../support/emulator";
import { configure, Driver, type Workspace } from "./support";

const emu = useEmulator();
afterAll(() => closeSharedDispatcher());

let ws: Workspace;
let project: string;
let confinedKey: string;

beforeEach(async () => {
  clearReadCache();
  ws = await control<Workspace>(emu(), "POST", "/workspaces", { plan: "pro" });
  project = (await control<{ id: string }>(emu(), "POST", "/projects", { workspace_id: ws.workspace_id, name: "team" })).id;
  confinedKey = (await control<{ key: string }>(emu(), "POST", "/keys", { product: "webhooks", scope: "admin", workspace_id: ws.workspace_id, project_id: project })).key;
});

async function checkWith(kind: keyof typeof providers, key: string, inputs: Record<string, unknown>) {
  const provider = providers[kind]!;
  await configure(provider, { "svc:webhooksUrl": emu().webhooksUrl, "svc:webhooksApiKey": key });
  return (await new Driver(emu(), provider).check(inputs)).failures;
}

const confined = (property: string) => [{ property, reason: expect.stringMatching(/confined to project .*project_confined/) }];

describe("a project-confined key at preview", () => {
  it("WorkspaceSettings: fails with project_confined; a workspace key passes; the service refuses the same PATCH", async () => {
    expect(await checkWith("webhooks:WorkspaceSettings", confinedKey, { endpointVerification: "required" })).toEqual(confined("endpointVerification"));
    clearReadCache();
    expect(await checkWith("webhooks:WorkspaceSettings", ws.webhooks.admin, { endpointVerification: "required" })).toEqual([]);
    const api = await call(emu(), "PATCH", "/webhooks/v1/workspace", { key: confinedKey, body: { endpoint_verification: "required" } });
    expect([api.status, api.body.error.details.reason]).toEqual([403, "project_confined"]);
  });

  it("EventTypePolicy with no projectId fails; with its project it passes", async () => {
    expect(await checkWith("webhooks:EventTypePolicy", confinedKey, { policy: "strict" })).toEqual(confined("projectId"));
    expect(await checkWith("webhooks:EventTypePolicy", confinedKey, { policy: "strict", projectId: project })).toEqual([]);
  });

  it("EventType with no projectId (workspace-wide) fails; with its project it passes", async () => {
    expect(await checkWith("webhooks:EventType", confinedKey, { name: "order.created" })).toEqual(confined("projectId"));
    expect(await checkWith("webhooks:EventType", confinedKey, { name: "order.created", projectId: project })).toEqual([]);
  });
});
