/**
 * The SDK in the program process: the class registers under its own type token
 * with the shim as `__provider`, secrets wrapped, every output declared; the
 * functions read through stack config / env and return plain data.
 */
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import * as path from "node:path";
import * as pulumi from "@pulumi/pulumi";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as svc from "../../sdk";
import { closeSharedDispatcher } from "../../provider";
import { control, useEmulator } from "../support/emulator";
import type { Workspace } from "./support";
import { checkInputs } from "../../provider/engine/check";
import { UNKNOWN } from "../../provider/engine/unknown";
import { endpointDefinition } from "../../provider/webhooks/endpoint";

interface Registered {
  type: string;
  name: string;
  inputs: Record<string, any>;
}
const registered: Registered[] = [];

beforeAll(async () => {
  await pulumi.runtime.setMocks(
    {
      newResource: (args) => {
        registered.push({ type: args.type, name: args.name, inputs: args.inputs });
        return { id: `${args.name}-id`, state: { ...args.inputs, signingSecret: "whsec_mock", verified: false } };
      },
      call: () => ({}),
    },
    "project",
    "stack",
    false,
  );
});

const value = <T>(o: pulumi.Output<T>) => new Promise<T>((resolve) => o.apply((v) => resolve(v)));
const isSecret = <T>(o: pulumi.Output<T>) => (o as any).isSecret as Promise<boolean>;

describe("svc.webhooks.Endpoint", () => {
  it("registers under pulumi-nodejs:dynamic/svc/webhooks:Endpoint, with the static __pulumiType equal to it", async () => {
    const ep = new svc.webhooks.Endpoint("orders", {
      url: "https://example.com/h",
      subscriptions: [{ eventType: "order.*" }],
      customHeaders: { "X-Team": "orders" },
      secret: "whsec_given",
      maxAttempts: 3,
    });
    expect(svc.webhooks.Endpoint.__pulumiType).toBe("pulumi-nodejs:dynamic/svc/webhooks:Endpoint");
    expect(await value(ep.urn)).toContain("pulumi-nodejs:dynamic/svc/webhooks:Endpoint::orders");
    const reg = registered.find((r) => r.name === "orders")!;
    expect(reg.type).toBe(svc.webhooks.Endpoint.__pulumiType);
    expect(typeof reg.inputs.__provider).toBe("string");
    expect(reg.inputs.__provider).toContain("pulumi-svc/provider");
    expect(reg.inputs.subscriptions).toEqual([{ eventType: "order.*" }]);
    expect(await value(ep.maxAttempts)).toBe(3);
    expect(await value(ep.signingSecret)).toBe("whsec_mock");
    expect(await isSecret(ep.customHeaders)).toBe(true);
    expect(await isSecret(ep.secret)).toBe(true);
    // signingSecret is made secret by the engine (additionalSecretOutputs), which mocks do not run: see the e2e test.
    expect(await isSecret(ep.url)).toBe(false);
  });
});

describe("svc.webhooks.Endpoint plaintextHeaderNames (what policy packs read)", () => {
  const namesOf = async (name: string, customHeaders: svc.webhooks.EndpointArgs["customHeaders"]) => {
    const ep = new svc.webhooks.Endpoint(name, { url: "https://example.com/h", customHeaders });
    await value(ep.urn);
    return { ep, names: registered.find((r) => r.name === name)!.inputs.plaintextHeaderNames };
  };

  it("lists the headers given as plain strings or non-secret outputs, never the secret ones, and no values", async () => {
    const { ep, names } = await namesOf("mixed", {
      "X-Team": "orders",
      Authorization: pulumi.secret("Bearer s3cr3t-token"),
      "X-Trace": pulumi.output("plain-output"),
    });
    expect(names).toEqual(["X-Team", "X-Trace"]);
    expect(JSON.stringify(names)).not.toContain("s3cr3t");
    expect(await isSecret(ep.plaintextHeaderNames)).toBe(false);
    // The map itself is still a secret in state, whatever the program wrote.
    expect(await isSecret(ep.customHeaders)).toBe(true);
  });

  it("lists nothing when the whole map is a secret, and everything when it is a plain output", async () => {
    expect((await namesOf("all-secret", pulumi.secret({ Authorization: "Bearer x" }))).names).toEqual([]);
    expect((await namesOf("all-plain", pulumi.output({ B: "1", A: "2" }))).names).toEqual(["A", "B"]);
  });
});

