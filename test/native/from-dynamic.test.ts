/**
 * A stack of dynamic resources moved to the native types with no replacement and no write,
 * under the real CLI, from two states of every kind: the 0.1.0 release's (test/fixtures/state/0.1.0,
 * brought into a stack as test/lifecycle/upgrade.test.ts does) and one today's TypeScript SDK
 * writes (test/lifecycle/program: secret inputs listed under `__secretInputs`). Each is managed
 * from then on by a YAML program of `svc:<module>:<Type>` resources, each with an alias naming
 * its old URN (`pulumi-nodejs:dynamic/svc/<module>:<Type>`), as the README's steps say. Preview
 * shows every resource the same, the up writes nothing to the service, the next preview is
 * clean, a refresh finds no drift and drops the dynamic provider's `__provider` text from the
 * outputs, a change after the move is one PATCH, and destroy deletes what the state holds.
 */
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startEmulator, type RunningEmulator } from "../../emulator";
import { DEFAULT_TEST_PASSPHRASE } from "../support/crypter";
import type { EngineOptions, EngineResult, Verb } from "../support/run-types";
import { StateFile, type Deployment } from "../support/state";
import { fixtureSecrets, stackOptions, type Declared } from "../lifecycle/stack";
import type { Workspace } from "../provider/support";
import { control, lastSeq, requestsSince } from "../support/emulator";
import { importCliState, loadCliState, runCli } from "../support/pulumi-cli";
import { NATIVE_MISSING, nativePath, writesOf } from "./support";

const RELEASE = join(__dirname, "../fixtures/state/0.1.0");
const PROJECT = "svc-lifecycle";
const STACK = "release";
/** One run of a 9-resource stack: seconds on a quiet machine, about a minute on a loaded one. */
const RUN_TIMEOUT = 300_000;

interface Meta {
  emulatorUrl: string;
  workspace: Workspace;
  resources: Declared[];
}

/** `{ "$secret": "k" }` (the lifecycle program's secret reference) as the YAML program's `${k}`. */
function interpolated(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(interpolated);
  if (value && typeof value === "object") {
    const ref = (value as { $secret?: unknown }).$secret;
    if (typeof ref === "string") return `\${${ref}}`;
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, interpolated(v)]));
  }
  return value;
}

/** The YAML program (as JSON, which YAML reads) declaring `resources` with native types, each aliased to its dynamic URN. */
function nativeProgram(resources: Declared[], secrets: string[], description?: string): string {
  const program = {
    name: PROJECT,
    runtime: "yaml",
    config: Object.fromEntries(secrets.map((k) => [k, { type: "string", secret: true }])),
    resources: Object.fromEntries(
      resources.map((d) => [
        d.name,
        {
          type: `svc:${d.kind}`,
          properties: interpolated(d.kind === "webhooks:Endpoint" && description ? { ...d.inputs, description } : d.inputs),
          options: { aliases: [`urn:pulumi:${STACK}::${PROJECT}::pulumi-nodejs:dynamic/svc/${d.kind}::${d.name}`] },
        },
      ]),
    ),
  };
  return JSON.stringify(program, null, 2);
}

if (NATIVE_MISSING) console.log(`from dynamic to native under the real CLI: skipped: ${NATIVE_MISSING}`);
/** Where the dynamic stack comes from: the release's state imported, or an up of today's SDK. */
type Source = "0.1.0's state" | "today's TypeScript SDK";

