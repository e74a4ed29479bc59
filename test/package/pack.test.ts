/**
 * The package as npm ships it: `npm pack`, installed into a fresh project outside the
 * repository, as a user would. Asserts what the tarball holds, that a program
 * type-checks under Pulumi's template tsconfig (commonjs, moduleResolution node), under
 * node16 and under bundler, that `npx pulumi-svc-emulator` starts the emulator, and that
 * `pulumi-svc/testing` and the installed provider work against it, and that the real
 * Pulumi CLI runs the GitOps example there with the installed policy pack.
 *
 * The install uses npm's cache (`--prefer-offline`); it reaches the registry only for
 * what the cache lacks. Needs dist/ (`npm test` builds it first).
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PACK_NAME } from "../../policy/pack";
import { AnalyzerClient } from "../policy/analyzer-client";
import { cliRunner } from "../support/runner";
import { startTestEmulator } from "../../testing";
import { REPO, TEMPLATE_OPTIONS, packTarball, run } from "./project";

const repoPackage = JSON.parse(readFileSync(join(REPO, "package.json"), "utf8")) as {
  version: string;
  license: string;
  devDependencies: Record<string, string>;
};

let work: string;
let project: string;
let files: string[];

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), "pulumi-svc-pack-"));
  const packed = await packTarball();
  files = packed.files;
  project = join(work, "project");
  mkdirSync(project);
  writeFileSync(join(project, "package.json"), JSON.stringify({ name: "my-infra", version: "1.0.0", private: true }));
  const pinned = (name: string) => `${name}@${repoPackage.devDependencies[name]}`;
  run(
    "npm",
    ["install", "--prefer-offline", "--ignore-scripts", packed.tarball, pinned("@pulumi/pulumi"), pinned("@pulumi/policy"), pinned("typescript"), pinned("@types/node"), pinned("tsx")],
    project,
  );
}, 600_000);

afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

describe("the tarball", () => {
  it("holds the build, the policy pack's loader, README, LICENSE and package.json, and no sources, tests, benchmarks or CI", () => {
    const strays = files.filter(
      (f) =>
        /^(test|bench|scripts|examples|\.ci|sdk|provider|rules|emulator\/(core|webhooks|inboxes|infra)|testing)\//.test(f) ||
        (f.endsWith(".ts") && !f.endsWith(".d.ts")) ||
        f.endsWith(".map") ||
        /vitest|tsconfig/.test(f),
    );
    expect(strays).toEqual([]);
    for (const f of ["package.json", "README.md", "LICENSE", "dist/sdk/index.js", "dist/sdk/index.d.ts", "dist/emulator/cli.js", "dist/native/main.js", "schema.json", "dist/testing/index.d.ts", "dist/policy/index.js", "policy/package.json", "policy/PulumiPolicy.yaml"]) {
      expect(files).toContain(f);
    }
    // Everything else is the build or documentation (schema.json: the native plugin's GetSchema).
    expect(files.filter((f) => !/^dist\/.*\.(js|d\.ts)$/.test(f) && !f.endsWith(".md") && !["package.json", "LICENSE", "schema.json", "policy/package.json", "policy/PulumiPolicy.yaml"].includes(f))).toEqual([]);
  });

  it("declares every package its code requires (the native plugin's gRPC and protobuf included), not counting on another's dependencies", () => {
    const installed = join(project, "node_modules/pulumi-svc");
    const manifest = JSON.parse(readFileSync(join(installed, "package.json"), "utf8")) as { dependencies?: Record<string, string>; peerDependencies?: Record<string, string> };
    const declared = new Set([...Object.keys(manifest.dependencies ?? {}), ...Object.keys(manifest.peerDependencies ?? {})]);
    const packageOf = (specifier: string) => specifier.split("/").slice(0, specifier.startsWith("@") ? 2 : 1).join("/");
    const undeclared = new Set<string>();
    for (const f of files.filter((f) => f.endsWith(".js"))) {
      for (const [, specifier] of readFileSync(join(installed, f), "utf8").matchAll(/require\("([^".][^"]*)"\)/g)) {
        if (!specifier!.startsWith("node:") && !declared.has(packageOf(specifier!))) undeclared.add(`${packageOf(specifier!)} (${f})`);
      }
    }
    expect([...undeclared]).toEqual([]);
  });

  it("carries a LICENSE matching the declared licence", () => {
    expect(repoPackage.license).toBe("Apache-2.0");
    const license = readFileSync(join(project, "node_modules/pulumi-svc/LICENSE"), "utf8");
    expect(license).toContain("Apache License");
    expect(license).toContain("Version 2.0, January 2004");
  });
});

/** A program using every public entry point; the policy pack's is checked apart (see below). */
const PROGRAM = `
import * as pulumi from "@pulumi/pulumi";
import * as svc from "pulumi-svc";
import { startEmulator } from "pulumi-svc/emulator";
import { startTestEmulator, connectTestEmulator, type TestEmulator, type FaultSpec } from "pulumi-svc/testing";

const config = new pulumi.Config();
const orders = new svc.webhooks.Endpoint("orders", {
  url: "https://hooks.example.com/orders",
  subscriptions: [{ eventType: "order.*" }],
  customHeaders: { Authorization: pulumi.interpolate\`Bearer \${config.requireSecret("teamToken")}\` },
  maxAttempts: 5,
});
const bin = new svc.inboxes.Inbox("bin", { transport: "http", expiresInMinutes: 60 });
export const endpointId: pulumi.Output<string> = orders.id;
export const binUrl = bin.url;
const fault: FaultSpec = { method: "POST", path: "/webhooks/v1/endpoints", status: 503, count: 1 };
export async function inTests(): Promise<void> {
  const emu: TestEmulator = await startTestEmulator({ defaultPlan: "pro" });
  await emu.injectFault(fault);
  const webhooksUrl: string = emu.config["svc:webhooksUrl"]!;
  await (await connectTestEmulator(emu.url)).requests({ pathPrefix: "/webhooks" });
  await startEmulator({ port: 0 }).then((e) => e.close());
  void webhooksUrl;
  await emu.close();
}
`;