// adv14b F1, F6, F7: whatever the program gives as customHeaders, the SDK throws nothing; the provider's check names
// the problem on customHeaders, at preview.
describe("svc.webhooks.Endpoint customHeaders: bad input reaches the provider's check", () => {
  const inputsOf = async (name: string, args: unknown) => {
    const ep = new svc.webhooks.Endpoint(name, args as svc.webhooks.EndpointArgs);
    await value(ep.urn);
    return registered.find((r) => r.name === name)!.inputs;
  };
  /** The inputs as the dynamic provider's check gets them: secrets unwrapped (the mocks keep the engine's envelope). */
  const SECRET_SIG_KEY = "4dabf18193072939515e22adb298388d";
  const revealed = (v: unknown): any =>
    Array.isArray(v) ? v.map(revealed) : v && typeof v === "object" ? (SECRET_SIG_KEY in v ? revealed((v as { value?: unknown }).value) : Object.fromEntries(Object.entries(v).map(([k, i]) => [k, revealed(i)]))) : v;
  const failuresOf = (inputs: Record<string, unknown>) => checkInputs(endpointDefinition, revealed(inputs)).failures;
  /** An Output not known yet, as another resource's output is at preview. */
  const notKnown = () => new (pulumi.Output as any)(new Set(), Promise.resolve(undefined), Promise.resolve(false), Promise.resolve(false), Promise.resolve(new Set())) as pulumi.Output<string>;

  it("names every header, secret or not known yet, so a managed name fails the preview while the secret map as a whole is unknown", async () => {
    const inputs = await inputsOf("hdr-unknown", { url: "https://example.com/h", customHeaders: { "X-A": notKnown(), "Content-Type": "x", Authorization: pulumi.secret("Bearer t") } });
    expect(inputs.declaredHeaderNames).toEqual(["Authorization", "Content-Type", "X-A"]);
    // At preview the engine hands the check the secret map as one unknown value; the names still reach it.
    expect(failuresOf({ url: "https://example.com/h", customHeaders: UNKNOWN, declaredHeaderNames: inputs.declaredHeaderNames })).toEqual([
      { property: "customHeaders", reason: "Header 'Content-Type' is set by the service and cannot be customised. (webhooks.custom_header_managed)" },
    ]);
  });

  it("an array is passed on as given and refused as the wrong type, never sent as a header named \"0\"", async () => {
    const inputs = await inputsOf("hdr-list", { url: "https://example.com/h", customHeaders: ["a"] });
    expect(revealed(inputs.customHeaders)).toEqual(["a"]);
    expect(inputs.declaredHeaderNames).toBeUndefined();
    expect(inputs.plaintextHeaderNames).toBeUndefined();
    expect(failuresOf(inputs)).toEqual([{ property: "customHeaders", reason: expect.stringMatching(/expected record, received array \(type, expected record, given array\)$/) }]);
  });

  it("null is taken as no headers, with no TypeError", async () => {
    const inputs = await inputsOf("hdr-null", { url: "https://example.com/h", customHeaders: null });
    expect(inputs.customHeaders ?? null).toBeNull();
    expect(failuresOf(inputs)).toEqual([]);
  });

  it.each([
    { name: "constructor", headers: { constructor: "x" } },
    { name: "__proto__", headers: new Map([["__proto__", "x"]]) },
  ])("a header named $name fails the check with the rules' message, not an exception in the program", async ({ name, headers }) => {
    const inputs = await inputsOf(`hdr-proto-${name}`, { url: "https://example.com/h", customHeaders: headers });
    expect(inputs.declaredHeaderNames).toEqual([name]);
    expect(failuresOf(inputs)).toEqual([{ property: "customHeaders", reason: expect.stringContaining(`Header name '${name}' is a JavaScript prototype key`) }]);
  });

  it("no args at all: the check names the missing argument, with no TypeError in the program", async () => {
    const inputs = await inputsOf("no-args", undefined);
    expect(failuresOf(inputs)).toEqual([{ property: "url", reason: expect.stringMatching(/^missing required argument url\./) }]);
  });
});

