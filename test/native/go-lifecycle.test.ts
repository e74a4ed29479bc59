/**
 * A Go program of native resources (./go-program/main.go) under the real CLI, our Go language
 * host (`pulumi-language-go`, scripts/pulumi-cli/go-host) and `pulumi-resource-svc` on PATH,
 * against the emulator, through the Go SDK that `pulumi package gen-sdk --language go` makes
 * from schema.json: the lifecycle of ./lifecycle.ts, and the host building the program itself.
 *
 * The SDK and the program are built once for this file, into a temporary directory: the SDK
 * is a build output, not a source. The program's go.mod takes the module versions of the
 * host's (the CLI's), and its build the CLI's tags, so Go's build cache already holds most
 * of what it compiles after `npm run pulumi:install`.
 */
import { spawn, spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { GO_HOST_MODULE_DIR } from "../../scripts/pulumi-cli/go-host/install";
import { pinnedCliVersion } from "../../scripts/pulumi-cli/locate";
import { call, lastSeq, requestsSince, useEmulator } from "../support/emulator";
import { cliBinDir, runCli } from "../support/pulumi-cli";
import { checkNativeLifecycle } from "./lifecycle";
import { NATIVE_MISSING, nativePath, nativeStack, writesOf, type ProgramFiles } from "./support";

const emu = useEmulator();

const SCHEMA = path.resolve(__dirname, "../../schema.json");
const PROGRAM_DIR = path.resolve(__dirname, "go-program");
/** The import path gen-sdk gives the SDK: the schema's `language.go.importBasePath`. */
const SDK_MODULE = "github.com/pulumi-svc/pulumi-svc/sdk/go/svc";
/** The CLI's build tags (scripts/pulumi-install.ts): packages compiled for it are reused. */
const GOFLAGS = `${process.env["GOFLAGS"] ?? ""} -tags=osusergo,grpcnotrace -trimpath`.trim();
/** The program's config, for the cases that only preview it. */
const CONFIG = { description: "v1", label: "first" };
const SECRETS = { token: "Bearer tok-4242-native-go-secret" };
/** A Go project whose Pulumi.yaml says `runtime` (YAML flow style); its sources are copied in where a case needs them. */
const goProject = (runtime: string): ProgramFiles => ({ project: `runtime: ${runtime}\n`, files: {}, binDirs: [] });

const goMissing = (): string | undefined =>
  spawnSync("go", ["env", "GOVERSION"]).status !== 0
    ? "Go is not installed: the Go SDK's program needs Go >= 1.26 (https://go.dev/dl/)"
    : !fs.existsSync(path.join(cliBinDir(), "pulumi-language-go"))
      ? `pulumi-language-go is not beside pulumi in ${cliBinDir()}: run \`npm run pulumi:install\` (it builds both into its cache)`
      : undefined;
const GO_MISSING = NATIVE_MISSING ?? goMissing();
if (GO_MISSING && process.env["PULUMI_SVC_REQUIRE_CLI"] === "1") throw new Error(`PULUMI_SVC_REQUIRE_CLI=1 but ${GO_MISSING}`);

/** Runs a command to its end (not spawnSync: the emulator in this process keeps answering); throws with its output on failure. */
function run(cmd: string, args: string[], cwd: string, env: NodeJS.ProcessEnv): Promise<void> {
  const child = spawn(cmd, args, { cwd, env, stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  child.stdout.on("data", (b: Buffer) => (output += b.toString()));
  child.stderr.on("data", (b: Buffer) => (output += b.toString()));
  return new Promise((resolve, reject) =>
    child.once("close", (code) => (code === 0 ? resolve() : reject(new Error(`${cmd} ${args.join(" ")} exited ${code}:\n${output}`)))),
  );
}

/** Copies the program's sources into `dir`, with a go.mod that takes the SDK from `sdkDir`. */
function writeProgram(dir: string, sdkDir: string): void {
  fs.mkdirSync(dir, { recursive: true });
  fs.copyFileSync(path.join(PROGRAM_DIR, "main.go"), path.join(dir, "main.go"));
  const hostMod = fs.readFileSync(path.join(GO_HOST_MODULE_DIR, "go.mod"), "utf8");
  fs.writeFileSync(
    path.join(dir, "go.mod"),
    `${hostMod.replace(/^module .*$/m, "module svc-go-program")}\nrequire ${SDK_MODULE} v0.0.0\n\nreplace ${SDK_MODULE} => ${sdkDir}\n`,
  );
  fs.copyFileSync(path.join(GO_HOST_MODULE_DIR, "go.sum"), path.join(dir, "go.sum"));
}

if (GO_MISSING) console.log(`Go program of native resources under the real CLI: skipped: ${GO_MISSING}`);
describe.skipIf(GO_MISSING !== undefined)("a Go program of native resources under the real CLI", () => {
  let root = "";
  let binary = "";
  const prebuilt = () => `{ name: go, options: { binary: ${JSON.stringify(binary)} } }`;

  beforeAll(async () => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), "svc-native-go-"));
    const env = { ...process.env, PATH: nativePath(), PULUMI_HOME: path.join(root, "home"), PULUMI_SKIP_UPDATE_CHECK: "true" };
    await run(path.join(cliBinDir(), "pulumi"), ["package", "gen-sdk", SCHEMA, "--language", "go", "--out", path.join(root, "sdk")], root, env);
    const sdkDir = path.join(root, "sdk", "go", "svc");
    // gen-sdk writes no go.mod for a schema without `supportPack`: the SDK's module is made here.
    fs.writeFileSync(path.join(sdkDir, "go.mod"), `module ${SDK_MODULE}\n\ngo 1.26\n\nrequire github.com/pulumi/pulumi/sdk/v3 v${pinnedCliVersion()}\n`);
    writeProgram(path.join(root, "program"), sdkDir);
    binary = path.join(root, "svc-go-program");
    // The flags of the host's own `go build`, so the host's build of the same program below is a cache hit.
    await run("go", ["build", "-mod=mod", "-buildvcs=false", "-ldflags", "-w -s", "-o", binary, "."], path.join(root, "program"), { ...process.env, GOFLAGS });
  }, 15 * 60_000);

  it("creates with one POST each, a rerun and a refresh write nothing, a change is one PATCH each, destroy deletes both; the secret header stays secret", async () => {
    const s = await nativeStack(emu(), "native-go", goProject(prebuilt()));
    await checkNativeLifecycle(emu(), s, { listedUrls: ["https://hooks.example.com/orders"] });
  });

  it("without a prebuilt binary, the host builds the program with `go build` and previews its resources", async () => {
    const s = await nativeStack(emu(), "native-go", goProject("go"));
    // The module as the build above left it (go.mod and go.sum completed by -mod=mod).
    for (const f of ["main.go", "go.mod", "go.sum"]) fs.copyFileSync(path.join(root, "program", f), path.join(s.dir, f));
    const since = await lastSeq(emu());
    const opts = s.options("preview", CONFIG, SECRETS);
    const preview = await runCli({ ...opts, env: { ...opts.env, GOFLAGS } });
    expect(preview.ok, preview.summary).toBe(true);
    const planned = preview.steps.filter((st) => st.type.startsWith("svc:")).map((st) => `${st.op} ${st.type}`);
    expect(planned.sort()).toEqual(["create svc:inboxes:Inbox", "create svc:webhooks:Endpoint"]);
    expect(writesOf(await requestsSince(emu(), since))).toEqual([]);
  });

  it("`pulumi import` in a Go project takes the object over with no write and prints its Go code", async () => {
    const s = await nativeStack(emu(), "native-go", goProject(prebuilt()));
    // The stack exists before the import: a preview makes it, and writes nothing.
    expect((await s.run("preview", CONFIG, SECRETS)).ok).toBe(true);
    const inbox = await call(emu(), "POST", "/inboxes/v1/inboxes", { key: s.ws.inboxes.admin, body: { label: "archive" } });
    expect(inbox.status, inbox.text).toBe(201);
    const since = await lastSeq(emu());
    const out = path.join(s.dir, "imported.go");
    const run = await s.pulumi(["import", "svc:inboxes:Inbox", "archive", String(inbox.body["id"]), "--out", out, "--yes", "--color", "never"]);
    expect(run.code, run.output + run.stderr).toBe(0);
    expect(writesOf(await requestsSince(emu(), since))).toEqual([]);
    const code = fs.readFileSync(out, "utf8");
    expect(code).toContain(`inboxes.NewInbox(ctx, "archive", &inboxes.InboxArgs{`);
    expect(code).toMatch(/Label:\s+pulumi\.String\("archive"\)/);
  });

  it("a runtime option of the wrong type fails the run naming the option", async () => {
    const s = await nativeStack(emu(), "native-go", goProject("{ name: go, options: { binary: 42 } }"));
    const preview = await s.run("preview", CONFIG, SECRETS);
    expect(preview.ok).toBe(false);
    expect(preview.summary).toContain("runtime option binary must be a string, got 42");
  });
});