/** Type-checks files (name -> source) in the project with these options; the compiler's output. */
function typeCheck(config: string, sources: Record<string, string>, options: Record<string, unknown>): string {
  for (const [name, source] of Object.entries(sources)) writeFileSync(join(project, name), source);
  writeFileSync(join(project, `tsconfig.${config}.json`), JSON.stringify({ compilerOptions: { ...options, noEmit: true }, files: Object.keys(sources) }));
  const res = spawnSync(join(project, "node_modules/.bin/tsc"), ["-p", `tsconfig.${config}.json`], { cwd: project, encoding: "utf8" });
  return `${res.stdout}${res.stderr}`.trim();
}

const TYPO = `import * as svc from "pulumi-svc";\nnew svc.inboxes.Inbox("x", { transprot: "http" });\n`;

// A full type-check of @pulumi/pulumi's typings takes a while on a busy machine.
const TYPE_CHECK_TIMEOUT = 600_000;

describe("installed into a fresh project, a program type-checks", () => {
  it("under Pulumi's template tsconfig (module commonjs, moduleResolution node), where a misspelled argument is an error", () => {
    const out = typeCheck("template", { "index.ts": PROGRAM, "typo.ts": TYPO }, TEMPLATE_OPTIONS);
    // The only error: the typo, with TypeScript's "Did you mean to write 'transport'?" (TS2561).
    const errors = out.split("\n").filter((line) => line.includes("error TS"));
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(/^typo\.ts.*TS2561.*transprot.*transport/);
  }, TYPE_CHECK_TIMEOUT);

  it("under moduleResolution node16", () => {
    expect(typeCheck("node16", { "index.ts": PROGRAM }, { ...TEMPLATE_OPTIONS, module: "node16", moduleResolution: "node16" })).toBe("");
  }, TYPE_CHECK_TIMEOUT);

  it("under moduleResolution bundler", () => {
    // The same exports map and typings as node16, checked in full above: here only the program and its imports.
    expect(typeCheck("bundler", { "index.ts": PROGRAM }, { ...TEMPLATE_OPTIONS, module: "esnext", moduleResolution: "bundler", skipLibCheck: true })).toBe("");
  }, TYPE_CHECK_TIMEOUT);

  it("the policy pack's contents import as pulumi-svc/policy", () => {
    // skipLibCheck: @pulumi/policy's own typings need it (its index.d.ts imports names its proxy.d.ts lacks).
    const source = `import { PACK_NAME, policies } from "pulumi-svc/policy";\nexport const pack: string = PACK_NAME;\nexport const count: number = policies.length;\n`;
    expect(typeCheck("policy", { "policy.ts": source }, { ...TEMPLATE_OPTIONS, skipLibCheck: true })).toBe("");
  }, TYPE_CHECK_TIMEOUT);
});

