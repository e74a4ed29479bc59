/**
 * Issue 35, item 1, in process against the emulator: a 404 means "gone" only to a key that
 * reaches the object's workspace (and project). Each object records its workspace; with a
 * key of another workspace (or confined to another project), the existing resource's
 * preview (check + diff), read, update and delete fail naming both, with no write and no
 * object forgotten; with the right key all goes on, at one identity read per connection and
 * operation; a state that lacks the workspace learns it on read, with no write, from an
 * answer that proves it (never from a 404, which then fails; never from a setting's read,
 * which answers for any workspace). Infrastructure entries are compared by their project.
 */
import { afterAll, beforeEach, describe, expect, it } from "vitest";
import { closeSharedDispatcher, movedKeys, providers } from "../../provider";
import { operationContext } from "../../provider/engine/engine-operation";
import { blindToCreate, reachOf, type ReachRecord } from "../../provider/engine/reach";
import { CREATED_IN_KEY, WORKSPACE_KEY } from "../../provider/engine/internal-keys";
import { newOperation } from "../support/operation";
import { call, control, lastSeq, requestsSince, useEmulator } from "../support/emulator";
import { configure, Driver, type Props, type Workspace } from "./support";

const emu = useEmulator();
afterAll(() => closeSharedDispatcher());

interface Family {
  kind: keyof typeof providers;
  setting: string;
  /** The environment variable that gives the key where the config leaves it unset. */
  envVar: string;
  inputs: Props;
  keyOf: (ws: Workspace) => string;
  settings: (key: string) => Record<string, string>;
  /** How the messages name the workspace of `ws`, found from the created outputs. */
  noun: string;
}

const families: Family[] = [
  {
    kind: "webhooks:Endpoint",
    setting: "svc:webhooksApiKey",
    envVar: "SVC_WEBHOOKS_API_KEY",
    inputs: { url: "https://hooks.example.com/orders" },
    keyOf: (ws) => ws.webhooks.admin,
    settings: (key) => ({ "svc:webhooksUrl": emu().webhooksUrl, "svc:webhooksApiKey": key }),
    noun: "endpoint",
  },
  {
    kind: "inboxes:Inbox",
    setting: "svc:inboxesApiKey",
    envVar: "SVC_INBOXES_API_KEY",
    inputs: { transport: "http", label: "bin" },
    keyOf: (ws) => ws.inboxes.admin,
    settings: (key) => ({ "svc:inboxesUrl": emu().inboxesUrl, "svc:inboxesApiKey": key }),
    noun: "inbox",
  },
];

const newWorkspace = () => control<Workspace>(emu(), "POST", "/workspaces", { plan: "pro" });
const escaped = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

