// Builds our Go language host (main.go here) into the CLI's bin directory as
// `pulumi-language-go`, for `npm run pulumi:install`.
//
// Apart from the CLI's own build: the bin directory's cache key (locate.ts, cachedBinDir)
// does not cover this module, so changing the host never rebuilds the CLI. A stamp beside
// the binary (a hash of this module's sources and the CLI version) says whether the one
// there is current; when it is, nothing runs.

import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import * as fs from "node:fs";
import * as path from "node:path";

export const GO_HOST_MODULE_DIR = __dirname;
/** What the Go host and the Python host's Go half (pygen/) both build from: the module and the code they share. */
export const SHARED_GO_SOURCES = ["hostgen/hostgen.go", "go.mod", "go.sum"].map((f) => path.join(GO_HOST_MODULE_DIR, f));
const SOURCES = [path.join(GO_HOST_MODULE_DIR, "main.go"), ...SHARED_GO_SOURCES];

function stampOf(version: string): string {
  const hash = createHash("sha256").update(version);
  for (const f of SOURCES) hash.update(fs.readFileSync(f));
  return hash.digest("hex");
}

/**
 * Makes `binDir/pulumi-language-go` the build of this module for CLI `version`; returns
 * undefined when it is, else why it could not be built (the go build's output went to stderr).
 */
export function installGoHost(binDir: string, version: string): string | undefined {
  const out = path.join(binDir, "pulumi-language-go");
  const stampFile = `${out}.stamp`;
  const stamp = stampOf(version);
  if (fs.existsSync(out) && fs.existsSync(stampFile) && fs.readFileSync(stampFile, "utf8") === stamp) return undefined;
  // Built beside the target and renamed over it, so a test running the old one is not cut off.
  const partial = `${out}.partial-${process.pid}`;
  const r = spawnSync(
    "go",
    // The CLI's tags and -trimpath: the packages both share come from the Go build cache.
    ["build", "-tags", "osusergo,grpcnotrace", "-trimpath", "-ldflags", `-X main.version=${version}`, "-o", partial, "."],
    { cwd: GO_HOST_MODULE_DIR, stdio: ["ignore", "inherit", "inherit"], env: { ...process.env, GOFLAGS: `${process.env["GOFLAGS"] ?? ""} -mod=readonly`.trim() } },
  );
  if (r.status !== 0) {
    fs.rmSync(partial, { force: true });
    return `go build of the Go language host (${path.relative(process.cwd(), GO_HOST_MODULE_DIR)}) failed (exit ${r.status ?? r.signal}); see above`;
  }
  fs.renameSync(partial, out);
  fs.writeFileSync(stampFile, stamp);
  return undefined;
}
