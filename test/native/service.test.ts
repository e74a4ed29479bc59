/**
 * The native plugin's gRPC service in-process (dist/native/server.js, so `npm run build`
 * first) on a loopback port, configured as the engine configures it, against the emulator:
 * Invoke called as the generated SDKs call it, for every function schema.json declares,
 * Check's failures as the engine prints them, and Read of an import by the id the reference pages give. The answers are the read functions' (provider/functions.ts); a list comes
 * back as the one property the generated SDKs unpack. Python and Go programs call them
 * under the real CLI (python-lifecycle.test.ts, go-lifecycle.test.ts).
 */
import * as fs from "node:fs";
import * as path from "node:path";
import * as grpc from "@grpc/grpc-js";
import * as provrpc from "@pulumi/pulumi/proto/provider_grpc_pb";
import * as provproto from "@pulumi/pulumi/proto/provider_pb";
import * as structproto from "google-protobuf/google/protobuf/struct_pb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { READ_FUNCTIONS } from "../../provider/functions";
import type { Workspace } from "../provider/support";
import { call, control, useEmulator } from "../support/emulator";

const ROOT = path.resolve(__dirname, "../..");
const SERVER = path.join(ROOT, "dist/native/server.js");
const schema = JSON.parse(fs.readFileSync(path.join(ROOT, "schema.json"), "utf8")) as { functions: Record<string, unknown> };

const emu = useEmulator();
let ws: Workspace;
let server: grpc.Server;
let client: provrpc.ResourceProviderClient;

type Json = structproto.JavaScriptValue;
const unary = <T>(fn: (cb: (err: grpc.ServiceError | null, res: T) => void) => void) => new Promise<T>((resolve, reject) => fn((err, res) => (err ? reject(err) : resolve(res))));
const invoke = (tok: string, args: Record<string, Json>) =>
  unary<provproto.InvokeResponse>((cb) => client.invoke(new provproto.InvokeRequest().setTok(tok).setArgs(structproto.Struct.fromJavaScript(args)), cb)).then((r) => r.getReturn()?.toJavaScript());

beforeAll(async () => {
  ws = await control<Workspace>(emu(), "POST", "/workspaces", { plan: "enterprise" });
  const { providerService } = require(SERVER) as typeof import("../../native/server");
  server = new grpc.Server();
  server.addService(provrpc.ResourceProviderService, providerService(undefined));
  const port = await new Promise<number>((resolve, reject) => server.bindAsync("127.0.0.1:0", grpc.ServerCredentials.createInsecure(), (err, p) => (err ? reject(err) : resolve(p))));
  client = new provrpc.ResourceProviderClient(`127.0.0.1:${port}`, grpc.credentials.createInsecure());
  const settings = { webhooksUrl: emu().webhooksUrl, webhooksApiKey: ws.webhooks.admin, inboxesUrl: emu().inboxesUrl, inboxesApiKey: ws.inboxes.admin, infraUrl: emu().infraUrl, infraApiKey: ws.infra.admin };
  await unary((cb) => client.configure(new provproto.ConfigureRequest().setArgs(structproto.Struct.fromJavaScript(settings)), cb));
});
afterAll(() => {
  client?.close();
  server?.forceShutdown();
});

