/**
 * The WorkspaceSettings resource against the emulator over HTTP: take-over (read,
 * one PATCH) keeping the value found, a change is one PATCH, a no-op no write,
 * delete PATCHes the previous value back (drift: test/lifecycle/contract.test.ts), and not_entitled for
 * optional_endpoint_verification explained (and predicted at preview from the plan).
 */
import { afterAll, beforeEach, describe, expect, it } from "vitest";
import { closeSharedDispatcher, providers } from "../../provider";
import { newOperation } from "../support/operation";
import { control, useEmulator } from "../support/emulator";
import { configure, Driver, useWorkspace, type Workspace } from "./support";

const provider = providers["webhooks:WorkspaceSettings"]!;
const emu = useEmulator();
const strictEmu = useEmulator({ plans: { free: { webhooks: { optional_endpoint_verification: false } } } } as never);
const d = () => new Driver(emu(), provider);
afterAll(() => closeSharedDispatcher());

let ws: Workspace;
beforeEach(async () => {
  newOperation();
  ws = await useWorkspace(emu(), provider);
});

const verification = async () => (await d().raw("GET", "/v1/workspace", ws.webhooks.admin)).body.endpoint_verification;

describe("WorkspaceSettings", () => {
  it("create reads, then one PATCH; delete PATCHes the previous value back", async () => {
    const { calls, result } = await d().calls(() => d().create({ endpointVerification: "required" }));
    // auth/me: preview asks (once) whether the key is confined to a project, which cannot change workspace settings.
    expect(calls).toEqual(["GET /v1/workspace", "PATCH /v1/workspace"]);
    expect(result.outs).toMatchObject({ endpointVerification: "required", workspaceId: ws.workspace_id, plan: "pro", previous: { endpointVerification: "optional" } });
    // The GET is the Check's: the value found is in the create's inputs (the engine's pending create), and a later Check keeps it.
    expect(result.inputs.__found).toEqual({ endpointVerification: "optional" });
    expect((await d().check({ endpointVerification: "required" }, result.inputs)).inputs.__found).toEqual({ endpointVerification: "optional" });
    expect(await verification()).toBe("required");
    const del = await d().calls(() => provider.delete!(result.id, result.outs));
    expect(del.writes).toEqual(["PATCH /v1/workspace"]);
    expect(await verification()).toBe("optional");
  });

  it("a change is one PATCH; a no-op no write", async () => {
    const { id, outs } = await d().create({ endpointVerification: "required" });
    expect((await d().calls(() => d().update(id, outs, { endpointVerification: "required" }))).writes).toEqual([]);
    const change = await d().calls(() => d().update(id, outs, { endpointVerification: "optional" }));
    expect(change.writes).toEqual(["PATCH /v1/workspace"]);
    expect(change.result.outs).toMatchObject({ endpointVerification: "optional", previous: { endpointVerification: "optional" } });
  });

  it("moved to a profile of another key of the workspace: replaced deleting first, so the declared value stays and the value found first is kept", async () => {
    const { id, outs } = await d().create({ endpointVerification: "required" });
    const other = (await control<{ key: string }>(emu(), "POST", "/keys", { product: "webhooks", scope: "admin", workspace_id: ws.workspace_id })).key;
    await configure(provider, { "svc:webhooksUrl": emu().webhooksUrl, "svc:webhooksApiKey": ws.webhooks.admin, "svc:profiles": JSON.stringify({ other: { webhooksUrl: emu().webhooksUrl, webhooksApiKey: other } }) });
    newOperation();
    const news = { endpointVerification: "required", profile: "other" };
    expect(await provider.diff!(id, outs, (await d().check(news, outs)).inputs)).toMatchObject({ replaces: ["profile"], deleteBeforeReplace: true });
    // As the engine orders a delete-first replacement: the second Check (no old inputs), the delete, the create.
    const inputs = await d().checked(news);
    await provider.delete!(id, outs);
    const replaced = await provider.create(inputs);
    expect(await verification()).toBe("required");
    expect(replaced.outs).toMatchObject({ endpointVerification: "required", previous: { endpointVerification: "optional" } });
    await provider.delete!(replaced.id, replaced.outs);
    expect(await verification()).toBe("optional");
  });

  it("renamed without an alias onto a profile of the same key: the old resource's delete (after the new one's take-over) leaves the setting as the new one declares", async () => {
    const old = await d().create({ endpointVerification: "required" });
    await configure(provider, { "svc:webhooksUrl": emu().webhooksUrl, "svc:webhooksApiKey": ws.webhooks.admin, "svc:profiles": JSON.stringify({ other: { webhooksUrl: emu().webhooksUrl, webhooksApiKey: ws.webhooks.admin } }) });
    newOperation();
    // The engine creates the new resource, then deletes the one the program no longer declares.
    await d().create({ endpointVerification: "required", profile: "other" });
    const del = await d().calls(() => provider.delete!(old.id, old.outs));
    expect(del.writes).toEqual([]);
    expect(await verification()).toBe("required");
  });

  it("two resources of one program on the workspace's settings fail the preview naming each other (adv14c F2); one resource checked twice does not", async () => {
    const first = { endpointVerification: "required", __resource: "dev::shop::settings" };
    expect((await d().check(first)).failures ?? []).toEqual([]);
    expect((await d().check(first)).failures ?? []).toEqual([]);
    const { failures } = await d().check({ endpointVerification: "optional", __resource: "dev::shop::settings-too" });
    expect(failures).toEqual([{ property: "", reason: expect.stringMatching(/^`settings-too` and `settings` of this program both declare the workspace settings workspace: each `pulumi up` would write back the other's values/) }]);
  });

  it("not_entitled for optional_endpoint_verification: explained at apply, and at preview when the plan is known not to have it", async () => {
    const strict = new Driver(strictEmu(), provider);
    ws = await useWorkspace(strictEmu(), provider, "free");
    const { result } = await strict.calls(() => provider.create({ endpointVerification: "optional" }).catch((e) => e));
    expect(result).toMatchObject({ status: 402, code: "not_entitled" });
    expect(result.message).toMatch(/requires endpoint verification.*optional_endpoint_verification.*Keep endpointVerification "required"/);
    // The plan's features are the documented defaults: free has the feature, so preview cannot predict this emulator's custom plan.
    expect((await strict.check({ endpointVerification: "optional" })).failures).toEqual([]);
  });
});