describe.each(families)("$kind: a key of another workspace", (f) => {
  const provider = () => providers[f.kind]!;
  const d = () => new Driver(emu(), provider());
  let a: Workspace;
  let b: Workspace;
  let created: { id: string; outs: Props; inputs: Props };

  beforeEach(async () => {
    newOperation();
    a = await newWorkspace();
    b = await newWorkspace();
    // Workspace B has an object of its own: an Inboxes workspace is named by its audit log.
    await configure(provider(), f.settings(f.keyOf(b)));
    await d().create(f.inputs);
    newOperation();
    await configure(provider(), f.settings(f.keyOf(a)));
    created = await d().create(f.inputs);
    newOperation();
  });

  const useKeyOf = async (ws: Workspace) => {
    newOperation();
    await configure(provider(), f.settings(f.keyOf(ws)));
  };
  /** The message naming both workspaces, as created recorded A's. */
  const namingBoth = async () => {
    const workspaceA = created.outs[WORKSPACE_KEY] as string;
    await useKeyOf(b);
    const workspaceB = (await d().create(f.inputs)).outs[WORKSPACE_KEY] as string;
    await useKeyOf(b);
    const name = (w: string) => escaped(w.startsWith("audit:") ? `the workspace whose oldest audit entry is ${w.slice(6)}` : `workspace ${w}`);
    return new RegExp(`The key of \`${escaped(f.setting)}\` belongs to ${name(workspaceB)}; this stack's ${f.noun} ${escaped(created.id)} lives in ${name(workspaceA)}: set the right key in \`${escaped(f.setting)}\` \\(or in \`${f.envVar}\`, where the key comes from the environment\\).*\`pulumi refresh\` and \`pulumi destroy\` use the keys the last \`pulumi up\` stored, a failed one too: once the key is right, run \`pulumi up\``);
  };

  it("create records the workspace; B's differs", async () => {
    expect(created.outs[WORKSPACE_KEY]).toEqual(expect.any(String));
    if (f.kind === "webhooks:Endpoint") expect(created.outs[WORKSPACE_KEY]).toBe(a.workspace_id);
  });

  it("the Check of a create records where its key reaches in the inputs (a killed create's pending operation holds them); an existing resource keeps its own, and one of an earlier release gets none: no change shown", async () => {
    // An Inboxes workspace where no inbox was ever made names none (reach.ts): A's first inbox was made there.
    expect(created.inputs[CREATED_IN_KEY]).toEqual(f.kind === "inboxes:Inbox" ? undefined : { workspace: created.outs[WORKSPACE_KEY] });
    await useKeyOf(a);
    const second = await d().create(f.inputs);
    expect(second.inputs[CREATED_IN_KEY]).toEqual({ workspace: created.outs[WORKSPACE_KEY] });
    await useKeyOf(a);
    expect((await d().check(f.inputs, second.inputs)).inputs[CREATED_IN_KEY]).toEqual(second.inputs[CREATED_IN_KEY]);
    const { [CREATED_IN_KEY]: _, ...earlier } = second.inputs;
    expect((await d().check(f.inputs, earlier)).inputs).not.toHaveProperty(CREATED_IN_KEY);
    // Refresh gives the inputs back as the state holds them.
    const read = await provider().read!(second.id, second.outs);
    expect(read.inputs?.[CREATED_IN_KEY]).toEqual(second.inputs[CREATED_IN_KEY]);
  });

  it("preview of the existing resource (check, then diff) fails naming both workspaces, with no write", async () => {
    const message = await namingBoth();
    const { identity, writes } = await d().calls(async () => {
      const checked = await d().check(f.inputs, created.inputs);
      expect(checked.failures ?? []).toEqual([]);
      await expect(provider().diff!(created.id, created.outs, checked.inputs)).rejects.toThrow(message);
    });
    expect(writes).toEqual([]);
    expect(identity.length).toBeGreaterThan(0);
  });

  it("read (refresh) and delete (destroy) fail instead of finding it gone; the object stays; A's key sees it again", async () => {
    const message = await namingBoth();
    const { writes } = await d().calls(async () => {
      await expect(provider().read!(created.id, created.outs)).rejects.toThrow(message);
      await expect(provider().delete!(created.id, created.outs)).rejects.toThrow(message);
      await expect(provider().update!(created.id, created.outs, created.inputs)).rejects.toThrow(message);
    });
    expect(writes).toEqual([]);
    await useKeyOf(a);
    const read = await provider().read!(created.id, created.outs);
    expect(read.id).toBe(created.id);
    expect(read.props?.[WORKSPACE_KEY]).toBe(created.outs[WORKSPACE_KEY]);
  });

  it("with the object's own key a 404 is still gone", async () => {
    await provider().delete!(created.id, created.outs);
    newOperation();
    expect(await provider().read!(created.id, created.outs)).toEqual({});
  });

  it("a state without the workspace (0.1.0's and later, until this release) learns it on read, with no write; until then nothing is compared", async () => {
    const { [WORKSPACE_KEY]: _w, ...older } = created.outs;
    const { result, writes } = await d().calls(() => provider().read!(created.id, older));
    expect(writes).toEqual([]);
    expect(result.props?.[WORKSPACE_KEY]).toBe(created.outs[WORKSPACE_KEY]);
    expect(result.inputs).toEqual((await provider().read!(created.id, created.outs)).inputs);
  });

  it("a state without the workspace read with another workspace's key: the 404 proves nothing, so read and delete fail naming what to do; nothing is written or forgotten", async () => {
    const { [WORKSPACE_KEY]: _w, ...older } = created.outs;
    await useKeyOf(b);
    const unproven = new RegExp(`This stack's ${f.noun} ${escaped(created.id)} was not found with the key of \`${escaped(f.setting)}\` \\(it belongs to .*\\), and the state does not say where it lives .*remove it from the state with \`pulumi state delete <urn>\` \\(\`pulumi stack --show-urns\` lists them\\); else set the right key`);
    const { writes } = await d().calls(async () => {
      await expect(provider().read!(created.id, older)).rejects.toThrow(unproven);
      await expect(provider().delete!(created.id, older)).rejects.toThrow(unproven);
    });
    expect(writes).toEqual([]);
    await useKeyOf(a);
    expect((await provider().read!(created.id, older)).props?.[WORKSPACE_KEY]).toBe(created.outs[WORKSPACE_KEY]);
  });

  it("a key of another workspace whose reach cannot be read (its identity read is refused; a 5xx after the retries is the same): preview, read, update and delete fail saying to run again; nothing is written or forgotten", async () => {
    const identityPath = f.kind === "inboxes:Inbox" ? "/inboxes/v1/audit" : "/webhooks/v1/auth/me";
    await useKeyOf(b);
    await control(emu(), "POST", "/faults", { method: "GET", path: identityPath, status: 403, count: 1000 });
    const unreadable = new RegExp(`This stack's ${f.noun} ${escaped(created.id)} was not read, changed or deleted: where the key of \`${escaped(f.setting)}\` belongs could not be read .*Run again`);
    try {
      const { writes } = await d().calls(async () => {
        const checked = await d().check(f.inputs, created.inputs);
        await expect(provider().diff!(created.id, created.outs, checked.inputs)).rejects.toThrow(unreadable);
        await expect(provider().read!(created.id, created.outs)).rejects.toThrow(unreadable);
        await expect(provider().update!(created.id, created.outs, created.inputs)).rejects.toThrow(unreadable);
        await expect(provider().delete!(created.id, created.outs)).rejects.toThrow(unreadable);
      });
      expect(writes).toEqual([]);
    } finally {
      await control(emu(), "DELETE", "/faults");
    }
    await useKeyOf(a);
    expect((await provider().read!(created.id, created.outs)).id).toBe(created.id);
  });

  it("happy path: one identity read per connection and operation, however many reads", async () => {
    const other = await d().create(f.inputs);
    newOperation();
    const { calls, identity } = await d().calls(async () => {
      await provider().read!(created.id, created.outs);
      await provider().read!(other.id, other.outs);
      await provider().delete!(other.id, other.outs);
    });
    expect(identity).toEqual(f.kind === "inboxes:Inbox" ? ["GET /v1/audit", "GET /v1/audit"] : ["GET /v1/auth/me"]);
    expect(calls.filter((c) => c.startsWith("DELETE "))).toHaveLength(1);
  });
});

