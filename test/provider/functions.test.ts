/**
 * The read functions' one implementation (provider/functions.ts), as both front ends call
 * it, against the emulator: the settings given (the program's stack config or the
 * plugin's), a profile's connection, every page of a list, a filter, the errors, and no
 * secret in any answer. The TypeScript SDK's functions are these (queries.test.ts,
 * data-walks.test.ts); the native plugin serves them as Invoke (test/native/invoke.test.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { closeSharedDispatcher, type ConfigSource } from "../../provider";
import { READ_FUNCTIONS, readFunction } from "../../provider/functions";
import * as svc from "../../sdk";
import { call, control, useEmulator } from "../support/emulator";
import type { Workspace } from "./support";

const emu = useEmulator();
let ws: Workspace;
let other: Workspace;
let config: ConfigSource;

beforeAll(async () => {
  ws = await control<Workspace>(emu(), "POST", "/workspaces", { plan: "enterprise" });
  other = await control<Workspace>(emu(), "POST", "/workspaces", { plan: "enterprise" });
  const settings: Record<string, string> = {
    webhooksUrl: emu().webhooksUrl,
    webhooksApiKey: ws.webhooks.admin,
    inboxesUrl: emu().inboxesUrl,
    inboxesApiKey: ws.inboxes.admin,
    profiles: JSON.stringify({ other: { webhooksUrl: emu().webhooksUrl, webhooksApiKey: other.webhooks.admin } }),
  };
  config = (key) => settings[key];
});
afterAll(() => closeSharedDispatcher());

const post = (product: "webhooks" | "inboxes", key: string, path: string, body: unknown) => call(emu(), "POST", `/${product}${path}`, { key, body });

describe("the read functions (provider/functions.ts)", () => {
  it("getEndpoint: the endpoint's fields the service returns, camelCased, never its signing secret; a profile reads its own workspace", async () => {
    const made = await post("webhooks", ws.webhooks.admin, "/v1/endpoints", { url: "https://hooks.example.com/a", description: "a", max_attempts: 4 });
    const one = await READ_FUNCTIONS["webhooks:getEndpoint"].run({ id: made.body.id }, config);
    expect(one).toMatchObject({ id: made.body.id, url: "https://hooks.example.com/a", description: "a", maxAttempts: 4, projectId: ws.project_id });
    expect(JSON.stringify(one)).not.toMatch(/whsec_|signing/i);

    const theirs = await post("webhooks", other.webhooks.admin, "/v1/endpoints", { url: "https://hooks.example.com/theirs" });
    expect(await READ_FUNCTIONS["webhooks:getEndpoint"].run({ id: theirs.body.id, profile: "other" }, config)).toMatchObject({ id: theirs.body.id, url: "https://hooks.example.com/theirs" });
    // Not the default connection's: named as not visible, with what to check.
    await expect(READ_FUNCTIONS["webhooks:getEndpoint"].run({ id: theirs.body.id }, config)).rejects.toThrow(
      `getEndpoint: no endpoint ${theirs.body.id} is visible to the API key in use. Check the id and the profile.`,
    );
  });

  it("getEndpoints walks every page and filters by project; getSources the same", async () => {
    const before = (await READ_FUNCTIONS["webhooks:getEndpoints"].run({}, config)) as unknown[];
    for (let i = 0; i < 201; i++) await post("webhooks", ws.webhooks.admin, "/v1/endpoints", { url: `https://hooks.example.com/bulk/${i}` });
    const all = (await READ_FUNCTIONS["webhooks:getEndpoints"].run({}, config)) as { id: string }[];
    expect(all).toHaveLength(before.length + 201);
    expect(new Set(all.map((e) => e.id)).size).toBe(all.length);
    expect(await READ_FUNCTIONS["webhooks:getEndpoints"].run({ projectId: ws.project_id }, config)).toHaveLength(all.length);
    await expect(READ_FUNCTIONS["webhooks:getEndpoints"].run({ projectId: "proj_none" }, config)).rejects.toThrow("The project proj_none does not exist in the workspace, or the key cannot see it. Check projectId.");

    const source = await post("webhooks", ws.webhooks.admin, "/v1/sources", { provider: "payments", secret: "pay-secret-f1", name: "pay" });
    const sources = (await READ_FUNCTIONS["webhooks:getSources"].run({ projectId: ws.project_id }, config)) as Record<string, unknown>[];
    expect(sources).toEqual([expect.objectContaining({ id: source.body.id, name: "pay", provider: "payments" })]);
    expect(JSON.stringify(sources)).not.toContain("pay-secret-f1");
    expect(await READ_FUNCTIONS["webhooks:getSource"].run({ id: source.body.id }, config)).toEqual(sources[0]);
  });

  it("getInbox / getInboxes: by id, every inbox, and the one matching an address", async () => {
    const a = await post("inboxes", ws.inboxes.admin, "/v1/inboxes", { label: "a" });
    const b = await post("inboxes", ws.inboxes.admin, "/v1/inboxes", { label: "b" });
    expect(await READ_FUNCTIONS["inboxes:getInbox"].run({ id: a.body.id }, config)).toMatchObject({ id: a.body.id, label: "a" });
    const all = (await READ_FUNCTIONS["inboxes:getInboxes"].run({}, config)) as { id: string }[];
    expect(all.map((i) => i.id)).toEqual(expect.arrayContaining([a.body.id, b.body.id]));
    const address = String(b.body.address ?? b.body.url);
    expect(((await READ_FUNCTIONS["inboxes:getInboxes"].run({ address }, config)) as { id: string }[]).map((i) => i.id)).toEqual([b.body.id]);
  });

  it("refuses what it cannot read: a missing id, a refused key, an unknown function", async () => {
    await expect(READ_FUNCTIONS["webhooks:getSource"].run({}, config)).rejects.toThrow("getSource: `id` is required: the source's id.");
    const refused: ConfigSource = (key) => (key === "webhooksApiKey" ? "whk_not_a_key" : config(key));
    await expect(READ_FUNCTIONS["webhooks:getEndpoints"].run({}, refused)).rejects.toThrow(/The API key for webhooks \(svc:webhooksApiKey or SVC_WEBHOOKS_API_KEY\)/);
    expect(() => readFunction("webhooks:getEndpoint")).not.toThrow();
    expect(() => readFunction("webhooks:getEndpiont")).toThrow(/pulumi-svc has no function svc:webhooks:getEndpiont; its functions are svc:webhooks:getEndpoint, svc:webhooks:getEndpoints, /);
  });

  it("the TypeScript SDK's functions are these, with the program's settings", async () => {
    process.env.SVC_INBOXES_URL = emu().inboxesUrl;
    process.env.SVC_INBOXES_API_KEY = ws.inboxes.admin;
    try {
      const made = await post("inboxes", ws.inboxes.admin, "/v1/inboxes", { label: "sdk" });
      expect(await svc.inboxes.getInbox({ id: made.body.id })).toEqual(await READ_FUNCTIONS["inboxes:getInbox"].run({ id: made.body.id }, config));
      await expect(svc.inboxes.getInbox({ id: "inb_missing" })).rejects.toThrow("getInbox: no inbox inb_missing is visible to the API key in use.");
    } finally {
      delete process.env.SVC_INBOXES_URL;
      delete process.env.SVC_INBOXES_API_KEY;
    }
  });
});