describe("pulumi-resource-svc Invoke", () => {
  it("serves every function the schema declares, and no other", () => {
    expect(Object.keys(schema.functions).sort()).toEqual(Object.keys(READ_FUNCTIONS).map((name) => `svc:${name}`).sort());
  });

  it("answers one object as its properties and a list as the one property `items`, as the TypeScript SDK's functions do", async () => {
    const endpoint = await call(emu(), "POST", "/webhooks/v1/endpoints", { key: ws.webhooks.admin, body: { url: "https://hooks.example.com/inv", max_attempts: 3 } });
    const source = await call(emu(), "POST", "/webhooks/v1/sources", { key: ws.webhooks.admin, body: { provider: "generic", name: "inv" } });
    const inbox = await call(emu(), "POST", "/inboxes/v1/inboxes", { key: ws.inboxes.admin, body: { label: "inv" } });
    const one = await invoke("svc:webhooks:getEndpoint", { id: endpoint.body.id });
    expect(one).toMatchObject({ id: endpoint.body.id, url: "https://hooks.example.com/inv", maxAttempts: 3, projectId: ws.project_id });
    expect(await invoke("svc:webhooks:getEndpoints", { projectId: ws.project_id })).toEqual({ items: [one] });
    expect(await invoke("svc:webhooks:getSource", { id: source.body.id })).toMatchObject({ id: source.body.id, name: "inv", provider: "generic" });
    expect(await invoke("svc:webhooks:getSources", {})).toEqual({ items: [expect.objectContaining({ id: source.body.id })] });
    expect(await invoke("svc:inboxes:getInbox", { id: inbox.body.id })).toMatchObject({ id: inbox.body.id, label: "inv" });
    expect(await invoke("svc:inboxes:getInboxes", {})).toEqual({ items: [expect.objectContaining({ id: inbox.body.id })] });
    expect(JSON.stringify(one)).not.toMatch(/whsec_/);
  });

  it("fails as the functions fail: an object the key cannot see, an unknown token named with the functions there are", async () => {
    await expect(invoke("svc:webhooks:getEndpoint", { id: "ep_missing" })).rejects.toThrow("getEndpoint: no endpoint ep_missing is visible to the API key in use. Check the id and the profile.");
    await expect(invoke("svc:webhooks:getEndpiont", {})).rejects.toThrow("pulumi-svc has no function svc:webhooks:getEndpiont; its functions are svc:webhooks:getEndpoint,");
    await expect(invoke("aws:index:getRegion", {})).rejects.toThrow("pulumi-resource-svc serves svc:* resources, not aws:index:getRegion");
  });
});

const SECRET = (value: Json) => ({ "4dabf18193072939515e22adb298388d": "1b47061264138c4ac30d75fd1eb44270", value }) as Json;

describe("pulumi-resource-svc Check", () => {
  const check = async (type: string, news: Record<string, Json>) => {
    const req = new provproto.CheckRequest().setUrn(`urn:pulumi:dev::p::${type}::r`).setType(type).setOlds(structproto.Struct.fromJavaScript({})).setNews(structproto.Struct.fromJavaScript(news));
    const res = await unary<provproto.CheckResponse>((cb) => client.check(req, cb));
    return res.getFailuresList().map((f) => ({ property: f.getProperty(), reason: f.getReason() }));
  };

  it("a nested property's failure names the property and its value (the engine prints a property's top-level value), once", async () => {
    expect(await check("svc:infra:QuotaLimits", { service: "compute", region: "eu-west", limits: { vms: "80" } })).toEqual([
      { property: "", reason: 'property limits.vms is "80": Invalid input: expected number, received string (type, expected number, given string)' },
    ]);
    const [failure] = await check("svc:webhooks:Endpoint", { url: "https://hooks.example.com/a", subscriptions: [{ eventType: 5 }] });
    expect(failure).toEqual({ property: "", reason: expect.stringMatching(/^property subscriptions\[0\]\.eventType is 5: Invalid input: expected string/) });
    // A top-level one keeps its property: the engine prints its value (redacted when secret).
    expect((await check("svc:webhooks:Endpoint", { url: "http://hooks.example.com/a" })).map((f) => f.property)).toEqual(["url"]);
  });

  it("a list, an object, a missing value or a long text is not left to the engine to print whole (adv14b F4)", async () => {
    const subscriptions = Array.from({ length: 101 }, (_, i) => ({ eventType: `a.e${i}` }));
    const [list] = await check("svc:webhooks:Endpoint", { url: "https://hooks.example.com/a", subscriptions });
    expect(list).toEqual({ property: "", reason: expect.stringMatching(/^property subscriptions: /) });
    expect(list!.reason).not.toContain("a.e100");
    const [missing] = await check("svc:webhooks:EventType", { description: "no name" });
    expect(missing).toEqual({ property: "", reason: expect.stringMatching(/^property name is missing: /) });
    const [long] = await check("svc:webhooks:Endpoint", { url: `https://hooks.example.com/${"a".repeat(5000)}` });
    expect(long).toEqual({ property: "", reason: expect.stringMatching(/^property url is "https:\/\/hooks\.example\.com\/a+"\.\.\. \(5026 characters\): /) });
    expect(long!.reason.length).toBeLessThan(400);
  });

  it("a nested value inside a secret input is never printed", async () => {
    const failures = await check("svc:webhooks:Endpoint", { url: "https://hooks.example.com/a", customHeaders: SECRET({ "X-Team": "s3cr3t", "X-Count": 5 }) });
    expect(failures).toEqual([{ property: "", reason: 'property customHeaders["X-Count"] is [secret]: Invalid input: expected string, received number (type, expected string, given number)' }]);
    expect(JSON.stringify(failures)).not.toContain("s3cr3t");
  });
});