describe("inboxes:Inbox: a key of a workspace whose audit log is empty (no inbox was ever made there)", () => {
  const provider = providers["inboxes:Inbox"]!;
  it("records the workspace's true oldest entry though an entry is added between the identity's two reads (a create of the run, or anyone's)", async () => {
    newOperation();
    const ws = await newWorkspace();
    const api = (body: Props) => call(emu(), "POST", "/inboxes/v1/inboxes", { key: ws.inboxes.admin, body });
    await api({ transport: "http", label: "first" });
    await configure(provider, { "svc:inboxesUrl": emu().inboxesUrl, "svc:inboxesApiKey": ws.inboxes.admin });
    // Each of the two audit reads answers 400 ms late; another inbox is made while the second is on its way.
    await control(emu(), "POST", "/faults", { method: "GET", path: "/inboxes/v1/audit", latency_ms: 400, count: 2 });
    const creating = new Driver(emu(), provider).create({ transport: "http", label: "ours" });
    await new Promise((resolve) => setTimeout(resolve, 550));
    await api({ transport: "http", label: "meanwhile" });
    const made = await creating;
    const log = (await call(emu(), "GET", "/inboxes/v1/audit?limit=200", { key: ws.inboxes.admin })).body.data as { id: string }[];
    expect(made.outs[WORKSPACE_KEY]).toBe(`audit:${log[log.length - 1]!.id}`);
  });

  it("is never the inbox's workspace: read and delete fail naming it", async () => {
    newOperation();
    const [a, empty] = [await newWorkspace(), await newWorkspace()];
    await configure(provider, { "svc:inboxesUrl": emu().inboxesUrl, "svc:inboxesApiKey": a.inboxes.admin });
    const created = await new Driver(emu(), provider).create({ transport: "http" });
    newOperation();
    await configure(provider, { "svc:inboxesUrl": emu().inboxesUrl, "svc:inboxesApiKey": empty.inboxes.admin });
    const message = new RegExp(`belongs to a workspace where no inbox was ever made \\(its audit log is empty\\); this stack's inbox ${created.id} lives in the workspace whose oldest audit entry is aud_`);
    await expect(provider.read!(created.id, created.outs)).rejects.toThrow(message);
    await expect(provider.delete!(created.id, created.outs)).rejects.toThrow(message);
  });
});