// The other Webhooks resources: token, shim, every output declared, secrets wrapped.
describe("svc.webhooks resource classes", () => {
  it.each([
    { cls: svc.webhooks.EventType, type: "EventType", make: () => new svc.webhooks.EventType("et", { name: "a.b", payloadSchema: { type: "object" } }), outputs: ["name", "description", "projectId", "payloadSchema", "origin", "createdAt"] },
    { cls: svc.webhooks.EventTypePolicy, type: "EventTypePolicy", make: () => new svc.webhooks.EventTypePolicy("pol", { policy: "strict" }), outputs: ["policy", "projectId", "inherited", "previous"] },
    { cls: svc.webhooks.Source, type: "Source", make: () => new svc.webhooks.Source("src", { provider: "generic" }), outputs: ["provider", "name", "brokerPort", "status", "ingestUrl", "generatedSecret", "secret"] },
    { cls: svc.webhooks.OperationalEndpoint, type: "OperationalEndpoint", make: () => new svc.webhooks.OperationalEndpoint("ops", { url: "https://o.example.com", eventTypes: ["delivery.dead"] }), outputs: ["url", "eventTypes", "projectId", "description", "createdAt"] },
    { cls: svc.webhooks.WorkspaceSettings, type: "WorkspaceSettings", make: () => new svc.webhooks.WorkspaceSettings("ws", { endpointVerification: "required" }), outputs: ["endpointVerification", "workspaceId", "plan", "previous"] },
  ])("$type: token, shim, every output declared", async ({ cls, type, make, outputs }) => {
    const res = make() as unknown as Record<string, pulumi.Output<unknown>> & pulumi.CustomResource;
    expect((cls as unknown as { __pulumiType: string }).__pulumiType).toBe(`pulumi-nodejs:dynamic/svc/webhooks:${type}`);
    await value(res.urn);
    const reg = registered.find((r) => r.type === `pulumi-nodejs:dynamic/svc/webhooks:${type}`)!;
    expect(reg.inputs.__provider).toContain("pulumi-svc/provider");
    for (const name of outputs) {
      expect(name in reg.inputs || res[name] !== undefined, name).toBe(true);
      await value(res[name]!); // resolves (null when not set)
    }
  });

  it("a source's secret input stays a secret", async () => {
    const src = new svc.webhooks.Source("pay", { provider: "payments", secret: "pay-secret-sdk" });
    expect(await isSecret(src.secret)).toBe(true);
    expect(await isSecret(src.name)).toBe(false);
  });
});