describe("pulumi-resource-svc Read of an import", () => {
  it("an event type imported by its bare name is the workspace-wide entry, under that id (docs/reference/webhooks-event-type.md)", async () => {
    await call(emu(), "POST", "/webhooks/v1/event-types", { key: ws.webhooks.admin, body: { name: "order.imported", description: "d" } });
    const req = new provproto.ReadRequest().setId("order.imported").setUrn("urn:pulumi:dev::p::svc:webhooks:EventType::t").setType("svc:webhooks:EventType").setProperties(structproto.Struct.fromJavaScript({}));
    const res = await unary<provproto.ReadResponse>((cb) => client.read(req, cb));
    expect(res.getId()).toBe("order.imported");
    expect(res.getInputs()?.toJavaScript()).toMatchObject({ name: "order.imported", description: "d" });
  });
});

describe("pulumi-resource-svc Read of an import with a setting missing", () => {
  const importRead = (on: provrpc.ResourceProviderClient, id: string) =>
    unary<provproto.ReadResponse>((cb) => on.read(new provproto.ReadRequest().setId(id).setUrn("urn:pulumi:dev::p::svc:webhooks:Endpoint::e").setType("svc:webhooks:Endpoint").setProperties(structproto.Struct.fromJavaScript({})), cb));

  // adv37f F4: the profile set after the last `up`, the import said to set what the stack's config held already.
  it("configured as the state stored it (no CheckConfig: the stack's provider at its last update): says the import reads with that configuration and to run `pulumi up` first", async () => {
    const err = await importRead(client, "profile:other/ep_1").then(() => undefined, (e: grpc.ServiceError) => e);
    expect(err?.details).toContain('Missing address of webhooks for profile "other" in the provider configuration this import read with: `pulumi import` uses the stack\'s provider as its last update stored it, not the stack\'s config now');
    expect(err?.details).toContain("a setting added since (`svc:profiles.other.webhooksUrl`) is not seen. Run `pulumi up` first (it stores the stack's config as it is now), then import again.");
    expect(err?.details).toContain("or set the environment variable SVC_PROFILE_OTHER_WEBHOOKS_URL for the import");
  });

  it("configured from the stack's config (CheckConfig first: a provider the import makes): the setting is missing, said as before", async () => {
    const fresh = new grpc.Server();
    fresh.addService(provrpc.ResourceProviderService, (require(SERVER) as typeof import("../../native/server")).providerService(undefined));
    const port = await new Promise<number>((resolve, reject) => fresh.bindAsync("127.0.0.1:0", grpc.ServerCredentials.createInsecure(), (e, p) => (e ? reject(e) : resolve(p))));
    const other = new provrpc.ResourceProviderClient(`127.0.0.1:${port}`, grpc.credentials.createInsecure());
    const settings = structproto.Struct.fromJavaScript({ webhooksUrl: emu().webhooksUrl, webhooksApiKey: ws.webhooks.admin });
    try {
      await unary((cb) => other.checkConfig(new provproto.CheckRequest().setUrn("urn:pulumi:dev::p::pulumi:providers:svc::default").setType("pulumi:providers:svc").setOlds(structproto.Struct.fromJavaScript({})).setNews(settings), cb));
      await unary((cb) => other.configure(new provproto.ConfigureRequest().setArgs(structproto.Struct.fromJavaScript({ webhooksUrl: emu().webhooksUrl, webhooksApiKey: SECRET(ws.webhooks.admin) })), cb));
      const err = await importRead(other, "profile:other/ep_1").then(() => undefined, (e: grpc.ServiceError) => e);
      expect(err?.details).toBe('Missing address of webhooks for profile "other": set stack config `svc:profiles.other.webhooksUrl` (e.g. `pulumi config set --path svc:profiles.other.webhooksUrl ...`) or the environment variable SVC_PROFILE_OTHER_WEBHOOKS_URL.');
    } finally {
      other.close();
      fresh.forceShutdown();
      // The plugin's settings are the process's: back to the ones the other tests use.
      const all = { webhooksUrl: emu().webhooksUrl, webhooksApiKey: ws.webhooks.admin, inboxesUrl: emu().inboxesUrl, inboxesApiKey: ws.inboxes.admin, infraUrl: emu().infraUrl, infraApiKey: ws.infra.admin };
      await unary((cb) => client.configure(new provproto.ConfigureRequest().setArgs(structproto.Struct.fromJavaScript(all)), cb));
    }
  });
});