for (const source of ["0.1.0's state", "today's TypeScript SDK"] as Source[]) describe.skipIf(NATIVE_MISSING !== undefined)(`a stack of dynamic resources (${source}) moved to the native types`, () => {
  const meta = JSON.parse(readFileSync(join(RELEASE, "stack-meta.json"), "utf8")) as Meta;
  let ws = meta.workspace;
  const secrets = Object.fromEntries(Object.entries(fixtureSecrets()).map(([k, v]) => [k.replace(/^lifecycle:/, `${PROJECT}:`), v]));
  const secretNames = Object.keys(secrets).map((k) => k.slice(PROJECT.length + 1));
  let emu: RunningEmulator;
  let dir: string;

  const options = (verb: Verb): EngineOptions => ({
    verb,
    cwd: dir,
    stack: STACK,
    stateFile: join(dir, "state", "stack.json"),
    config: { "svc:webhooksUrl": emu.webhooksUrl, "svc:inboxesUrl": emu.inboxesUrl, "svc:infraUrl": emu.infraUrl },
    secrets: {
      ...secrets,
      "svc:webhooksApiKey": ws.webhooks.admin,
      "svc:inboxesApiKey": ws.inboxes.admin,
      "svc:infraApiKey": ws.infra.member,
      "svc:profiles": JSON.stringify({ infraAdmin: { infraUrl: emu.infraUrl, infraApiKey: ws.infra.admin } }),
    },
    env: { PATH: nativePath(), SVC_WEBHOOKS_URL: "", SVC_WEBHOOKS_API_KEY: "", SVC_INBOXES_URL: "", SVC_INBOXES_API_KEY: "", SVC_INFRA_URL: "", SVC_INFRA_API_KEY: "" },
  });
  const writesDuring = async (fn: () => Promise<EngineResult>) => {
    const since = await lastSeq(emu);
    const result = await fn();
    return { result, writes: writesOf(await requestsSince(emu, since)) };
  };
  const svcSteps = (r: EngineResult) => r.steps.filter((s) => s.type.startsWith("svc:") || s.type.startsWith("pulumi-nodejs:dynamic/"));

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "svc-native-from-dynamic-"));
    writeFileSync(join(dir, "Pulumi.yaml"), nativeProgram(meta.resources, secretNames));
    if (source === "0.1.0's state") {
      copyFileSync(join(RELEASE, "service.json"), join(dir, "service.json"));
      emu = await startEmulator({ stateFile: join(dir, "service.json") });
      // The release's state (the stand-in's file, its own encryption), pointed at this emulator, into a stack of the CLI.
      const released = JSON.parse(JSON.stringify(new StateFile(join(RELEASE, "stack.json"), DEFAULT_TEST_PASSPHRASE).load()).replaceAll(meta.emulatorUrl, emu.url)) as Deployment;
      importCliState(options("preview"), released);
    } else {
      emu = await startEmulator();
      ws = await control<Workspace>(emu, "POST", "/workspaces", { plan: "enterprise" });
      // The same resources made by the TypeScript program of the lifecycle suite, into the same stack (its state file).
      const made = await runCli({ ...stackOptions(emu, ws, "up", STACK, options("up").stateFile!, meta.resources), env: options("up").env });
      expect(made.ok, made.summary).toBe(true);
      expect(JSON.stringify(loadCliState(options("up")))).toContain("__secretInputs");
    }
  }, RUN_TIMEOUT);
  afterAll(async () => {
    await emu?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  }, RUN_TIMEOUT);

  it("preview shows every resource the same (no replace, no update), and writes nothing", async () => {
    const { result: r, writes } = await writesDuring(() => runCli(options("preview")));
    expect(r.ok, r.summary).toBe(true);
    expect(svcSteps(r).map((s) => `${s.op} ${s.type} ${s.name}`).sort()).toEqual(meta.resources.map((d) => `same svc:${d.kind} ${d.name}`).sort());
    expect(writes).toEqual([]);
  }, RUN_TIMEOUT);

  it("up moves the state to the native types, same ids, with no write; the next preview is clean; no secret in plaintext", async () => {
    const before = loadCliState(options("up"));
    const { result: r, writes } = await writesDuring(() => runCli(options("up")));
    expect(r.ok, r.summary).toBe(true);
    expect(svcSteps(r).filter((s) => s.op !== "same"), r.summary).toEqual([]);
    expect(writes).toEqual([]);
    const after = loadCliState(options("up")).filter((x) => x.custom && !x.type.startsWith("pulumi:providers:"));
    expect(after.map((x) => `${x.type} ${x.id}`).sort()).toEqual(before.filter((x) => x.type.startsWith("pulumi-nodejs:dynamic/")).map((x) => `${x.type.replace("pulumi-nodejs:dynamic/svc/", "svc:")} ${x.id}`).sort());
    const stored = readFileSync(r.stateFile, "utf8");
    for (const value of Object.values(secrets)) expect(stored).not.toContain(value);

    const { result: again, writes: none } = await writesDuring(() => runCli(options("preview")));
    expect(again.ok, again.summary).toBe(true);
    expect(svcSteps(again).filter((s) => s.op !== "same"), again.summary).toEqual([]);
    expect(none).toEqual([]);
  }, RUN_TIMEOUT);

  it("refresh after the move finds no drift, drops the dynamic provider's text and writes nothing; the up after it neither", async () => {
    const { result: r, writes } = await writesDuring(() => runCli(options("refresh")));
    expect(r.ok, r.summary).toBe(true);
    expect(svcSteps(r).filter((s) => s.op !== "same"), r.summary).toEqual([]);
    // A same step keeps the stored outputs as they were; the first read gives the native shape.
    for (const res of loadCliState(options("refresh")).filter((x) => x.type.startsWith("svc:"))) expect(Object.keys(res.outputs), res.urn).not.toContain("__provider");
    const { result: up, writes: more } = await writesDuring(() => runCli(options("up")));
    expect(up.ok, up.summary).toBe(true);
    expect(svcSteps(up).filter((s) => s.op !== "same"), up.summary).toEqual([]);
    expect([...writes, ...more]).toEqual([]);
  }, RUN_TIMEOUT);

  it("a change after the move is one PATCH; destroy deletes what the state holds", async () => {
    writeFileSync(join(dir, "Pulumi.yaml"), nativeProgram(meta.resources, secretNames, "moved to native"));
    const endpoint = loadCliState(options("up")).find((x) => x.type === "svc:webhooks:Endpoint")!;
    const { result: r, writes } = await writesDuring(() => runCli(options("up")));
    expect(r.ok, r.summary).toBe(true);
    expect(svcSteps(r).filter((s) => s.op !== "same").map((s) => [s.name, s.op, s.diffs])).toEqual([["endpoint", "update", ["description"]]]);
    expect(writes).toEqual([`PATCH /webhooks/v1/endpoints/${endpoint.id}`]);

    const { result: down } = await writesDuring(() => runCli(options("destroy")));
    expect(down.ok, down.summary).toBe(true);
    expect(loadCliState(options("destroy")).filter((x) => x.custom && !x.type.startsWith("pulumi:providers:"))).toEqual([]);
    const endpoints = (await (await fetch(`${emu.webhooksUrl}/v1/endpoints`, { headers: { authorization: `Bearer ${ws.webhooks.admin}` } })).json()) as { total: number };
    expect(endpoints.total).toBe(0);
  }, RUN_TIMEOUT);
});
