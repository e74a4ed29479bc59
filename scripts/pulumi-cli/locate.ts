// Where the real Pulumi CLI is: one answer for `npm run pulumi:install`, the tests, the
// demo and the benchmarks.
//
// The version is the one go.mod in this folder requires (github.com/pulumi/pulumi/pkg/v3):
// change it there, run `go mod tidy`, and every user of the CLI follows.

import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";

export const CLI_MODULE_DIR = __dirname;
/** The wrapper module of Pulumi YAML's language host and converter (yaml/tools.go says why it is not the CLI's). */
export const YAML_MODULE_DIR = path.join(__dirname, "yaml");

/** The CLI version pinned in go.mod, without the leading "v" (e.g. "3.274.1"). */
export function pinnedCliVersion(): string {
  const gomod = fs.readFileSync(path.join(CLI_MODULE_DIR, "go.mod"), "utf8");
  const m = /^(?:require)?\s*github\.com\/pulumi\/pulumi\/pkg\/v3 v(\S+)/m.exec(gomod);
  if (!m) throw new Error(`${path.join(CLI_MODULE_DIR, "go.mod")} does not require github.com/pulumi/pulumi/pkg/v3`);
  return m[1]!;
}

/**
 * The cache's bin directory for this build: keyed by the CLI version and a hash of what goes
 * into the bin directory (the wrapper modules, with the list of what the YAML one builds, and
 * our Node.js language host), so a change to any
 * builds anew and two checkouts at the same commit share one build.
 */
export function cachedBinDir(): string {
  const hash = createHash("sha256");
  for (const f of ["go.mod", "go.sum", "language-host.ts", "host-common.ts", "bundle-host.ts", "yaml/go.mod", "yaml/go.sum", "yaml/tools.go"]) hash.update(fs.readFileSync(path.join(CLI_MODULE_DIR, f)));
  return path.join(cliCacheRoot(), `v${pinnedCliVersion()}-${hash.digest("hex").slice(0, 12)}`, "bin");
}

/** The directory of every build pulumi:install makes (PULUMI_SVC_CLI_CACHE moves it). */
export function cliCacheRoot(): string {
  return process.env["PULUMI_SVC_CLI_CACHE"] ?? path.join(process.env["XDG_CACHE_HOME"] ?? path.join(os.homedir(), ".cache"), "pulumi-svc", "pulumi-cli");
}

/** The version a `pulumi` binary reports, or undefined when it does not run. */
export function cliVersionOf(pulumi: string): string | undefined {
  const r = spawnSync(pulumi, ["version"], { encoding: "utf8", env: { ...process.env, PULUMI_SKIP_UPDATE_CHECK: "true" } });
  const v = r.status === 0 ? r.stdout.trim().replace(/^v/, "") : "";
  return v || undefined;
}

export type CliLocation = { binDir: string; version: string } | { missing: string };

/**
 * The bin directory holding `pulumi` and `pulumi-language-nodejs` of the pinned version: PATH first, else the cache.
 * Another version on PATH is passed over (the tests hold what this one does) and named if nothing else is found.
 */
export function locatePulumiCli(): CliLocation {
  const pinned = pinnedCliVersion();
  const passedOver: string[] = [];
  for (const dir of (process.env["PATH"] ?? "").split(path.delimiter)) {
    const pulumi = path.join(dir, "pulumi");
    if (!dir || !fs.existsSync(pulumi) || !fs.existsSync(path.join(dir, "pulumi-language-nodejs"))) continue;
    const version = cliVersionOf(pulumi);
    if (version === pinned) return { binDir: dir, version };
    if (version) passedOver.push(`${pulumi} is v${version}`);
  }
  const binDir = cachedBinDir();
  const version = fs.existsSync(path.join(binDir, "pulumi")) ? cliVersionOf(path.join(binDir, "pulumi")) : undefined;
  if (version) return { binDir, version };
  return {
    missing:
      `the Pulumi CLI v${pinned} is not installed: run \`npm run pulumi:install\` (needs Go >= 1.26 and the Go module proxy; ` +
      `it builds \`pulumi\` into ~/.cache/pulumi-svc), or put \`pulumi\` and \`pulumi-language-nodejs\` of v${pinned} on PATH` +
      (passedOver.length > 0 ? ` (${passedOver.join(", ")})` : ""),
  };
}
