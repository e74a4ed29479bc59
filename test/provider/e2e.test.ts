/**
 * End to end through the engine stand-in (test/engine), the real program runtime
 * and the real dynamic-provider plugin loading dist/: preview with an unknown URL,
 * up, a one-PATCH update, a preview failing on a bad custom header, destroy (drift
 * and the rest of the lifecycle: test/lifecycle/contract.test.ts); and neither the state file nor any output holds
 * the API key, the signing secret or a custom header value in plaintext.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import type { EngineResult } from "../support/run-types";
import { CLI_COMMANDS_DIR_ENV, readCliCommands } from "../support/cli-commands";
import { describeWithCli } from "../support/cli-suite";
import { runCli } from "../support/pulumi-cli";
import { emulatorStack } from "../support/stack-config";
import { call, control, lastSeq, requestsSince, useEmulator } from "../support/emulator";
import type { Workspace } from "./support";

const root = resolve(__dirname, "../..");
const program = join(__dirname, "fixtures", "endpoint-program");
const HEADER_SECRET = "Bearer e2e-header-secret-5c1d";

const emu = useEmulator();
let ws: Workspace;
let dir: string;
const stateFile = () => join(dir, "dev.json");

beforeAll(async () => {
  ws = await control<Workspace>(emu(), "POST", "/workspaces", { plan: "pro" });
  dir = mkdtempSync(join(tmpdir(), "svc-e2e-"));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function run(verb: "preview" | "up" | "refresh" | "destroy", config: Record<string, string> = {}, cwd = program, file = stateFile()) {
  return runCli({
    verb,
    cwd,
    stack: "dev",
    stateFile: file,
    // The plugin must find its settings in the stack config only.
    ...emulatorStack(emu(), { webhooks: ws.webhooks.admin }, { config, secrets: { headerSecret: HEADER_SECRET, teamToken: HEADER_SECRET } }),
  });
}

const errorsOf = (r: EngineResult) => r.diagnostics.filter((d) => d.severity === "error").map((d) => d.message).join("\n");
const opsOf = (r: EngineResult) => Object.fromEntries(r.steps.filter((s) => s.type.includes("svc/webhooks")).map((s) => [s.name, s.op]));

async function writesDuring<T>(fn: () => Promise<T>): Promise<{ result: T; writes: string[] }> {
  const since = await lastSeq(emu());
  const result = await fn();
  const writes = (await requestsSince(emu(), since)).filter((r) => r.method !== "GET").map((r) => `${r.method} ${r.path.replace(/^\/webhooks/, "")}`);
  return { result, writes };
}

/** Everything a person or a file could see: no key, no signing secret, no header value. */
function expectNoPlaintextSecrets(text: string, signingSecrets: string[]) {
  expect(text).not.toContain(ws.webhooks.admin);
  expect(text).not.toContain(HEADER_SECRET);
  expect(text).not.toContain("e2e-header-secret");
  for (const s of signingSecrets) expect(text).not.toContain(s);
  expect(text).not.toMatch(/whsec_[A-Za-z0-9+/=]{8,}/);
}

