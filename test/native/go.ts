/**
 * Go programs of native resources under the real CLI: what they need beside the CLI and the
 * plugin (Go itself, and our Go language host, which `npm run pulumi:install` builds beside
 * the CLI), and the build flags that let a program's build reuse what the CLI's build compiled.
 */
import { spawn, spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { GO_MODULE } from "../../scripts/release";
import { releaseVersion } from "../../scripts/release-version";
import { releasePart } from "../release/artifacts";
import { cliBinDir } from "../support/pulumi-cli";
import { NATIVE_MISSING } from "./support";

/** Where `go` is: the user's PATH (test/release/host.ts) holds only the system's directories besides the CLI's and node's. */
export const GO_BIN_DIR = path.join(spawnSync("go", ["env", "GOROOT"], { encoding: "utf8" }).stdout.trim(), "bin");

/** The CLI's build tags (scripts/pulumi-install.ts): packages compiled for it are reused. */
export const GOFLAGS = `${process.env["GOFLAGS"] ?? ""} -tags=osusergo,grpcnotrace -trimpath`.trim();

const goMissing = (): string | undefined =>
  spawnSync("go", ["env", "GOVERSION"]).status !== 0
    ? "Go is not installed: the Go SDK's program needs Go >= 1.26 (https://go.dev/dl/)"
    : !fs.existsSync(path.join(cliBinDir(), "pulumi-language-go"))
      ? `pulumi-language-go is not beside pulumi in ${cliBinDir()}: run \`npm run pulumi:install\` (it builds both into its cache)`
      : undefined;

/** Why Go programs cannot run here, or undefined. CI sets PULUMI_SVC_REQUIRE_CLI=1: missing is then a failure of the suites that ask (`requireGo`). */
export const GO_MISSING = NATIVE_MISSING ?? goMissing();

export function requireGo(): void {
  if (GO_MISSING && process.env["PULUMI_SVC_REQUIRE_CLI"] === "1") throw new Error(`PULUMI_SVC_REQUIRE_CLI=1 but ${GO_MISSING}`);
}

/**
 * What `go` gets to take the released SDK module as a user's `go get` does, beside the CLI's tags: the
 * release's module proxy, then the machine's module cache as one, then the machine's own GOPROXY for what
 * neither holds (`go mod tidy` of a program needs the .mod of every module in its graph, some of which no
 * build on this machine fetched: the CLI's build reads a pruned graph), into a module cache under `root`
 * (what the run fetches stays out of the machine's: test/release/artifacts.test.ts checks that cache holds no
 * other build at this version).
 */
export async function releasedModuleEnv(root: string): Promise<Record<string, string>> {
  const go = (name: string) => spawnSync("go", ["env", name], { encoding: "utf8" }).stdout.trim();
  return {
    GOFLAGS: `${GOFLAGS} -modcacherw`,
    GOPROXY: [`file://${path.join(await releasePart("go"), "goproxy")}`, `file://${path.join(go("GOMODCACHE"), "cache", "download")}`, go("GOPROXY")].filter(Boolean).join(","),
    GOMODCACHE: path.join(root, "gomodcache"),
    // No checksum database to ask: the release's module is in none.
    GOSUMDB: "off",
  };
}

/** Runs `go` to its end (not spawnSync: the emulator in the test's process keeps answering); throws with its output on failure. */
export function runGo(args: string[], cwd: string, env: Record<string, string>): Promise<void> {
  const child = spawn("go", args, { cwd, env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  child.stdout.on("data", (b: Buffer) => (output += b.toString()));
  child.stderr.on("data", (b: Buffer) => (output += b.toString()));
  return new Promise((resolve, reject) => child.once("close", (code) => (code === 0 ? resolve() : reject(new Error(`go ${args.join(" ")} exited ${code}:\n${output}`)))));
}

/**
 * The files of module `name` whose main.go is `mainGo`, made as the README's Go path says: `go mod init`, `go get` the
 * released SDK module at the build's version, `go mod tidy` once main.go imports it; `env` is releasedModuleEnv's.
 */
export async function readmeModuleFiles(name: string, mainGo: string, env: Record<string, string>): Promise<Record<"main.go" | "go.mod" | "go.sum", string>> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "svc-go-module-"));
  try {
    fs.writeFileSync(path.join(dir, "main.go"), mainGo);
    for (const args of [["mod", "init", name], ["get", `${GO_MODULE}@${releaseVersion().go}`], ["mod", "tidy"]]) await runGo(args, dir, env);
    const read = (file: string) => fs.readFileSync(path.join(dir, file), "utf8");
    return { "main.go": mainGo, "go.mod": read("go.mod"), "go.sum": read("go.sum") };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
