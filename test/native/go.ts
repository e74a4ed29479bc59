/**
 * Go programs of native resources under the real CLI: what they need beside the CLI and the
 * plugin (Go itself, and our Go language host, which `npm run pulumi:install` builds beside
 * the CLI), and the build flags that let a program's build reuse what the CLI's build compiled.
 */
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { cliBinDir } from "../support/pulumi-cli";
import { NATIVE_MISSING } from "./support";

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