/** Starts `npx pulumi-svc-emulator --port 0` in the project and waits for its URL. */
async function startCli(): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn("npx", ["--no-install", "pulumi-svc-emulator", "--port", "0"], { cwd: project, stdio: ["ignore", "pipe", "pipe"], detached: true });
  let stderr = "";
  child.stderr!.on("data", (d) => (stderr += String(d)));
  const url = await new Promise<string>((ok, fail) => {
    createInterface({ input: child.stdout! }).on("line", (line) => {
      const m = /listening on (http:\/\/\S+)/.exec(line);
      if (m) ok(m[1]!);
    });
    child.once("exit", (code) => fail(new Error(`pulumi-svc-emulator exited ${code}: ${stderr}`)));
  });
  return { child, url };
}

/** Runs a CommonJS script in the project (so it resolves the installed package) and returns its JSON output. */
function runScript(name: string, source: string, env: Record<string, string> = {}): any {
  writeFileSync(join(project, name), source);
  const res = spawnSync(process.execPath, [name], { cwd: project, encoding: "utf8", env: { ...process.env, ...env } });
  if (res.status !== 0) throw new Error(`${name} failed (${res.status}):\n${res.stdout}\n${res.stderr}`);
  return JSON.parse(res.stdout);
}

describe("installed into a fresh project, at run time", () => {
  it("npx pulumi-svc-emulator serves the API, and pulumi-svc/testing connects to it: config, faults, request log, reset", async () => {
    const { child, url } = await startCli();
    try {
      const out = runScript(
        "connect.js",
        `
const { connectTestEmulator } = require("pulumi-svc/testing");
(async () => {
  const emu = await connectTestEmulator(process.env.EMULATOR_URL);
  const endpoints = emu.config["svc:webhooksUrl"] + "/v1/endpoints";
  const headers = { authorization: "Bearer " + emu.config["svc:webhooksApiKey"], "content-type": "application/json" };
  const create = () => fetch(endpoints, { method: "POST", headers, body: JSON.stringify({ url: "https://hooks.example.com/a" }) });
  await emu.injectFault({ method: "POST", path: "/webhooks/v1/endpoints", status: 503, count: 1 });
  const since = await emu.lastSeq();
  const statuses = [(await create()).status, (await create()).status];
  const logged = (await emu.requests({ since, method: "POST" })).map((r) => r.path + " " + r.status);
  const before = (await (await fetch(endpoints, { headers })).json()).data.length;
  await emu.reset();
  const after = (await (await fetch(endpoints, { headers })).json()).data.length;
  console.log(JSON.stringify({ keys: Object.keys(emu.config), statuses, logged, before, after }));
})().catch((e) => { console.error(e); process.exit(1); });
`,
        { EMULATOR_URL: url },
      );
      expect(out.keys.sort()).toEqual(["svc:inboxesApiKey", "svc:inboxesUrl", "svc:infraApiKey", "svc:infraUrl", "svc:webhooksApiKey", "svc:webhooksUrl"]);
      expect(out.statuses).toEqual([503, 201]);
      expect(out.logged).toEqual(["/webhooks/v1/endpoints 503", "/webhooks/v1/endpoints 201"]);
      expect(out.before).toBe(1);
      expect(out.after).toBe(0);
    } finally {
      process.kill(-child.pid!, "SIGTERM");
    }
  });

  it("the native plugin's bin (node_modules/.bin/pulumi-resource-svc) starts and writes its port as the one line of stdout", async () => {
    const plugin = spawn(join(project, "node_modules/.bin/pulumi-resource-svc"), [], { cwd: project, stdio: ["ignore", "pipe", "pipe"] });
    try {
      const first = await new Promise<string>((resolve, reject) => {
        createInterface({ input: plugin.stdout! }).once("line", resolve);
        plugin.once("exit", (code) => reject(new Error(`pulumi-resource-svc exited ${code}`)));
      });
      expect(first).toMatch(/^\d+$/);
    } finally {
      plugin.kill();
    }
  });

  it("the policy pack loads from the installed package (pulumi preview --policy-pack node_modules/pulumi-svc/policy)", async () => {
    const analyzer = await AnalyzerClient.start({ packDir: join(project, "node_modules/pulumi-svc/policy") });
    try {
      expect((await analyzer.info()).name).toBe(PACK_NAME);
    } finally {
      await analyzer.close();
    }
  });

  it("startTestEmulator's config drives the installed provider: check and create reach the emulator", () => {
    const out = runScript(
      "provider.js",
      `
const { startTestEmulator } = require("pulumi-svc/testing");
const { providerFor } = require("pulumi-svc/provider");
(async () => {
  const emu = await startTestEmulator();
  const provider = providerFor("webhooks:Endpoint");
  await provider.configure({ config: { get: (key) => emu.config[key] } });
  const checked = await provider.check({}, { url: "https://hooks.example.com/orders", maxAttempts: 5 });
  const created = await provider.create(checked.inputs);
  const posts = (await emu.requests({ method: "POST" })).map((r) => r.path);
  const bad = await provider.check({}, { url: "https://hooks.example.com/orders", maxAttempts: 500 });
  await emu.close();
  console.log(JSON.stringify({ id: created.id, posts, failures: bad.failures.map((f) => f.property) }));
})().catch((e) => { console.error(e); process.exit(1); });
`,
    );
    expect(out.id).toMatch(/^ep_/);
    expect(out.posts).toEqual(["/webhooks/v1/endpoints"]);
    expect(out.failures).toEqual(["maxAttempts"]);
  });
});