describe("pulumi-resource-svc Diff of a replacement", () => {
  /** Check then Create, then Check and Diff of `changed` over it, as the engine calls them: Diff's answer. */
  async function replacing(type: string, inputs: Record<string, Json>, changed: Record<string, Json>) {
    const urn = `urn:pulumi:dev::p::${type}::r`;
    const check = async (olds: Record<string, Json>, news: Record<string, Json>) =>
      (await unary<provproto.CheckResponse>((cb) => client.check(new provproto.CheckRequest().setUrn(urn).setType(type).setOlds(structproto.Struct.fromJavaScript(olds)).setNews(structproto.Struct.fromJavaScript(news)), cb))).getInputs()!.toJavaScript() as Record<string, Json>;
    const first = await check({}, inputs);
    const made = await unary<provproto.CreateResponse>((cb) => client.create(new provproto.CreateRequest().setUrn(urn).setType(type).setProperties(structproto.Struct.fromJavaScript(first)), cb));
    const second = await check(first, { ...inputs, ...changed });
    const diff = new provproto.DiffRequest().setId(made.getId()).setUrn(urn).setType(type).setOldInputs(structproto.Struct.fromJavaScript(first)).setOlds(made.getProperties()!).setNews(structproto.Struct.fromJavaScript(second));
    return unary<provproto.DiffResponse>((cb) => client.diff(diff, cb));
  }

  it("a changed QuotaLimits figure is shown from the stored inputs, which hold the declared figures alone, not from the outputs, which hold every figure (adv14c F4)", async () => {
    const d = await replacing("svc:infra:QuotaLimits", { service: "compute", region: "eu-west-1", limits: { vcpu: 210 } }, { limits: { vcpu: 250 } });
    expect(d.getReplacesList()).toEqual([]);
    expect(d.getDetaileddiffMap().get("limits")?.getInputdiff()).toBe(true);
  });

  it("asks to delete first exactly when the replacement keeps a name the service holds unique (the engine creates first otherwise)", async () => {
    const kept = await replacing("svc:webhooks:EventType", { name: "native.dbr" }, { description: "another" });
    expect(kept.getReplacesList()).toEqual(["description"]);
    expect(kept.getDeletebeforereplace()).toBe(true);
    const renamed = await replacing("svc:webhooks:EventType", { name: "native.dbr2" }, { name: "native.dbr3", description: "another" });
    expect(renamed.getDeletebeforereplace()).toBe(false);
    const inbox = await replacing("svc:inboxes:Inbox", { label: "native dbr" }, { transport: "http" });
    expect(inbox.getReplacesList()).toEqual(["transport"]);
    expect(inbox.getDeletebeforereplace()).toBe(false);
  });
});

describe("pulumi-resource-svc CheckConfig of a key moved to another workspace", () => {
  /** CheckConfig's failures for the provider `urn`, its config moving from `ws`'s Webhooks key to `other`'s. */
  async function refusal(urn: string, other: Workspace): Promise<string[]> {
    const config = (key: string) => structproto.Struct.fromJavaScript({ webhooksUrl: emu().webhooksUrl, webhooksApiKey: key });
    const req = new provproto.CheckRequest().setUrn(urn).setType("pulumi:providers:svc").setOlds(config(ws.webhooks.admin)).setNews(config(other.webhooks.admin));
    return (await unary<provproto.CheckResponse>((cb) => client.checkConfig(req, cb))).getFailuresList().map((f) => f.getReason());
  }

  it("names the setting as the program sets it: the stack config for a default provider, the provider's property for the program's own", async () => {
    const other = await control<Workspace>(emu(), "POST", "/workspaces", { plan: "enterprise" });
    expect(await refusal("urn:pulumi:dev::p::pulumi:providers:svc::default_0_2_0", other)).toEqual([expect.stringContaining("The key of `svc:webhooksApiKey` was changed to one of workspace")]);
    const [own] = await refusal("urn:pulumi:dev::p::pulumi:providers:svc::staging", other);
    expect(own).toContain("The key of `webhooksApiKey` of provider `staging` was changed to one of workspace");
    expect(own).not.toContain("svc:webhooksApiKey");
  });
});