describe("svc.webhooks.getEndpoint / getEndpoints (program process)", () => {
  const emu = useEmulator();
  let ws: Workspace;
  beforeAll(async () => {
    ws = await control<Workspace>(emu(), "POST", "/workspaces", { plan: "pro" });
    process.env.SVC_WEBHOOKS_URL = emu().webhooksUrl;
    process.env.SVC_WEBHOOKS_API_KEY = ws.webhooks.admin;
    for (let i = 0; i < 5; i++) {
      await fetch(`${emu().webhooksUrl}/v1/endpoints`, {
        method: "POST",
        headers: { authorization: `Bearer ${ws.webhooks.admin}`, "content-type": "application/json" },
        body: JSON.stringify({ url: `https://h${i}.example.com/in`, subscriptions: [{ event_type: "a.*" }], custom_headers: { "X-A": "v" } }),
      });
    }
  });
  afterAll(async () => {
    delete process.env.SVC_WEBHOOKS_URL;
    delete process.env.SVC_WEBHOOKS_API_KEY;
    await closeSharedDispatcher();
  });

  it("getEndpoints walks every page and returns camelCase plain data", async () => {
    const all = await svc.webhooks.getEndpoints({ projectId: ws.project_id });
    expect(all).toHaveLength(5);
    expect(all[0]).toMatchObject({ subscriptions: [{ eventType: "a.*" }], customHeaderNames: ["X-A"], projectId: ws.project_id, status: "enabled" });
    const one = await svc.webhooks.getEndpoint({ id: all[2]!.id });
    expect(one).toEqual(all[2]);
  });

  it("getEndpoint of a missing id says so, naming the id", async () => {
    await expect(svc.webhooks.getEndpoint({ id: "ep_missing" })).rejects.toThrow(/no endpoint ep_missing is visible/);
  });

  it("a program loads the provider's modules only when it calls a function (the built SDK, as a program requires it), and every function works from it", async () => {
    // In a plain Node process, as a program requires the package: which provider modules are loaded after the SDK,
    // then after its functions ran (every one that reaches the provider's modules, each way it does), and their answers.
    const script = `
      const loaded = () => Object.keys(require.cache).filter((f) => /[\\/](zod|ajv|undici)[\\/]|[\\/]dist[\\/]provider[\\/](engine[\\/]operations|functions)\\.js$/.test(f)).length;
      const svc = require(${JSON.stringify(path.resolve("dist/sdk/index.js"))});
      const before = loaded();
      const calls = {
        getEndpoints: () => svc.webhooks.getEndpoints({ projectId: ${JSON.stringify(ws.project_id)} }).then((all) => all.length),
        getAuthMe: () => svc.webhooks.getAuthMe().then((me) => me.workspaceId),
        getEventTypes: () => svc.webhooks.getEventTypes().then((all) => all.length),
        getSources: () => svc.webhooks.getSources().then((all) => all.length),
        getDeliveries: () => svc.webhooks.getDeliveries().then((all) => all.length),
        getInboxes: () => svc.inboxes.getInboxes().then((all) => all.length),
        getPlan: () => svc.inboxes.getPlan().then((plan) => typeof plan),
        getMessages: () => svc.inboxes.getMessages({ inboxId: "inb_missing" }),
        getQuotas: () => svc.infra.getQuotas().then((all) => all.length > 0),
      };
      (async () => {
        const answers = {};
        for (const [name, call] of Object.entries(calls)) answers[name] = await call().then((v) => v, (e) => "error: " + e.message);
        console.log(JSON.stringify({ before, after: loaded(), answers }));
      })();`;
    const env = { ...process.env, SVC_INBOXES_URL: emu().inboxesUrl, SVC_INBOXES_API_KEY: ws.inboxes.admin, SVC_INFRA_URL: emu().infraUrl, SVC_INFRA_API_KEY: ws.infra.admin };
    // Not synchronously: the emulator answering the calls runs in this process.
    const { stdout } = await promisify(execFile)(process.execPath, ["-e", script], { env, encoding: "utf8" });
    const out = JSON.parse(stdout) as { before: number; after: number; answers: Record<string, unknown> };
    expect(out.before).toBe(0);
    expect(out.after).toBeGreaterThan(0);
    expect(out.answers).toEqual({
      getEndpoints: 5,
      getAuthMe: ws.workspace_id,
      getEventTypes: 0,
      getSources: 0,
      getDeliveries: 0,
      getInboxes: 0,
      getPlan: "object",
      // The SDK's own words for a 404 (isApiError and withMessage from the provider's modules), then the request's.
      getMessages: expect.stringMatching(/^error: The inbox inb_missing is gone \(released or expired\) or not visible to the key in use\. \(GET \/v1\/inboxes\/inb_missing\/messages → 404/),
      getQuotas: true,
    });
  });
});
