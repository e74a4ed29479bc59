/**
 * Issue 16: a project-confined Webhooks key declaring workspace-wide state fails at
 * preview with the service's reason (project_confined), and the same declaration with
 * the project named passes; the emulator refuses the same changes with 403. (The same
 * refusal under the real CLI: confined-key-preview-cli.test.ts.)
 */
import { afterAll, beforeEach, describe, expect, it } from "vitest";
import { closeSharedDispatcher, providers } from "../../provider";
import { newOperation } from "../support/operation";
import { call, control, useEmulator } from "../support/emulator";
import { configure, confinedWorkspace, Driver, type Workspace } from "./support";

const emu = useEmulator();
afterAll(() => closeSharedDispatcher());

let ws: Workspace;
let project: string;
let confinedKey: string;

beforeEach(async () => {
  newOperation();
  ({ ws, project, confinedKey } = await confinedWorkspace(emu()));
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
    newOperation();
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

/**
 * Issue 25, item 9b's provider side: a confined key naming another project of the
 * workspace is 403 `forbidden`, reason `project` at the service; the preview says so
 * first, for every kind that takes a projectId, naming both projects and the fix.
 */
describe("a project-confined key naming another project, at preview", () => {
  const HOOK = "https://hooks.example.com/orders";
  const otherProject = () => ws.project_id;
  const named = (noun: string) => [{ property: "projectId", reason: expect.stringMatching(new RegExp(`confined to project ${project}, and this ${noun} names project ${otherProject()}.*reason project.*Set projectId to "${project}"`)) }];
  const kinds: [keyof typeof providers, string, Record<string, unknown>][] = [
    ["webhooks:Endpoint", "endpoint", { url: HOOK }],
    ["webhooks:Source", "source", { provider: "generic", name: "orders" }],
    ["webhooks:OperationalEndpoint", "operational endpoint", { url: HOOK, eventTypes: ["delivery.dead"] }],
    ["webhooks:EventType", "event type", { name: "order.created" }],
    ["webhooks:EventTypePolicy", "event type policy", { policy: "strict" }],
  ];

  it.each(kinds)("%s: fails naming both projects; its own project passes; a workspace key passes", async (kind, noun, inputs) => {
    expect(await checkWith(kind, confinedKey, { ...inputs, projectId: otherProject() })).toEqual(named(noun));
    expect(await checkWith(kind, confinedKey, { ...inputs, projectId: project })).toEqual([]);
    newOperation();
    expect(await checkWith(kind, ws.webhooks.admin, { ...inputs, projectId: otherProject() })).toEqual([]);
  });

  it("the service refuses the same create: 403 forbidden, reason project", async () => {
    const api = await call(emu(), "POST", "/webhooks/v1/endpoints", { key: confinedKey, body: { url: HOOK, project_id: otherProject() } });
    expect([api.status, api.body.error.code, api.body.error.details.reason]).toEqual([403, "forbidden", "project"]);
  });
});