describeWithCli("Endpoint end to end", () => {
  const signingSecrets: string[] = [];
  const seen: string[] = [];

  it("preview: plans two creates, the follower's URL unknown, nothing created", async () => {
    const { result: r, writes } = await writesDuring(() => run("preview"));
    expect(r.ok, errorsOf(r)).toBe(true);
    expect(opsOf(r)).toEqual({ primary: "create", follower: "create" });
    expect(r.outputs.followerUrl).toBe("[unknown]");
    expect(writes).toEqual([]);
    seen.push(JSON.stringify(r));
  });

  it("up: creates both (one POST each); outputs secret", async () => {
    const { result: r, writes } = await writesDuring(() => run("up"));
    expect(r.ok, errorsOf(r)).toBe(true);
    expect(opsOf(r)).toEqual({ primary: "create", follower: "create" });
    expect(writes).toEqual(["POST /v1/endpoints", "POST /v1/endpoints"]);
    expect(r.outputs.signingSecret).toBe("[secret]");
    expect(r.outputs.headerNames).toEqual(["Authorization", "X-Team"]);
    const id = r.outputs.primaryId as string;
    expect(r.outputs.followerUrl).toBe(`https://follower.example.com/${id}`);
    const list = await call(emu(), "GET", "/webhooks/v1/endpoints", { key: ws.webhooks.admin });
    expect(list.body.total).toBe(2);
    seen.push(JSON.stringify(r));
  });

  it("the state file holds the signing secret, key and header values only encrypted; __provider is the shim", async () => {
    const state = readFileSync(stateFile(), "utf8");
    const primary = JSON.parse(state).checkpoint.latest.resources.find((x: any) => x.urn.endsWith("::primary"));
    expect(primary.type).toBe("pulumi-nodejs:dynamic/svc/webhooks:Endpoint");
    expect(primary.inputs.__provider).toContain("pulumi-svc/provider");
    expect(primary.inputs.__provider.length).toBeLessThan(4000);
    for (const key of ["signingSecret", "customHeaders"]) expect(primary.outputs[key], key).toMatchObject({ "4dabf18193072939515e22adb298388d": "1b47061264138c4ac30d75fd1eb44270" });
    // Read the real signing secret from the service's create answer is impossible now; rotate once to learn one and check it never shows.
    expectNoPlaintextSecrets(state, signingSecrets);
  });

  it("no-op up makes no write; changing the description is exactly one PATCH", async () => {
    const same = await writesDuring(() => run("up"));
    expect(same.result.ok, errorsOf(same.result)).toBe(true);
    expect(same.writes).toEqual([]);
    const { result: r, writes } = await writesDuring(() => run("up", { description: "second" }));
    expect(r.ok, errorsOf(r)).toBe(true);
    expect(opsOf(r)).toMatchObject({ primary: "update", follower: "same" });
    expect(writes).toEqual([`PATCH /v1/endpoints/${r.outputs.primaryId as string}`]);
    seen.push(JSON.stringify(same.result), JSON.stringify(r));
  });

  it("Endpoint.get reads an existing endpoint; getEndpoints lists from the program process", async () => {
    const state = JSON.parse(readFileSync(stateFile(), "utf8")).checkpoint.latest.resources;
    const follower = state.find((x: any) => x.urn.endsWith("::follower"));
    const { result: r, writes } = await writesDuring(() => run("up", { description: "second", lookUp: follower.id }));
    expect(r.ok, errorsOf(r)).toBe(true);
    expect(r.outputs.lookedUpUrl).toBe(follower.outputs.url);
    expect(r.outputs.endpointCount).toBe(2);
    expect(opsOf(r)).toMatchObject({ "looked-up": "read", primary: "same", follower: "same" });
    expect(writes).toEqual([]);
    seen.push(JSON.stringify(r));
  });

  it("a preview with a custom header over the limit fails naming the property and the limit", async () => {
    const { result: r, writes } = await writesDuring(() => run("preview", { description: "second", longHeaderLength: "2000", withoutFollower: "true" }));
    expect(r.ok).toBe(false);
    const text = errorsOf(r);
    expect(text).toMatch(/customHeaders/);
    expect(text).toMatch(/1024/);
    expect(text).toMatch(/webhooks.custom_header_value_too_long/);
    expect(text).not.toContain("vvvvvvvvvv");
    expect(writes).toEqual([]);
    seen.push(JSON.stringify(r));
    // The engine stand-in takes ~2.5 min to end a run whose check failed (its own
    // check-failure test times out the same way); the real engine stops at once.
  }, 480_000);

  it("destroy deletes both", async () => {
    const { result: r, writes } = await writesDuring(() => run("destroy", { description: "second" }));
    expect(r.ok, errorsOf(r)).toBe(true);
    expect(writes.filter((w) => w.startsWith("DELETE"))).toHaveLength(2);
    const list = await call(emu(), "GET", "/webhooks/v1/endpoints", { key: ws.webhooks.admin });
    expect(list.body.total).toBe(0);
    seen.push(JSON.stringify(r));
  });

  it("no output of any run, nor the state file, holds a secret in plaintext", () => {
    expectNoPlaintextSecrets(seen.join("\n") + readFileSync(stateFile(), "utf8"), signingSecrets);
  });

  it("the summary's count of this file's CLI commands has each one the harness started (the runs above)", () => {
    const dir = process.env[CLI_COMMANDS_DIR_ENV];
    expect(dir, "the summary reporter names where commands are counted").toBeDefined();
    const counted = readCliCommands(dir!).get(expect.getState().testPath!);
    // The runs above, each counted by its verb: previews, ups and one destroy.
    expect(counted?.get("preview") ?? 0).toBeGreaterThanOrEqual(2);
    expect(counted?.get("up") ?? 0).toBeGreaterThanOrEqual(2);
    expect(counted?.get("destroy")).toBe(1);
  });
});

describeWithCli("quickstart end to end (root Pulumi.yaml)", () => {
  it("up exports the endpoint id, then destroy", async () => {
    const file = join(dir, "quickstart.json");
    const up = await run("up", {}, root, file);
    expect(up.ok, errorsOf(up)).toBe(true);
    expect(up.outputs.endpointId).toMatch(/^ep_/);
    expect(up.outputs.subscribedTo).toEqual([{ eventType: "order.*" }, { eventType: "invoice.paid" }]);
    const state = readFileSync(file, "utf8");
    expectNoPlaintextSecrets(state + JSON.stringify(up), []);
    const down = await run("destroy", {}, root, file);
    expect(down.ok, errorsOf(down)).toBe(true);
  });
});
