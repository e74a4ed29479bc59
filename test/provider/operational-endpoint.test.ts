/**
 * The OperationalEndpoint resource against the emulator over HTTP: create (one
 * POST), read, any change replaces (no update route), delete, refresh after an
 * out-of-band delete, adoption, and the refusals at preview (unknown operational
 * type, http URL).
 */
import { afterAll, beforeEach, describe, expect, it } from "vitest";
import { closeSharedDispatcher, providers } from "../../provider";
import { control, useEmulator } from "../support/emulator";
import { Driver, useWorkspace, type Props, type Workspace } from "./support";

const provider = providers["webhooks:OperationalEndpoint"]!;
const emu = useEmulator();
const d = () => new Driver(emu(), provider);
afterAll(() => closeSharedDispatcher());

let ws: Workspace;
beforeEach(async () => {
  ws = await useWorkspace(emu(), provider);
});

const declared = { url: "https://ops.example.com/hook", eventTypes: ["delivery.dead", "endpoint.auto_disabled"], description: "on call" };

describe("OperationalEndpoint", () => {
  it("create is one POST; read gives the same outputs; the same names in another order or repeated are no change", async () => {
    const { calls, result } = await d().calls(() => d().create(declared));
    expect(calls).toEqual(["POST /v1/operational-endpoints"]);
    expect(result.id).toMatch(/^opep_/);
    expect(result.outs).toMatchObject({ ...declared, projectId: ws.project_id });
    const read = await provider.read!(result.id, result.outs);
    expect(read.props).toEqual(result.outs);
    const diff = await provider.diff!(result.id, read.props!, (await d().check({ ...declared, eventTypes: ["endpoint.auto_disabled", "delivery.dead", "delivery.dead"] })).inputs);
    expect(diff.changes).toBe(false);
  });

  it.each([
    { what: "url", change: { url: "https://ops2.example.com/hook" }, replaces: ["url"] },
    { what: "event types", change: { eventTypes: ["quota.warning"] }, replaces: ["eventTypes"] },
    { what: "description", change: { description: "other" }, replaces: ["description"] },
    { what: "project", change: { projectId: "__p2__" }, replaces: ["projectId"] },
  ])("a $what change replaces", async ({ change, replaces }) => {
    const p2 = await control(emu(), "POST", "/projects", { workspace_id: ws.workspace_id, name: "p2" });
    const { id, outs } = await d().create(declared);
    const news: Props = { ...declared, ...change };
    if (news.projectId === "__p2__") news.projectId = p2.id;
    expect(await provider.diff!(id, outs, (await d().check(news)).inputs)).toEqual({ changes: true, diffs: replaces, replaces, deleteBeforeReplace: false });
  });

  it("delete; refresh after an out-of-band delete drops it", async () => {
    const { id, outs } = await d().create(declared);
    const { writes } = await d().calls(() => provider.delete!(id, outs));
    expect(writes).toEqual([`DELETE /v1/operational-endpoints/${id}`]);
    await expect(provider.delete!(id, outs)).resolves.toBeUndefined();
    expect(await provider.read!(id, outs)).toEqual({});
  });

  it("adoptId: one read, no write when it matches; a differing field is refused with the fix", async () => {
    const existing = await d().raw("POST", "/v1/operational-endpoints", ws.webhooks.admin, { url: declared.url, event_types: declared.eventTypes, description: "on call" });
    const id = existing.body.id as string;
    const { calls } = await d().calls(() => d().create({ ...declared, adoptId: id }));
    // The check's read (is it there? engine/adoption.ts), then the create's own.
    expect(calls).toEqual([`GET /v1/operational-endpoints/${id}`, `GET /v1/operational-endpoints/${id}`]);
    // The preview says so (engine/adoption.ts), the create too.
    const differing = { ...declared, url: "https://elsewhere.example.com/h", adoptId: id };
    expect((await d().check(differing)).failures).toEqual([{ property: "url", reason: expect.stringMatching(/cannot change without replacing it/) }]);
    const err = await provider.create(differing).catch((e) => e);
    expect(err.message).toMatch(/cannot change without replacing it/);
  });

  it.each([
    { what: "unknown operational type", news: { ...declared, eventTypes: ["delivery.dead", "order.created"] }, want: [["eventTypes[1]", /webhooks.unknown_operational_event_type/]] },
    { what: "http URL", news: { ...declared, url: "http://ops.example.com" }, want: [["url", /webhooks.url_not_https/]] },
    { what: "no types", news: { ...declared, eventTypes: [] }, want: [["eventTypes", /too_short, count 1/]] },
  ])("preview refuses: $what", async ({ news, want }) => {
    const { failures } = await d().check(news);
    expect(failures!.map((f) => f.property)).toEqual(want.map(([p]) => p));
    want.forEach(([, re], i) => expect(failures![i]!.reason).toMatch(re as RegExp));
  });
});
