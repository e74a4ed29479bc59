/**
 * `pulumi-resource-svc` itself: the port as the one line of stdout (and its start time,
 * printed, not asserted), GetPluginInfo and GetSchema over gRPC; then under the real CLI:
 * `pulumi package get-schema` lists the nine kinds, the stack's `svc:` config is checked at
 * preview (CheckConfig) with the environment as the fallback (Configure), and values not
 * known at preview pass through.
 */
import { spawn } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import * as grpc from "@grpc/grpc-js";
import { describe, expect, it } from "vitest";
import { PACKAGE_VERSION } from "../../provider/version";
import { emptyproto, fromStruct, pluginproto, provproto, provrpc, toStruct, unary } from "../engine/proto";
import { SECRET_SIG, SIG_KEY, type Json } from "../support/values";
import type { Workspace } from "../provider/support";
import { control, useEmulator } from "../support/emulator";
import { runCli } from "../support/pulumi-cli";
import { NATIVE_MISSING, nativeStack, PLUGIN_MAIN, pluginBinDir } from "./support";

const KINDS = ["svc:inboxes:Inbox", "svc:infra:QuotaLimits", "svc:infra:QuotaRequest", "svc:webhooks:Endpoint", "svc:webhooks:EventType", "svc:webhooks:EventTypePolicy", "svc:webhooks:OperationalEndpoint", "svc:webhooks:Source", "svc:webhooks:WorkspaceSettings"];

const schemaKinds = (text: string) => Object.keys((JSON.parse(text) as { resources: Record<string, unknown> }).resources).sort();

