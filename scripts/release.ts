// `npm run release`: what a release publishes, written into dist/release/ (after `npm run build`),
// each at the build's version (scripts/release-version.ts: the release's on its tagged commit,
// `<version>-alpha.<n>` otherwise, in each artifact's syntax):
//
//   pulumi-resource-svc-v<version>-<os>-<arch>.tar.gz  the plugin, one archive for every platform in PLATFORMS
//                                                      (the same JavaScript bundle under each name: it needs Node >= 20 on PATH)
//   pulumi-svc-<version>.tgz                           the npm package (`npm pack`)
//   pulumi_svc-<version>-py3-none-any.whl              the Python SDK (`pulumi package gen-sdk --language python`, then a wheel)
//   go/                                                the Go SDK, module github.com/pulumi-svc/pulumi-svc/sdk (go.mod pinned
//                                                      to the Go SDK of the tested CLI), and goproxy/, the same module in
//                                                      module-proxy layout (`GOPROXY=file://…/goproxy` serves it to `go get`)
//
// The plugin archives are what the CLI downloads from the schema's pluginDownloadURL (README,
// "The native provider", "Getting it"): a tarball of `pulumi-resource-svc` (a launcher for Unix), `pulumi-resource-svc.cmd`
// (for Windows: the CLI looks for .exe or .cmd there), the bundle `pulumi-resource-svc.js` (and
// `recheck.js`, required only when an event schema's pattern is checked), and the
// package.json and schema.json the plugin reads its version and schema from.

import { spawnSync, type SpawnSyncOptions } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { build } from "esbuild";
import { GO_HOST_MODULE_DIR } from "./pulumi-cli/go-host/install";
import { locatePulumiCli, pinnedCliVersion } from "./pulumi-cli/locate";
import { locatePython } from "./pulumi-cli/python";
import { releaseVersion } from "./release-version";

const ROOT = path.resolve(__dirname, "..");
export const RELEASE_DIR = path.join(ROOT, "dist", "release");
const PLUGIN_MAIN = path.join(ROOT, "dist", "native", "main.js");

/** The platforms a plugin archive is published for, as the CLI names them (`<os>-<arch>`). */
export const PLATFORMS = ["linux-amd64", "linux-arm64", "darwin-amd64", "darwin-arm64", "windows-amd64"] as const;
/** The Go SDK's module: the schema's `language.go.importBasePath` up to its `sdk` directory. */
export const GO_MODULE = "github.com/pulumi-svc/pulumi-svc/sdk";

export const pluginArchiveName = (platform: string) => `pulumi-resource-svc-v${releaseVersion().semver}-${platform}.tar.gz`;
export const wheelName = () => `pulumi_svc-${releaseVersion().python}-py3-none-any.whl`;
export const npmTarballName = () => `pulumi-svc-${releaseVersion().semver}.tgz`;

/** `file` of the package (package.json, schema.json) at the build's version: what every artifact carries. */
const stamped = (file: string) => `${JSON.stringify({ ...(JSON.parse(fs.readFileSync(path.join(ROOT, file), "utf8")) as object), version: releaseVersion().semver }, null, 2)}\n`;

const NODE_NEEDED = "pulumi-resource-svc needs Node.js >= 20 on PATH (https://nodejs.org)";

function run(what: string, cmd: string, args: string[], opts: SpawnSyncOptions = {}): string {
  const r = spawnSync(cmd, args, { encoding: "utf8", maxBuffer: 64 * 1024 * 1024, ...opts });
  if (r.error || r.status !== 0) throw new Error(`${what} failed (${r.error?.message ?? `exit ${r.status}`}): \`${[cmd, ...args].join(" ")}\`\n${String(r.stderr ?? "")}${String(r.stdout ?? "")}`);
  return String(r.stdout ?? "");
}

function cliBinDir(): string {
  const cli = locatePulumiCli();
  if ("missing" in cli) throw new Error(cli.missing);
  return cli.binDir;
}

const RECHECK_FILE = "recheck.js";
const BUNDLE = { bundle: true, platform: "node", target: "node20", format: "cjs", minify: true, legalComments: "none", logLevel: "warning" } as const;

