// npm run pulumi:install: builds the real Pulumi CLI and Pulumi YAML's language host and
// converter (what `pulumi convert` of a YAML program loads) from the Go module proxy into a
// cache outside git, beside our Node.js and Go language hosts and the SDK's
// dynamic-provider shim, then the Python side (our Python host, a virtualenv with the
// `pulumi` package and the generated SDK: pulumi-cli/python-install.ts), and
// prints the bin directory as its last line. A second run finds the build and takes a second.
//
//   npm run pulumi:install             build when missing; fail when it cannot
//   npm run pulumi:install -- --if-go  the same where Go (and, for the Python side, python3 with
//                                      venv) is installed; elsewhere say so and exit 0
//                                      (what `npm test` runs first, so a machine without Go still tests)
//
// Downloads nothing but Go modules (through `go build`, from GOPROXY) and, for the Python
// side, Python packages from PyPI (through pip), and uses the npm packages already
// installed. The `pulumi` npm package is not used: it downloads a binary.

import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { installGoHost } from "./pulumi-cli/go-host/install";
import { bundleLanguageHost } from "./pulumi-cli/bundle-host";
import { CLI_MODULE_DIR, YAML_MODULE_DIR, cachedBinDir, cliVersionOf, pinnedCliVersion } from "./pulumi-cli/locate";
import { installPython } from "./pulumi-cli/python-install";

const CLI_PACKAGE = "github.com/pulumi/pulumi/pkg/v3/cmd/pulumi";
const YAML_HOST_PACKAGE = "github.com/pulumi/pulumi-yaml/cmd/pulumi-language-yaml";
const YAML_CONVERTER_PACKAGE = "github.com/pulumi/pulumi-yaml/cmd/pulumi-converter-yaml";

function fail(message: string): never {
  console.error(`pulumi:install: ${message}`);
  process.exit(1);
}

function goVersion(): string | undefined {
  const r = spawnSync("go", ["env", "GOVERSION"], { encoding: "utf8" });
  return r.status === 0 ? r.stdout.trim() : undefined;
}

async function main(): Promise<void> {
  const ifGo = process.argv.includes("--if-go");
  const version = pinnedCliVersion();
  const binDir = cachedBinDir();
  const pulumi = path.join(binDir, "pulumi");
  if (cliVersionOf(pulumi) === version) {
    console.log(`pulumi:install: pulumi v${version} is built`);
    // Our Go language host is outside the CLI's cache key: (re)built here when it changed.
    if (!goVersion()) console.log("pulumi:install: Go is not installed: pulumi-language-go not built, Go programs will not run.");
    else {
      const goHostFailure = installGoHost(binDir, version);
      if (goHostFailure) fail(goHostFailure);
    }
    await pythonPart(binDir, ifGo);
    console.log(binDir);
    return;
  }

  const go = goVersion();
  if (!go) {
    const message = `Go is not installed: the Pulumi CLI v${version} is built from the Go module proxy and needs Go >= 1.26 (https://go.dev/dl/); or put \`pulumi\` and \`pulumi-language-nodejs\` on PATH`;
    if (ifGo) {
      console.log(`pulumi:install: ${message}. The suites that run the real CLI will skip.`);
      return;
    }
    fail(message);
  }

  const staging = `${binDir}.partial-${process.pid}`;
  fs.rmSync(staging, { recursive: true, force: true });
  fs.mkdirSync(staging, { recursive: true });
  console.log(`pulumi:install: building pulumi v${version}, pulumi-language-yaml and pulumi-converter-yaml with ${go} (the first build, modules downloaded, took 3-4 minutes on 2 cores; the Go build cache keeps later ones to seconds)`);
  const started = Date.now();
  const goBuild = (pkg: string, moduleDir: string, out: string, ldflags: string[] = []) => {
    const r = spawnSync("go", ["build", "-tags", "osusergo,grpcnotrace", "-trimpath", ...ldflags, "-o", path.join(staging, out), pkg], {
      cwd: moduleDir,
      stdio: "inherit",
      env: { ...process.env, GOFLAGS: `${process.env["GOFLAGS"] ?? ""} -mod=readonly`.trim() },
    });
    if (r.status !== 0) {
      fail(
        `go build of ${pkg} (module ${path.relative(process.cwd(), moduleDir) || "."}) failed (exit ${r.status}); see above. ` +
          `A network error means the Go module proxy (GOPROXY=${spawnSync("go", ["env", "GOPROXY"], { encoding: "utf8" }).stdout.trim()}) is not reachable.`,
      );
    }
  };
  goBuild(CLI_PACKAGE, CLI_MODULE_DIR, "pulumi", ["-ldflags", `-X github.com/pulumi/pulumi/sdk/v3/go/common/version.Version=v${version}`]);
  // Pulumi YAML's language host: programs of the native provider (pulumi-resource-svc) in YAML.
  goBuild(YAML_HOST_PACKAGE, YAML_MODULE_DIR, "pulumi-language-yaml");
  // Its converter, from the same module: `pulumi convert` (default `--from yaml`) looks for `pulumi-converter-yaml`
  // on PATH (the CLI does not bundle it: without it, the CLI tries to download it from GitHub).
  goBuild(YAML_CONVERTER_PACKAGE, YAML_MODULE_DIR, "pulumi-converter-yaml");
  // Our Go language host: Go programs of the native provider, and `pulumi package gen-sdk --language go`.
  const goHostFailure = installGoHost(staging, version);
  if (goHostFailure) fail(goHostFailure);
  console.log(`pulumi:install: built in ${Math.round((Date.now() - started) / 1000)} s`);

  // Our Node.js language host.
  await bundleLanguageHost("language-host.ts", staging, "pulumi-language-nodejs", version);
  // The dynamic-provider plugin: the shim the @pulumi/pulumi package ships for this purpose.
  const shim = require.resolve("@pulumi/pulumi/pulumi-resource-pulumi-nodejs");
  writeExecutable(path.join(staging, "pulumi-resource-pulumi-nodejs"), fs.readFileSync(shim, "utf8"));

  if (cliVersionOf(path.join(staging, "pulumi")) !== version) fail(`the built pulumi does not report v${version}`);
  fs.rmSync(binDir, { recursive: true, force: true });
  fs.renameSync(staging, binDir);
  await pythonPart(binDir, ifGo);
  console.log(binDir);
}

/** The Python host and SDK (python-install.ts); where python3 with venv is missing, as for Go. */
async function pythonPart(binDir: string, ifGo: boolean): Promise<void> {
  const missing = await installPython(binDir);
  if (!missing) return;
  if (!ifGo) fail(missing);
  console.log(`pulumi:install: ${missing}. The Python suites will skip.`);
}

function writeExecutable(file: string, text: string): void {
  fs.writeFileSync(file, text, { mode: 0o755 });
}

main().catch((e: unknown) => fail(e instanceof Error ? e.message : String(e)));
