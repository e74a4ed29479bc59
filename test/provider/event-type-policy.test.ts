/**
 * The EventTypePolicy resource against the emulator over HTTP: take-over (read, then
 * one PUT) keeping what was found, a change is exactly one PUT, a no-op no write,
 * delete puts the previous value back (a project that inherited gets the workspace's
 * value), refresh shows a change made by someone else, and publishing obeys it.
 */
import { afterAll, beforeEach, describe, expect, it, vi } from "vitest";
import { closeSharedDispatcher, providers } from "../../provider";
import { WORKSPACE_KEY } from "../../provider/engine/internal-keys";
import { control, useEmulator } from "../support/emulator";
import { configure, Driver, useWorkspace, type Workspace } from "./support";

const provider = providers["webhooks:EventTypePolicy"]!;
const emu = useEmulator();
const d = () => new Driver(emu(), provider);
afterAll(() => closeSharedDispatcher());

let ws: Workspace;
beforeEach(async () => {
  ws = await useWorkspace(emu(), provider);
});

const policyOf = async (projectId?: string) =>
  (await d().raw("GET", `/v1/event-types/policy${projectId ? `?project_id=${projectId}` : ""}`, ws.webhooks.admin)).body as { policy: string; inherited: boolean };

describe("EventTypePolicy: workspace", () => {
  it("create reads the policy found, then one PUT; outputs keep what was found", async () => {
    const { calls, result } = await d().calls(() => d().create({ policy: "strict" }));
    // auth/me: preview asks (once) whether the key is confined to a project, which cannot set the workspace's policy.
    expect(calls).toEqual(["GET /v1/event-types/policy", "PUT /v1/event-types/policy"]);
    expect(result.id).toBe("workspace");
    expect(result.outs).toMatchObject({ policy: "strict", projectId: null, inherited: false, previous: { policy: "lenient", inherited: false } });
    expect((await policyOf()).policy).toBe("strict");
  });

  it("a policy change is exactly one PUT; a no-op is no write", async () => {
    const { id, outs } = await d().create({ policy: "strict" });
    const same = await d().calls(() => d().update(id, outs, { policy: "strict" }));
    expect(same.writes).toEqual([]);
    const change = await d().calls(() => d().update(id, outs, { policy: "lenient" }));
    expect(change.calls).toEqual(["PUT /v1/event-types/policy"]);
    expect(change.result.outs).toMatchObject({ policy: "lenient", previous: { policy: "lenient", inherited: false } });
  });

  it("delete puts the previous value back (one PUT)", async () => {
    await d().raw("PUT", "/v1/event-types/policy", ws.webhooks.admin, { policy: "strict" });
    const { id, outs } = await d().create({ policy: "lenient" });
    expect(outs.previous).toEqual({ policy: "strict", inherited: false });
    const { writes } = await d().calls(() => provider.delete!(id, outs));
    expect(writes).toEqual(["PUT /v1/event-types/policy"]);
    expect((await policyOf()).policy).toBe("strict");
  });

  it("delete leaves a policy someone changed since (another stack, a person): no write, a warning naming both values", async () => {
    // As a second stack's take-over: it finds the first one's write.
    await d().raw("PUT", "/v1/event-types/policy", ws.webhooks.admin, { policy: "strict" });
    const { id, outs } = await d().create({ policy: "strict" });
    expect(outs.previous).toEqual({ policy: "strict", inherited: false });
    await d().raw("PUT", "/v1/event-types/policy", ws.webhooks.admin, { policy: "lenient" });
    const warned: string[] = [];
    const stderr = vi.spyOn(process.stderr, "write").mockImplementation((chunk) => (warned.push(String(chunk)), true));
    try {
      expect((await d().calls(() => provider.delete!(id, outs))).writes).toEqual([]);
    } finally {
      stderr.mockRestore();
    }
    expect((await policyOf()).policy).toBe("lenient");
    expect(warned.join("")).toContain('policy holds "lenient", not what this resource wrote, and would have been put back to "strict"');
  });

  it("refresh shows a change made by someone else; the next up puts it back with one PUT", async () => {
    const { id, outs } = await d().create({ policy: "strict" });
    await d().raw("PUT", "/v1/event-types/policy", ws.webhooks.admin, { policy: "lenient" });
    const read = await provider.read!(id, outs);
    expect(read.inputs).toMatchObject({ policy: "lenient" });
    expect(read.props).toMatchObject({ policy: "lenient", previous: { policy: "lenient", inherited: false } });
    const { writes } = await d().calls(() => d().update(id, read.props!, { policy: "strict" }));
    expect(writes).toEqual(["PUT /v1/event-types/policy"]);
  });

  it("a Resource.get-style read (nothing kept) deletes without writing", async () => {
    const read = await provider.read!("workspace", {});
    expect(read.props).toMatchObject({ policy: "lenient", previous: null });
    const { writes } = await d().calls(() => provider.delete!("workspace", read.props!));
    expect(writes).toEqual([]);
  });
});