/** The plugin's files: the esbuild bundle of dist/native/main.js (no node_modules tree), its launchers, and what it reads beside itself. */
async function pluginFiles(dir: string): Promise<string[]> {
  if (!fs.existsSync(PLUGIN_MAIN)) throw new Error(`${PLUGIN_MAIN} is missing: run \`npm run build\` first`);
  // recheck (rules/event-schema.ts: most of the bundle's size, loaded only when an event schema's
  // pattern is checked, on its pure JavaScript backend) is a file of its own, so the start-up
  // does not read it.
  await build({ ...BUNDLE, entryPoints: [require.resolve("recheck")], outfile: path.join(dir, RECHECK_FILE), logOverride: { "require-resolve-not-external": "silent" } });
  await build({
    ...BUNDLE,
    entryPoints: [PLUGIN_MAIN],
    plugins: [{ name: "recheck-beside", setup: (b) => b.onResolve({ filter: /^recheck$/ }, () => ({ path: `./${RECHECK_FILE}`, external: true })) }],
    // Node older than 20 is told so, rather than failing somewhere inside the bundle.
    banner: { js: `if(+process.versions.node.split(".")[0]<20){console.error(${JSON.stringify(`${NODE_NEEDED}; this is Node `)}+process.version);process.exit(1)}` },
    outfile: path.join(dir, "pulumi-resource-svc.js"),
  });
  fs.writeFileSync(
    path.join(dir, "pulumi-resource-svc"),
    `#!/bin/sh\ncommand -v node >/dev/null 2>&1 || { echo "${NODE_NEEDED}: node was not found" >&2; exit 1; }\nexec node "$(dirname "$0")/pulumi-resource-svc.js" "$@"\n`,
    { mode: 0o755 },
  );
  fs.writeFileSync(
    path.join(dir, "pulumi-resource-svc.cmd"),
    // Inside cmd's parenthesised block, every metacharacter of the echoed text is escaped: an unescaped `)` ends the block.
    `@echo off\r\nwhere node >nul 2>nul || (echo ${`${NODE_NEEDED}: node was not found`.replace(/[\^&|<>()]/g, "^$&")} 1>&2 & exit /b 1)\r\nnode "%~dp0pulumi-resource-svc.js" %*\r\n`,
  );
  // The plugin finds its version and schema by the package.json named pulumi-svc above it (provider/version.ts).
  fs.writeFileSync(path.join(dir, "package.json"), `${JSON.stringify({ name: "pulumi-svc", version: releaseVersion().semver, private: true }, null, 2)}\n`);
  fs.writeFileSync(path.join(dir, "schema.json"), stamped("schema.json"));
  fs.copyFileSync(path.join(ROOT, "LICENSE"), path.join(dir, "LICENSE"));
  return ["pulumi-resource-svc", "pulumi-resource-svc.cmd", "pulumi-resource-svc.js", RECHECK_FILE, "package.json", "schema.json", "LICENSE"];
}

/** The plugin archives, one per platform (the same bytes under each name). Returns their paths. */
export async function buildPluginArchives(out: string): Promise<string[]> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "svc-release-plugin-"));
  try {
    const files = await pluginFiles(dir);
    const first = path.join(out, pluginArchiveName(PLATFORMS[0]));
    run("tar of the plugin", "tar", ["-czf", first, "--owner=0", "--group=0", "--numeric-owner", "-C", dir, ...files]);
    for (const platform of PLATFORMS.slice(1)) fs.copyFileSync(first, path.join(out, pluginArchiveName(platform)));
    return PLATFORMS.map((p) => path.join(out, pluginArchiveName(p)));
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** The npm package, as `npm pack` makes it from `files` in package.json (dist/ as built), its package.json and schema.json at the build's version. */
export function buildNpmTarball(out: string): string {
  const listed = JSON.parse(run("npm pack --dry-run", "npm", ["pack", "--dry-run", "--json", "--ignore-scripts", "--silent"], { cwd: ROOT })) as [{ files: { path: string }[] }];
  const stage = fs.mkdtempSync(path.join(os.tmpdir(), "svc-release-npm-"));
  try {
    for (const { path: file } of listed[0].files) fs.cpSync(path.join(ROOT, file), path.join(stage, file));
    for (const file of ["package.json", "schema.json"]) fs.writeFileSync(path.join(stage, file), stamped(file));
    run("npm pack", "npm", ["pack", "--ignore-scripts", "--silent", "--pack-destination", out, stage]);
  } finally {
    fs.rmSync(stage, { recursive: true, force: true });
  }
  return path.join(out, npmTarballName());
}

/** `pulumi package gen-sdk` of schema.json at the build's version for `language` into `out` (its language host on PATH). */
function genSdk(language: "python" | "go", out: string, hostDirs: string[]): void {
  const bin = cliBinDir();
  const home = fs.mkdtempSync(path.join(os.tmpdir(), "svc-release-home-"));
  const schema = path.join(home, "schema.json");
  try {
    fs.writeFileSync(schema, stamped("schema.json"));
    run(`pulumi package gen-sdk --language ${language}`, path.join(bin, "pulumi"), ["package", "gen-sdk", schema, "--language", language, "--out", out], {
      env: { ...process.env, PATH: [...hostDirs, bin, process.env["PATH"] ?? ""].join(path.delimiter), PULUMI_HOME: home, PULUMI_SKIP_UPDATE_CHECK: "true" },
    });
  } finally {
    fs.rmSync(home, { recursive: true, force: true });
  }
}

/**
 * The Python wheel: the generated SDK (its setup.py requires pulumi>=3.x,<4, as Pulumi's
 * generator writes it) built offline with the setuptools of the virtualenv `npm run
 * pulumi:install` made (pip wheel, no build isolation, no index).
 */
export function buildWheel(out: string): string {
  const py = locatePython();
  if ("missing" in py) throw new Error(py.missing);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "svc-release-python-"));
  try {
    genSdk("python", dir, [py.binDir]);
    run("pip wheel of the generated SDK", path.join(py.venv, "bin", "python"), ["-m", "pip", "wheel", "--quiet", "--no-deps", "--no-build-isolation", "--no-index", "--wheel-dir", out, path.join(dir, "python")]);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
  return path.join(out, wheelName());
}