if (cliRunner.unavailable) console.log(`the GitOps example from the tarball: skipped: ${cliRunner.unavailable}`);
describe.skipIf(cliRunner.unavailable !== undefined)("installed into a fresh project, the GitOps example under the real Pulumi CLI", () => {
  it("pulumi preview --policy-pack node_modules/pulumi-svc/policy passes, a mandatory violation fails it, pulumi up --policy-pack creates, destroy removes", async () => {
    for (const f of ["index.ts", "Pulumi.yaml"]) writeFileSync(join(project, f), readFileSync(join(REPO, "examples/gitops/program", f), "utf8"));
    const emu = await startTestEmulator({ defaultPlan: "pro" });
    const stateDir = mkdtempSync(join(tmpdir(), "pulumi-svc-gitops-"));
    const pack = join(project, "node_modules/pulumi-svc/policy");
    const run = (verb: "preview" | "up" | "destroy", stack: string, config: Record<string, string> = {}) =>
      cliRunner.run({
        verb,
        cwd: project,
        stack,
        stateFile: join(stateDir, `${stack}.json`),
        config: { "svc:webhooksUrl": emu.config["svc:webhooksUrl"]!, ...config },
        secrets: { "svc:webhooksApiKey": emu.config["svc:webhooksApiKey"]! },
        ...(verb === "destroy" ? {} : { policyPack: pack }),
      });
    try {
      const preview = await run("preview", "prod");
      expect(preview.policyViolations, preview.summary).toEqual([]);
      expect(preview.ok, preview.summary).toBe(true);
      const http = await run("preview", "prod", { "svc-orders:receiverUrl": "http://hooks.example.com/orders" });
      expect(http.ok).toBe(false);
      expect(http.policyViolations.map((v) => [v.policyName, v.enforcementLevel])).toContainEqual(["endpoint-https-only", "mandatory"]);
      expect(await emu.requests({ method: "POST" }), "a failed preview creates nothing").toEqual([]);
      const up = await run("up", "prod");
      expect(up.ok, up.summary).toBe(true);
      expect((await emu.requests({ method: "POST" })).map((r) => r.path)).toContain("/webhooks/v1/endpoints");
      const destroy = await run("destroy", "prod");
      expect(destroy.ok, destroy.summary).toBe(true);
    } finally {
      await emu.close();
      rmSync(stateDir, { recursive: true, force: true });
    }
  }, 600_000);
});