describe("webhooks:Endpoint: a key confined to another project of the same workspace", () => {
  const provider = providers["webhooks:Endpoint"]!;
  it("read, delete and the preview's diff fail naming both projects; the workspace's key still reads it", async () => {
    newOperation();
    const ws = await newWorkspace();
    const other = (await control<{ id: string }>(emu(), "POST", "/projects", { workspace_id: ws.workspace_id, name: "other" })).id;
    const confined = (await control<{ key: string }>(emu(), "POST", "/keys", { product: "webhooks", scope: "admin", workspace_id: ws.workspace_id, project_id: other })).key;
    await configure(provider, { "svc:webhooksUrl": emu().webhooksUrl, "svc:webhooksApiKey": ws.webhooks.admin });
    const created = await new Driver(emu(), provider).create({ url: "https://hooks.example.com/orders" });
    expect(created.outs.projectId).toBe(ws.project_id);
    newOperation();
    await configure(provider, { "svc:webhooksUrl": emu().webhooksUrl, "svc:webhooksApiKey": confined });
    const message = new RegExp(`The key of \`svc:webhooksApiKey\` is confined to project ${other} of workspace ${ws.workspace_id}; this stack's endpoint ${created.id} lives in project ${ws.project_id}`);
    await expect(provider.read!(created.id, created.outs)).rejects.toThrow(message);
    await expect(provider.delete!(created.id, created.outs)).rejects.toThrow(message);
    await new Driver(emu(), provider).check({ url: "https://hooks.example.com/orders" }, created.inputs);
    await expect(provider.diff!(created.id, created.outs, created.inputs)).rejects.toThrow(message);
    newOperation();
    await configure(provider, { "svc:webhooksUrl": emu().webhooksUrl, "svc:webhooksApiKey": ws.webhooks.admin });
    expect((await provider.read!(created.id, created.outs)).id).toBe(created.id);
  });
});

