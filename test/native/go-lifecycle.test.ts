/**
 * A Go program of native resources (./go-program/main.go) under the real CLI, our Go language
 * host (`pulumi-language-go`, scripts/pulumi-cli/go-host) and the emulator, taking a Go user's
 * path from the released artifacts (README, "Go programs"): the program's go.mod requires the Go SDK
 * module of `npm run release` at the build's version, which `go` fetches from a module proxy
 * (GOPROXY=file:// of the release's goproxy/, the modules it needs beyond from the machine's
 * module cache, else the machine's module proxy: checked below to be the release's), and no plugin on PATH: the CLI downloads it from the schema's
 * pluginDownloadURL (a loopback release host here: test/release/host.ts). The lifecycle of
 * ./lifecycle.ts, and the host building the program itself.
 *
 * The program is built once for this file, into a temporary directory, with a module cache of
 * its own there (what the run fetches stays out of the machine's). Its go.mod takes the module versions of the host's (the CLI's),
 * and its build the CLI's tags, so Go's build cache already holds most of what it compiles.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { GO_MODULE, pluginArchiveName } from "../../scripts/release";
import { releaseVersion } from "../../scripts/release-version";
import { releasePart } from "../release/artifacts";
import { PLATFORM, useReleaseHost } from "../release/host";
import { call, lastSeq, requestsSince, useEmulator } from "../support/emulator";
import { runCli } from "../support/pulumi-cli";
import { GO_BIN_DIR, GO_MISSING, requireGo, readmeModuleFiles, releasedModuleEnv, runGo } from "./go";
import { checkNativeLifecycle } from "./lifecycle";
import { defaultProviderName, nativeStack, writesOf, type ProgramFiles } from "./support";

const emu = useEmulator();
const host = useReleaseHost();

const PROGRAM_DIR = path.resolve(__dirname, "go-program");
/** The CLI's build tags (scripts/pulumi-install.ts): packages compiled for it are reused. */
/** The program's config, for the cases that only preview it. */
const CONFIG = { description: "v1", label: "first" };
const SECRETS = { token: "Bearer tok-4242-native-go-secret" };
/** A Go project whose Pulumi.yaml says `runtime` (YAML flow style); its sources are copied in where a case needs them. `go` is on PATH for the host. */
const goProject = (runtime: string): ProgramFiles => ({ project: `runtime: ${runtime}\n`, files: {}, binDirs: [GO_BIN_DIR] });
requireGo();


/** Writes the program's module into `dir`, made as the README says (go.ts). */
async function writeProgram(dir: string, env: Record<string, string>): Promise<void> {
  fs.mkdirSync(dir, { recursive: true });
  const files = await readmeModuleFiles("svc-go-program", fs.readFileSync(path.join(PROGRAM_DIR, "main.go"), "utf8"), env);
  for (const [file, text] of Object.entries(files)) fs.writeFileSync(path.join(dir, file), text);
}

if (GO_MISSING) console.log(`Go program of native resources under the real CLI: skipped: ${GO_MISSING}`);
describe.skipIf(GO_MISSING !== undefined)("a Go program of native resources under the real CLI", () => {
  let root = "";
  let binary = "";
  const prebuilt = () => `{ name: go, options: { binary: ${JSON.stringify(binary)} } }`;

  /** What `go` gets, beside the CLI's tags: the release's module proxy, the machine's module cache as one, then the machine's proxy, into a module cache of this file's. */
  let goEnv: Record<string, string> = {};

  beforeAll(async () => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), "svc-native-go-"));
    goEnv = await releasedModuleEnv(root);
    await writeProgram(path.join(root, "program"), goEnv);
    binary = path.join(root, "svc-go-program");
    // The flags of the host's own `go build`, so the host's build of the same program below is a cache hit.
    await runGo(["build", "-buildvcs=false", "-ldflags", "-w -s", "-o", binary, "."], path.join(root, "program"), goEnv);
  }, 15 * 60_000);
  const userStack = (program: ProgramFiles) => nativeStack(emu(), "native-go", program, { env: host().env() });

  it("builds on the released SDK module: the one in its module cache is the release proxy's, byte for byte", async () => {
    const zip = (proxy: string) => fs.readFileSync(path.join(proxy, GO_MODULE, "@v", `${releaseVersion().go}.zip`));
    expect(zip(path.join(goEnv.GOMODCACHE!, "cache", "download")).equals(zip(path.join(await releasePart("go"), "goproxy")))).toBe(true);
  });

  it("creates with one POST each, a rerun and a refresh write nothing, a change is one PATCH each, destroy deletes both; the secret header stays secret", async () => {
    const s = await userStack(goProject(prebuilt()));
    const state = await checkNativeLifecycle(emu(), s, { listedUrls: ["https://hooks.example.com/orders"] });
    // The plugin came from the release host, into the stack's fresh PULUMI_HOME.
    expect(host().served).toContain(`GET /${pluginArchiveName(PLATFORM)}`);
    // The SDK asks for the plugin at its own version (the schema's: respectSchemaVersion) from the schema's pluginDownloadURL.
    expect(state.find((r) => r.type === "svc:webhooks:Endpoint")?.provider).toContain(`::${defaultProviderName(releaseVersion().semver)}_github_/api.github.com/pulumi-svc::`);
  });

  it("without a prebuilt binary, the host builds the program with `go build` and previews its resources", async () => {
    const s = await userStack(goProject("go"));
    // The module as the README makes it (go.mod and go.sum completed by go mod tidy).
    for (const f of ["main.go", "go.mod", "go.sum"]) fs.copyFileSync(path.join(root, "program", f), path.join(s.dir, f));
    const since = await lastSeq(emu());
    const opts = s.options("preview", CONFIG, SECRETS);
    const preview = await runCli({ ...opts, env: { ...opts.env, ...goEnv } });
    expect(preview.ok, preview.summary).toBe(true);
    const planned = preview.steps.filter((st) => st.type.startsWith("svc:")).map((st) => `${st.op} ${st.type}`);
    expect(planned.sort()).toEqual(["create svc:inboxes:Inbox", "create svc:webhooks:Endpoint"]);
    expect(writesOf(await requestsSince(emu(), since))).toEqual([]);
  });

  it("`pulumi import` in a Go project takes the object over with no write and prints its Go code", async () => {
    const s = await userStack(goProject(prebuilt()));
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
    const s = await userStack(goProject("{ name: go, options: { binary: 42 } }"));
    const preview = await s.run("preview", CONFIG, SECRETS);
    expect(preview.ok).toBe(false);
    expect(preview.summary).toContain("runtime option binary must be a string, got 42");
  });
});
