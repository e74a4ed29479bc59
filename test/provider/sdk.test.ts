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
