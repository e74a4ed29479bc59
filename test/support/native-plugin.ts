/**
 * `pulumi-resource-svc` for a real-CLI run: a launcher of dist/native/main.js on PATH
 * beside `pulumi`, as the package's bin puts it there for a user (so `npm run build`
 * first). Free of vitest: the CLI benchmark (bench/cli.ts) uses it too.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { cliBinDir, PULUMI_CLI_MISSING } from "./pulumi-cli";

export const PLUGIN_MAIN = path.resolve(__dirname, "../../dist/native/main.js");

/** Why the plugin cannot start here (dist/ not built), or undefined. */
export const PLUGIN_MISSING = !fs.existsSync(PLUGIN_MAIN) ? "dist/native/main.js is missing: run `npm run build`" : undefined;

/**
 * Why native runs cannot happen here, or undefined: the CLI, the YAML host and the build are needed.
 * CI sets PULUMI_SVC_REQUIRE_CLI=1: missing is then a failure, as the CLI's is (pulumi-cli.ts).
 */
export const NATIVE_MISSING: string | undefined =
  PULUMI_CLI_MISSING ??
  (!fs.existsSync(path.join(cliBinDir(), "pulumi-language-yaml")) ? "pulumi-language-yaml is not installed: run `npm run pulumi:install`" : undefined) ??
  PLUGIN_MISSING;
if (NATIVE_MISSING && process.env["PULUMI_SVC_REQUIRE_CLI"] === "1") throw new Error(`PULUMI_SVC_REQUIRE_CLI=1 but ${NATIVE_MISSING}`);

let launcherDir: string | undefined;

/** A directory holding a `pulumi-resource-svc` launcher, made once per process. */
export function pluginBinDir(): string {
  if (!launcherDir) {
    launcherDir = fs.mkdtempSync(path.join(os.tmpdir(), "svc-native-bin-"));
    fs.writeFileSync(path.join(launcherDir, "pulumi-resource-svc"), `#!/bin/sh\nexec "${process.execPath}" "${PLUGIN_MAIN}" "$@"\n`, { mode: 0o755 });
  }
  return launcherDir;
}

/** PATH with the plugin first, then the CLI's directory (the YAML host), then the rest. */
export const nativePath = () => [pluginBinDir(), cliBinDir(), process.env["PATH"] ?? ""].join(path.delimiter);