describe("EventTypePolicy: project", () => {
  it("a project's override: the inherited value is kept, and delete gives the project the workspace's value again", async () => {
    const { id, outs } = await d().create({ policy: "strict", projectId: ws.project_id });
    expect(id).toBe(`project/${ws.project_id}`);
    expect(outs).toMatchObject({ policy: "strict", projectId: ws.project_id, inherited: false, previous: { policy: "lenient", inherited: true } });
    expect(await policyOf(ws.project_id)).toMatchObject({ policy: "strict", inherited: false });
    expect((await policyOf()).policy).toBe("lenient"); // the workspace value is untouched
    const { calls } = await d().calls(() => provider.delete!(id, outs));
    // The project's policy (still this resource's write?), the workspace's (what it would inherit), then the override.
    expect(calls).toEqual(["GET /v1/event-types/policy", "GET /v1/event-types/policy", "PUT /v1/event-types/policy"]);
    expect((await policyOf(ws.project_id)).policy).toBe("lenient");
  });

  it("strict for a project refuses an unregistered type there, not elsewhere", async () => {
    const other = await control(emu(), "POST", "/projects", { workspace_id: ws.workspace_id, name: "other" });
    await d().create({ policy: "strict", projectId: ws.project_id });
    const refused = await d().raw("POST", "/v1/events", ws.webhooks.admin, { event_type: "nobody.knows", payload: {}, project_id: ws.project_id });
    expect(refused.status).toBe(422);
    expect(refused.body.error.code).toBe("unknown_event_type");
    const accepted = await d().raw("POST", "/v1/events", ws.webhooks.admin, { event_type: "nobody.knows", payload: {}, project_id: other.id });
    expect(accepted.status).toBe(201);
  });

  it("projectId change replaces, creating first; a profile change keeps the scope and deletes first", async () => {
    const { id, outs } = await d().create({ policy: "strict", projectId: ws.project_id });
    const diff = async (news: Record<string, unknown>) => provider.diff!(id, outs, (await d().check(news)).inputs);
    expect(await diff({ policy: "strict" })).toEqual({ changes: true, diffs: ["projectId"], replaces: ["projectId"], deleteBeforeReplace: false });
    expect(await diff({ policy: "strict", projectId: ws.project_id, profile: "other" })).toEqual({ changes: true, diffs: ["profile"], replaces: ["profile"], deleteBeforeReplace: true });
  });

  it("a replacement in the scope (a profile change: deleted first, as the engine orders it) keeps what the first take-over found", async () => {
    const { id, outs } = await d().create({ policy: "strict" });
    await configure(provider, { "svc:webhooksUrl": emu().webhooksUrl, "svc:webhooksApiKey": ws.webhooks.admin, "svc:profiles": JSON.stringify({ other: { webhooksUrl: emu().webhooksUrl, webhooksApiKey: ws.webhooks.admin } }) });
    const news = { policy: "strict", profile: "other" };
    expect(await provider.diff!(id, outs, (await d().check(news, outs)).inputs)).toMatchObject({ replaces: ["profile"], deleteBeforeReplace: true });
    // The engine's second Check of a replacement has no old inputs, and comes before the old one's delete.
    const inputs = await d().checked(news);
    await provider.delete!(id, outs);
    const replaced = await provider.create(inputs);
    expect(replaced.outs).toMatchObject({ policy: "strict", previous: { policy: "lenient", inherited: false } });
    await provider.delete!(replaced.id, replaced.outs);
    expect((await policyOf()).policy).toBe("lenient");
  });

  it("an unknown policy fails the preview; a project that is gone drops the resource on refresh", async () => {
    const checked = await d().check({ policy: "loose" });
    expect(checked.failures).toEqual([{ property: "policy", reason: expect.stringMatching(/enum/) }]);
    // The state records the workspace (engine/reach.ts): a 404 to a key of it is gone.
    expect(await provider.read!("project/proj_gone", { policy: "strict", projectId: "proj_gone", [WORKSPACE_KEY]: ws.workspace_id })).toEqual({});
  });
});