/**
 * The Go SDK as module GO_MODULE in `<out>/go` (gen-sdk writes its packages under go/svc, the
 * schema's importBasePath), its go.mod requiring the Go SDK of the tested CLI, and the same
 * module in module-proxy layout in `<out>/goproxy` (`<module>/@v/<version>.{info,mod,zip}`, the Go spelling of the version).
 */
export function buildGoModule(out: string): { moduleDir: string; proxyDir: string } {
  const moduleDir = path.join(out, "go");
  fs.rmSync(moduleDir, { recursive: true, force: true });
  const gen = fs.mkdtempSync(path.join(os.tmpdir(), "svc-release-go-"));
  try {
    genSdk("go", gen, []);
    fs.mkdirSync(moduleDir, { recursive: true });
    fs.renameSync(path.join(gen, "go"), path.join(moduleDir, "go"));
  } finally {
    fs.rmSync(gen, { recursive: true, force: true });
  }
  const goVersion = /^go (\S+)$/m.exec(fs.readFileSync(path.join(GO_HOST_MODULE_DIR, "go.mod"), "utf8"))?.[1] ?? "1.26";
  const goMod = `module ${GO_MODULE}\n\ngo ${goVersion}\n\nrequire github.com/pulumi/pulumi/sdk/v3 v${pinnedCliVersion()}\n`;
  fs.writeFileSync(path.join(moduleDir, "go.mod"), goMod);
  fs.copyFileSync(path.join(ROOT, "LICENSE"), path.join(moduleDir, "LICENSE"));

  const proxyDir = path.join(out, "goproxy");
  const at = path.join(proxyDir, ...GO_MODULE.split("/"), "@v");
  fs.rmSync(proxyDir, { recursive: true, force: true });
  fs.mkdirSync(at, { recursive: true });
  const v = releaseVersion().go;
  fs.writeFileSync(path.join(at, "list"), `${v}\n`);
  fs.writeFileSync(path.join(at, `${v}.info`), `${JSON.stringify({ Version: v, Time: new Date(0).toISOString() })}\n`);
  fs.writeFileSync(path.join(at, `${v}.mod`), goMod);
  // A module zip holds every file under the prefix `<module>@<version>/`.
  const stage = fs.mkdtempSync(path.join(os.tmpdir(), "svc-release-gozip-"));
  try {
    fs.cpSync(moduleDir, path.join(stage, `${GO_MODULE}@${v}`), { recursive: true });
    run("zip of the Go module", "zip", ["-q", "-r", "-X", path.join(at, `${v}.zip`), `${GO_MODULE}@${v}`], { cwd: stage });
  } finally {
    fs.rmSync(stage, { recursive: true, force: true });
  }
  return { moduleDir, proxyDir };
}

/** Every artifact into `out`; the time and size of each, printed. */
export async function buildRelease(out = RELEASE_DIR): Promise<void> {
  fs.rmSync(out, { recursive: true, force: true });
  fs.mkdirSync(out, { recursive: true });
  const version = releaseVersion();
  console.log(`release: version ${version.semver} (Go ${version.go}, Python ${version.python})${version.development ? `: a development build (${version.release} is the commit tagged v${version.release}, built from a clean work tree)` : ""}`);
  const timed = async <T>(what: string, f: () => T | Promise<T>): Promise<T> => {
    const started = Date.now();
    const result = await f();
    console.log(`release: ${what} in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    return result;
  };
  await timed("plugin archives", () => buildPluginArchives(out));
  await timed("npm tarball", () => buildNpmTarball(out));
  await timed("Python wheel", () => buildWheel(out));
  await timed("Go module", () => buildGoModule(out));
  for (const name of fs.readdirSync(out).sort()) {
    const stat = fs.statSync(path.join(out, name));
    console.log(`  ${name}${stat.isDirectory() ? "/" : `  ${(stat.size / 1024).toFixed(0)} KiB`}`);
  }
}

if (require.main === module) {
  buildRelease().catch((err: unknown) => {
    console.error(err instanceof Error ? err.message : String(err));
    process.exit(1);
  });
}