describe("settings answer for whatever workspace the key reaches: a read proves nothing", () => {
  const settings = (key: string) => ({ "svc:webhooksUrl": emu().webhooksUrl, "svc:webhooksApiKey": key });
  const policy = (ws: Workspace) => call(emu(), "GET", "/webhooks/v1/event-types/policy", { key: ws.webhooks.admin }).then((r) => r.body.policy);

  it("a WorkspaceSettings state without the workspace is compared by the workspace id its outputs hold", async () => {
    const provider = providers["webhooks:WorkspaceSettings"]!;
    newOperation();
    const [a, b] = [await newWorkspace(), await newWorkspace()];
    await configure(provider, settings(a.webhooks.admin));
    const { id, outs } = await new Driver(emu(), provider).create({ endpointVerification: "required" });
    const { [WORKSPACE_KEY]: _w, ...older } = outs;
    newOperation();
    await configure(provider, settings(b.webhooks.admin));
    const message = new RegExp(`belongs to workspace ${b.workspace_id}; this stack's workspace settings workspace lives in workspace ${a.workspace_id}`);
    await expect(provider.read!(id, older)).rejects.toThrow(message);
    await expect(provider.update!(id, older, { endpointVerification: "optional" })).rejects.toThrow(message);
    await expect(provider.delete!(id, older)).rejects.toThrow(message);
  });

  it("an EventTypePolicy state without the workspace learns nothing from a read with another key, is never changed or put back through it, and its own key is not refused after", async () => {
    const provider = providers["webhooks:EventTypePolicy"]!;
    const d = new Driver(emu(), provider);
    newOperation();
    const [a, b] = [await newWorkspace(), await newWorkspace()];
    await configure(provider, settings(a.webhooks.admin));
    const { id, outs } = await d.create({ policy: "strict" });
    const { [WORKSPACE_KEY]: _w, ...older } = outs;
    newOperation();
    await configure(provider, settings(b.webhooks.admin));
    const { result: read, writes } = await d.calls(async () => {
      const seen = await provider.read!(id, older);
      expect(seen.props?.[WORKSPACE_KEY]).toBeUndefined();
      await expect(provider.update!(id, seen.props!, { policy: "strict" })).rejects.toThrow(/is not changed with the key of `svc:webhooksApiKey` \(it belongs to workspace ws_\w+\).*\(a setting, or one known by its name\)/);
      await provider.delete!(id, seen.props!);
      return seen;
    });
    expect(read.props?.policy).toBe("lenient");
    expect(writes).toEqual([]);
    expect([await policy(a), await policy(b)]).toEqual(["strict", "lenient"]);
    newOperation();
    await configure(provider, settings(a.webhooks.admin));
    expect((await provider.read!(id, read.props!)).props).toMatchObject({ policy: "strict" });
    // A change, even with its own key, is refused at preview, as its update would be.
    const checked = await d.check({ policy: "lenient" }, { policy: "strict" });
    await expect(provider.diff!(id, older, checked.inputs)).rejects.toThrow(/is not changed with the key of `svc:webhooksApiKey` \(it belongs to workspace ws_\w+\)/);
    await expect(provider.diff!(id, older, (await d.check({ policy: "strict" }, { policy: "strict" })).inputs)).resolves.toMatchObject({ changes: false });
  });
});

describe("infra: a key of another workspace's project", () => {
  const infra = (key: string) => ({ "svc:infraUrl": emu().infraUrl, "svc:infraApiKey": key });
  const kinds = [
    { kind: "infra:QuotaRequest" as const, noun: "quota request", keyOf: (ws: Workspace) => ws.infra.member, inputs: { service: "compute", region: "eu-west-1", limits: { vms: 60 }, justification: "reach" } },
    { kind: "infra:QuotaLimits" as const, noun: "quota limits", keyOf: (ws: Workspace) => ws.infra.admin, inputs: { service: "network", region: "eu-west-1", limits: { networks: 12 } } },
  ];
  it.each(kinds)("$kind: refresh, preview, update and delete fail naming both projects; nothing written or forgotten; the own key still reads it", async ({ kind, noun, keyOf, inputs }) => {
    const provider = providers[kind]!;
    const d = new Driver(emu(), provider);
    newOperation();
    const [a, b] = [await newWorkspace(), await newWorkspace()];
    await configure(provider, infra(keyOf(a)));
    const created = await d.create(inputs);
    newOperation();
    await configure(provider, infra(keyOf(b)));
    const message = new RegExp(`The key of \`svc:infraApiKey\` belongs to project ${b.project_id}; this stack's ${noun} ${escaped(created.id)} lives in project ${a.project_id}`);
    const { writes } = await d.calls(async () => {
      await expect(provider.read!(created.id, created.outs)).rejects.toThrow(message);
      const checked = await d.check(inputs, created.inputs);
      await expect(provider.diff!(created.id, created.outs, checked.inputs)).rejects.toThrow(message);
      await expect(provider.update!(created.id, created.outs, { ...created.inputs, limits: { ...inputs.limits } })).rejects.toThrow(message);
      await expect(provider.delete!(created.id, created.outs)).rejects.toThrow(message);
    });
    expect(writes).toEqual([]);
    newOperation();
    await configure(provider, infra(keyOf(a)));
    expect((await provider.read!(created.id, created.outs)).id).toBe(created.id);
  });
});

