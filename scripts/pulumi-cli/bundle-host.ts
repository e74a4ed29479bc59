// A language host of ours as pulumi:install puts it beside the CLI: bundled with esbuild,
// so that it needs no checkout of this repository at run time, behind a launcher that
// gives it the CLI's version (what the host answers GetPluginInfo and -version with).

import * as fs from "node:fs";
import * as path from "node:path";
import { build } from "esbuild";
import { CLI_MODULE_DIR } from "./locate";

/** Writes `<dir>/<name>.js` (the bundle of `source`, a file of this folder) and the launcher `<dir>/<name>`. */
export async function bundleLanguageHost(source: string, dir: string, name: string, cliVersion: string): Promise<void> {
  await build({
    entryPoints: [path.join(CLI_MODULE_DIR, source)],
    bundle: true,
    platform: "node",
    target: "node20",
    format: "cjs",
    outfile: path.join(dir, `${name}.js`),
    logLevel: "warning",
  });
  fs.writeFileSync(path.join(dir, name), `#!/bin/sh\nPULUMI_SVC_LANGUAGE_HOST_VERSION=${cliVersion} exec node "$(dirname "$0")/${name}.js" "$@"\n`, { mode: 0o755 });
}