/** The plugin started as the engine starts it; its client, and a stop. */
async function startPlugin(): Promise<{ client: provrpc.ResourceProviderClient; stdout: () => string; startMs: number; stop: () => void }> {
  const started = process.hrtime.bigint();
  const child = spawn(process.execPath, [PLUGIN_MAIN], { stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  child.stdout.on("data", (b: Buffer) => (stdout += b.toString()));
  while (!stdout.includes("\n")) await new Promise((r) => setTimeout(r, 5));
  const startMs = Number(process.hrtime.bigint() - started) / 1e6;
  const client = new provrpc.ResourceProviderClient(`127.0.0.1:${stdout.trim()}`, grpc.credentials.createInsecure());
  return { client, stdout: () => stdout, startMs, stop: () => (client.close(), child.kill()) };
}

const emu = useEmulator();

describe.skipIf(NATIVE_MISSING !== undefined)("pulumi-resource-svc", () => {
  it("writes its port as the only line of stdout and answers GetPluginInfo and GetSchema", async () => {
    const plugin = await startPlugin();
    try {
      console.log(`pulumi-resource-svc: port line after ${plugin.startMs} ms`);
      expect(plugin.stdout()).toMatch(/^\d+\n$/);
      const info = await unary<pluginproto.PluginInfo>((cb) => plugin.client.getPluginInfo(new emptyproto.Empty(), cb));
      expect(info.getVersion()).toBe(PACKAGE_VERSION);
      const schema = await unary<provproto.GetSchemaResponse>((cb) => plugin.client.getSchema(new provproto.GetSchemaRequest(), cb));
      expect(schemaKinds(schema.getSchema())).toEqual(KINDS);
      // Nothing more on stdout: the engine reads the port line only.
      expect(plugin.stdout()).toMatch(/^\d+\n$/);
    } finally {
      plugin.stop();
    }
  });

  it("returns the outputs the schema marks secret as secrets, whatever the program asked (the API key from a secret config value)", async () => {
    const ws = await control<Workspace>(emu(), "POST", "/workspaces", { plan: "enterprise" });
    const plugin = await startPlugin();
    try {
      const secret = (value: Json) => ({ [SIG_KEY]: SECRET_SIG, value });
      const configure = new provproto.ConfigureRequest().setArgs(toStruct({ webhooksUrl: emu().webhooksUrl, webhooksApiKey: secret(ws.webhooks.admin) }));
      const answer = await unary<provproto.ConfigureResponse>((cb) => plugin.client.configure(configure, cb));
      expect(answer.getAcceptsecrets()).toBe(true);
      const create = new provproto.CreateRequest().setUrn("urn:pulumi:dev::p::svc:webhooks:Endpoint::orders").setType("svc:webhooks:Endpoint");
      create.setProperties(toStruct({ url: "https://hooks.example.com/orders", customHeaders: { "X-Team": "fulfilment" } }));
      const created = fromStruct((await unary<provproto.CreateResponse>((cb) => plugin.client.create(create, cb))).getProperties());
      expect(created["signingSecret"]).toMatchObject({ [SIG_KEY]: SECRET_SIG, value: expect.stringMatching(/^whsec_/) });
      // Sealed (engine/sealed.ts): the names, never the value.
      expect(created["customHeaders"]).toEqual(secret({ "X-Team": expect.stringMatching(/^hmac-sha256:/) }));
      expect(created["url"]).toBe("https://hooks.example.com/orders");
    } finally {
      plugin.stop();
    }
  });
});

const PROGRAM = `
resources:
  orders:
    type: svc:webhooks:Endpoint
    properties:
      url: https://hooks.example.com/orders
  bin:
    type: svc:inboxes:Inbox
    properties:
      label: for \${orders.id}
`;

describe.skipIf(NATIVE_MISSING !== undefined)("pulumi-resource-svc under the real CLI", () => {
  it("pulumi package get-schema lists the nine kinds: by the plugin's path, and by name once `pulumi plugin install --file` installed it", async () => {
    const s = await nativeStack(emu(), "native-schema", "");
    const launcher = path.join(pluginBinDir(), "pulumi-resource-svc");
    const byPath = await s.pulumi(["package", "get-schema", launcher], { withStack: false });
    expect(byPath.code, byPath.output).toBe(0);
    expect(schemaKinds(byPath.output)).toEqual(KINDS);
    const installed = await s.pulumi(["plugin", "install", "resource", "svc", PACKAGE_VERSION, "--file", launcher], { withStack: false });
    expect(installed.code, installed.output).toBe(0);
    const byName = await s.pulumi(["package", "get-schema", "svc"], { withStack: false });
    expect(byName.code, byName.output).toBe(0);
    expect(schemaKinds(byName.output)).toEqual(KINDS);
  });

  it("shows the provider's warnings in the run's output (the engine's log, not the plugin's stderr), on the resource", async () => {
    const s = await nativeStack(emu(), "native-warnings", PROGRAM);
    const r = await runCli({ ...s.options("preview"), config: { ...s.options("preview").config, "svc:skipRemoteChecks": "true" } });
    expect(r.ok, r.summary).toBe(true);
    const warnings = r.diagnostics.filter((d) => d.severity === "warning" && d.message.includes("svc:skipRemoteChecks is set"));
    expect(warnings.map((d) => d.urn?.split("::").slice(2).join("::")).sort(), r.summary).toEqual(["svc:inboxes:Inbox::bin", "svc:webhooks:Endpoint::orders"]);
    expect(r.summary).toContain("preview did not read the service to check endpoint resources");
  });

  it("warns of an API key set without --secret, not of one set with it, and stores either encrypted", async () => {
    const s = await nativeStack(emu(), "native-plain-key", PROGRAM);
    // The keys set with --secret: no warning (the engine strips the marks from CheckConfig's inputs; Configure reads them).
    const secret = await runCli(s.options("preview"));
    expect(secret.ok, secret.summary).toBe(true);
    expect(secret.summary).not.toContain("in plaintext");
    const base = s.options("up");
    const { "svc:webhooksApiKey": webhooksKey, "svc:inboxesApiKey": inboxesKey, ...secrets } = base.secrets!;
    const up = await runCli({ ...base, config: { ...base.config, "svc:webhooksApiKey": webhooksKey!, "svc:inboxesApiKey": inboxesKey! }, secrets });
    expect(up.ok, up.summary).toBe(true);
    // Named at up, with the command that sets it as a secret.
    expect(up.summary).toMatch(/warning: The stack's config holds `svc:webhooksApiKey`, `svc:inboxesApiKey`.* in plaintext \(set without --secret\)/);
    expect(up.summary).toContain("`pulumi config set --secret svc:webhooksApiKey <key>`");
    const stored = fs.readFileSync(up.stateFile, "utf8");
    expect(stored).toMatch(/"type":\s*"pulumi:providers:svc"/);
    for (const key of [webhooksKey!, inboxesKey!]) {
      expect(stored).not.toContain(key);
      expect(up.summary).not.toContain(key);
    }
    const destroyed = await runCli({ ...s.options("destroy"), config: { ...base.config, "svc:webhooksApiKey": webhooksKey!, "svc:inboxesApiKey": inboxesKey! }, secrets });
    expect(destroyed.ok, destroyed.summary).toBe(true);
  });

  it("checks the svc: config at preview, falls back to the environment, and previews values not known yet", async () => {
    const s = await nativeStack(emu(), "native-config", PROGRAM);
    const bad = await runCli({ ...s.options("preview"), config: { ...s.options("preview").config, "svc:maxConcurrency": "lots" } });
    expect(bad.ok).toBe(false);
    // Refused by CheckConfig, on the provider itself, before any resource is checked.
    expect(bad.summary).toContain("pulumi:providers:svc resource 'default' has a problem: Stack config `svc:maxConcurrency` is \"lots\"; it must be a whole number of requests in flight from 1 to 10000");

    // A misspelt key is named, with the key meant; a key like none gets the list, not a guess; the preview goes on.
    const profiles = JSON.stringify({ other: { webhookUrl: "http://127.0.0.1:1/webhooks" } });
    const misspelt = await runCli({ ...s.options("preview"), config: { ...s.options("preview").config, "svc:webhookUrl": "http://127.0.0.1:1/webhooks", "svc:colour": "blue", "svc:profiles.ci.webhooksUrl": "http://127.0.0.1:1/webhooks", "svc:profiles": profiles } });
    expect(misspelt.ok, misspelt.summary).toBe(true);
    expect(misspelt.summary).toContain("Stack config `svc:webhookUrl` is not a setting of this provider and is ignored: did you mean `svc:webhooksUrl`? (`pulumi config rm svc:webhookUrl`)");
    // Inside a profile too (adv37f F5).
    expect(misspelt.summary).toContain("Stack config `svc:profiles.other.webhookUrl` is not a setting of a profile and is ignored: did you mean `svc:profiles.other.webhooksUrl`? (`pulumi config rm --path svc:profiles.other.webhookUrl`)");
    expect(misspelt.summary).toMatch(/Stack config `svc:colour` is not a setting of this provider and is ignored: its settings are `svc:\w+`, .*`svc:webhooksApiKey`.*\. \(`pulumi config rm svc:colour`\)/);
    // A profile's setting set without --path is a flat key: the message gives the command with --path.
    expect(misspelt.summary).toContain("Stack config `svc:profiles.ci.webhooksUrl` is not a setting of this provider and is ignored: it was set without --path, so it is a flat key, not a profile's setting: remove it (`pulumi config rm svc:profiles.ci.webhooksUrl`) and set it with `pulumi config set --path svc:profiles.ci.webhooksUrl <value>`.");

    const base = s.options("preview");
    const fromEnv = await runCli({
      ...base,
      config: {},
      secrets: {},
      env: { ...base.env, SVC_WEBHOOKS_URL: emu().webhooksUrl, SVC_WEBHOOKS_API_KEY: s.ws.webhooks.admin, SVC_INBOXES_URL: emu().inboxesUrl, SVC_INBOXES_API_KEY: s.ws.inboxes.admin },
    });
    expect(fromEnv.ok, fromEnv.summary).toBe(true);
    // The inbox's label holds the endpoint's id, not known before the endpoint exists.
    expect(fromEnv.steps.filter((st) => st.type.startsWith("svc:")).map((st) => `${st.op} ${st.type}`).sort()).toEqual(["create svc:inboxes:Inbox", "create svc:webhooks:Endpoint"]);

    const none = await runCli({ ...base, config: {}, secrets: {} });
    expect(none.ok).toBe(false);
    expect(none.summary).toContain("set stack config `svc:webhooksUrl`");
  });
});