describe("webhooks:EventType: an entry known by its name, in a state without the workspace", () => {
  it("a read with the key of another workspace holding a namesake learns nothing and keeps the creation time that proves it; delete there is refused; its own key's read learns it", async () => {
    const provider = providers["webhooks:EventType"]!;
    const settings = (ws: Workspace) => ({ "svc:webhooksUrl": emu().webhooksUrl, "svc:webhooksApiKey": ws.webhooks.admin });
    const d = new Driver(emu(), provider);
    newOperation();
    const [a, b] = [await newWorkspace(), await newWorkspace()];
    await configure(provider, settings(b));
    await d.create({ name: "order.created" });
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    newOperation();
    await configure(provider, settings(a));
    const { id, outs } = await d.create({ name: "order.created" });
    const { [WORKSPACE_KEY]: _w, ...older } = outs;
    newOperation();
    await configure(provider, settings(b));
    const { result: seen, writes } = await d.calls(async () => {
      const read = await provider.read!(id, older);
      await expect(provider.delete!(id, read.props!)).rejects.toThrow(/is not changed with the key of `svc:webhooksApiKey` \(it belongs to workspace/);
      return read;
    });
    expect(writes).toEqual([]);
    expect(seen.props?.[WORKSPACE_KEY]).toBeUndefined();
    expect(seen.props?.createdAt).toBe(outs.createdAt);
    newOperation();
    await configure(provider, settings(a));
    expect((await provider.read!(id, seen.props!)).props?.[WORKSPACE_KEY]).toBe(a.workspace_id);
  });
});

describe("what recover is told of a pending create's key (blindToCreate)", () => {
  it("with no record, names where the key reaches; with a record and the key unread, names the cause", async () => {
    newOperation();
    const ws = await newWorkspace();
    const def = providers["webhooks:Endpoint"]!.definition;
    const ctx = operationContext(def, undefined, (k) => ({ webhooksUrl: emu().webhooksUrl, webhooksApiKey: ws.webhooks.admin })[k]);
    const reach = await reachOf(def, ctx);
    expect(blindToCreate(def, reach, {}, ctx)).toMatch(new RegExp(`does not say where the create went .*; the key of \`svc:webhooksApiKey\` belongs to workspace ${ws.workspace_id}$`));
    newOperation();
    const unreadCtx = operationContext(def, undefined, (k) => ({ webhooksUrl: emu().webhooksUrl, webhooksApiKey: ws.webhooks.admin })[k]);
    await control(emu(), "POST", "/faults", { method: "GET", path: "/webhooks/v1/auth/me", status: 500, count: 20 });
    const unread = await reachOf(def, unreadCtx);
    await control(emu(), "DELETE", "/faults");
    expect(blindToCreate(def, unread, { [CREATED_IN_KEY]: { workspace: ws.workspace_id } }, unreadCtx)).toMatch(/^where the key of `svc:webhooksApiKey` belongs could not be read \(.*500.*\)$/);
  });
});

describe("a stack config key changed between the provider's old and new config (movedKeys: the native plugin's CheckConfig)", () => {
  /** A config source as the plugin gives it (keys without their namespace), with the emulator's addresses. */
  const config = (keys: Record<string, string>) => {
    const all: Record<string, string> = { webhooksUrl: emu().webhooksUrl, inboxesUrl: emu().inboxesUrl, infraUrl: emu().infraUrl, ...keys };
    return (key: string) => all[key];
  };
  const reasons = async (olds: (key: string) => string | undefined, news: (key: string) => string | undefined, recorded: ReachRecord = {}) => (await movedKeys(olds, news, recorded)).reasons;

  it("names both workspaces, both projects of confined keys, and a profile's key; a rotation, an old key that no longer answers (with no record), an unchanged or an added key are no move", async () => {
    newOperation();
    const [a, b] = [await newWorkspace(), await newWorkspace()];
    const [p1, p2] = [
      (await control<{ id: string }>(emu(), "POST", "/projects", { workspace_id: a.workspace_id, name: "p1" })).id,
      (await control<{ id: string }>(emu(), "POST", "/projects", { workspace_id: a.workspace_id, name: "p2" })).id,
    ];
    const confinedTo = async (project: string) => (await control<{ key: string }>(emu(), "POST", "/keys", { product: "webhooks", scope: "admin", workspace_id: a.workspace_id, project_id: project })).key;
    const keys = (ws: Workspace) => ({ webhooksApiKey: ws.webhooks.admin, infraApiKey: ws.infra.member });

    const moved = await reasons(config(keys(a)), config(keys(b)));
    expect(moved).toHaveLength(2);
    expect(moved[0]).toContain(`The key of \`svc:webhooksApiKey\` was changed to one of workspace ${b.workspace_id}; the key it replaces reached workspace ${a.workspace_id}`);
    expect(moved[1]).toContain(`The key of \`svc:infraApiKey\` was changed to one of project ${b.project_id}; the key it replaces reached project ${a.project_id}`);
    expect(await reasons(config({ webhooksApiKey: await confinedTo(p1) }), config({ webhooksApiKey: await confinedTo(p2) }))).toEqual([
      expect.stringContaining(`The key of \`svc:webhooksApiKey\` was changed to one confined to project ${p2} of workspace ${a.workspace_id}; the key it replaces was confined to project ${p1}`),
    ]);
    // Narrowed to a project: the stack's objects made with a key of every project may be in another (adv35d Y5).
    expect(await reasons(config({ webhooksApiKey: a.webhooks.admin }), config({ webhooksApiKey: await confinedTo(p2) }))).toEqual([
      expect.stringContaining(`The key of \`svc:webhooksApiKey\` was changed to one confined to project ${p2} of workspace ${a.workspace_id}; the key it replaces reaches every project of it`),
    ]);
    const profiles = (ws: Workspace) => config({ profiles: JSON.stringify({ staging: { webhooksUrl: emu().webhooksUrl, webhooksApiKey: ws.webhooks.admin } }) });
    expect(await reasons(profiles(a), profiles(b))).toEqual([expect.stringContaining(`The key of \`svc:profiles.staging.webhooksApiKey\` was changed to one of workspace ${b.workspace_id}`)]);

    expect(await reasons(config(keys(a)), config({ webhooksApiKey: a.webhooks.read, infraApiKey: a.infra.admin }))).toEqual([]);
    expect(await reasons(config({ webhooksApiKey: "whk_revoked_by_a_rotation" }), config(keys(b)))).toEqual([]);
    // The new key's identity read failing proves nothing either way: run again (it may be another workspace's).
    newOperation();
    await movedKeys(config({ webhooksApiKey: a.webhooks.admin }), config({ webhooksApiKey: a.webhooks.read })); // the old key's reach read (cached in the operation)
    await control(emu(), "POST", "/faults", { method: "GET", path: "/webhooks/v1/auth/me", status: 500, count: 20 });
    const unread = await reasons(config({ webhooksApiKey: a.webhooks.admin }), config({ webhooksApiKey: b.webhooks.admin }));
    await control(emu(), "DELETE", "/faults");
    expect(unread).toEqual([expect.stringMatching(new RegExp(`^Where the new key of \`svc:webhooksApiKey\` belongs could not be read \(.*500.*\); the key it replaces reached workspace ${a.workspace_id}.*Run again`))]);
    expect(await reasons(config({}), config(keys(b)))).toEqual([]);
    // The old key unread for another cause than a refusal (a 5xx, with no record): a move cannot be told from a rotation.
    newOperation();
    await movedKeys(config({}), config({ webhooksApiKey: b.webhooks.admin })); // the new key's reach read (cached in the operation)
    await control(emu(), "POST", "/faults", { method: "GET", path: "/webhooks/v1/auth/me", status: 500, count: 20 });
    const oldUnread = await reasons(config({ webhooksApiKey: a.webhooks.admin }), config({ webhooksApiKey: b.webhooks.admin }));
    await control(emu(), "DELETE", "/faults");
    expect(oldUnread).toEqual([expect.stringMatching(/^Where the key `svc:webhooksApiKey` had before belongs could not be read \(.*500.*\), nor is it recorded.*Run again/)]);
  });

  it("says only what it knows (where the old key reached, not that objects were made there) and names the setting as the user sets it: the stack config, or an explicit provider's property (adv35f D, E, F)", async () => {
    newOperation();
    const [a, b] = [await newWorkspace(), await newWorkspace()];
    const [byStackConfig] = await reasons(config({ webhooksApiKey: a.webhooks.admin }), config({ webhooksApiKey: b.webhooks.admin }));
    expect(byStackConfig).toContain(`The key of \`svc:webhooksApiKey\` was changed to one of workspace ${b.workspace_id}; the key it replaces reached workspace ${a.workspace_id}, where any webhooks object this stack made with it lives`);
    expect(byStackConfig).toContain(`To keep them, set a key of workspace ${a.workspace_id} in \`svc:webhooksApiKey\`.`);
    expect(byStackConfig).toContain("with the new key in SVC_WEBHOOKS_API_KEY instead of the config (`pulumi config rm svc:webhooksApiKey`)");
    expect(byStackConfig).not.toMatch(/objects were made/);
    const [byProvider] = (await movedKeys(config({ webhooksApiKey: a.webhooks.admin }), config({ webhooksApiKey: b.webhooks.admin }), {}, "staging")).reasons;
    expect(byProvider).toContain(`The key of \`webhooksApiKey\` of provider \`staging\` was changed to one of workspace ${b.workspace_id}`);
    expect(byProvider).toContain("declare the provider under a new name, without `aliases`");
    expect(byProvider).not.toMatch(/svc:webhooksApiKey|SVC_WEBHOOKS_API_KEY|pulumi config/);
  });

  it("records where each key reaches; an unchanged key with its record costs no call; a record judges a change when the old key no longer answers (adv35d Y6)", async () => {
    newOperation();
    const [a, b] = [await newWorkspace(), await newWorkspace()];
    const first = await movedKeys(config({}), config({ webhooksApiKey: a.webhooks.admin }));
    expect(first).toEqual({ reasons: [], reached: { "svc:webhooksApiKey": { workspace: a.workspace_id } } });
    newOperation();
    const seq = await lastSeq(emu());
    const again = await movedKeys(config({ webhooksApiKey: a.webhooks.admin }), config({ webhooksApiKey: a.webhooks.admin }), first.reached);
    expect(again.reached).toEqual(first.reached);
    expect(await requestsSince(emu(), seq)).toEqual([]);
    // The old key revoked by a rotation answers nothing: the record says where it reached.
    newOperation();
    expect(await reasons(config({ webhooksApiKey: "whk_revoked_by_a_rotation" }), config({ webhooksApiKey: b.webhooks.admin }), first.reached)).toEqual([
      expect.stringContaining(`The key of \`svc:webhooksApiKey\` was changed to one of workspace ${b.workspace_id}; the key it replaces reached workspace ${a.workspace_id}`),
    ]);
  });

  it("an Inboxes key of a workspace where no inbox was ever made, replacing one whose workspace has inboxes, is a move (adv35d Y1)", async () => {
    newOperation();
    const [a, b] = [await newWorkspace(), await newWorkspace()];
    expect((await call(emu(), "POST", "/inboxes/v1/inboxes", { key: a.inboxes.admin, body: { transport: "http" } })).status).toBe(201);
    expect(await reasons(config({ inboxesApiKey: a.inboxes.admin }), config({ inboxesApiKey: b.inboxes.admin }))).toEqual([
      expect.stringContaining("The key of `svc:inboxesApiKey` was changed to one of a workspace where no inbox was ever made (its audit log is empty); the key it replaces reached the workspace whose oldest audit entry is"),
    ]);
    // An empty log is recorded as nothing: read again next time.
    expect((await movedKeys(config({}), config({ inboxesApiKey: b.inboxes.admin }))).reached).toEqual({});
  });
});
