/**
 * The release artifacts (scripts/release.ts) for the suites that take a user's path through
 * them, built once per version and content of what goes into them (scripts/release-version.ts:
 * the release script, the package's manifest, schema.json and the build, dist/, so `npm run
 * build` first): each part into its own directory of
 * node_modules/.cache/pulumi-svc-release/<version>-<content>/, and by what the part is built
 * with (variantOf). One process builds a part (a lock directory beside
 * it; the others wait), in a staging directory renamed into place, so no test file sees one
 * half made.
 */
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import * as fs from "node:fs";
import * as path from "node:path";
import { locatePulumiCli } from "../../scripts/pulumi-cli/locate";
import { locatePython, systemPython } from "../../scripts/pulumi-cli/python";
import { buildGoModule, buildNpmTarball, buildPluginArchives, buildWheel, wheelName } from "../../scripts/release";
import { releaseVersion } from "../../scripts/release-version";

const ROOT = path.resolve(__dirname, "../..");

function python(args: string[], what: string): string {
  const [cmd, ...rest] = args;
  const r = spawnSync(cmd!, rest, { encoding: "utf8" });
  if (r.error || r.status !== 0) throw new Error(`${what} failed: ${args.join(" ")}\n${r.stderr}${r.stdout}`);
  return r.stdout.trim();
}

/**
 * A user's virtual environment: `python3 -m venv`, then `pip install` of the wheel. PyPI is not
 * reachable here, so the wheel's requirements (pulumi and what it needs) come from the
 * virtualenv `npm run pulumi:install` built with the pinned packages, on the new one's path
 * through a .pth file after its own site-packages (where the wheel's pulumi_svc is).
 */
async function wheelVenv(out: string): Promise<void> {
  const wheel = path.join(await releasePart("wheel"), wheelName());
  const py = systemPython();
  const pinned = locatePython();
  if ("missing" in py) throw new Error(py.missing);
  if ("missing" in pinned) throw new Error(pinned.missing);
  const purelib = (venv: string) => python([path.join(venv, "bin", "python"), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"], "sysconfig");
  python([py.python, "-m", "venv", out], "python3 -m venv");
  python([path.join(out, "bin", "python"), "-m", "pip", "install", "--quiet", "--no-index", "--no-deps", wheel], "pip install of the wheel");
  // After the install: pip would otherwise find the pinned virtualenv's own pulumi_svc (generated there) satisfying the wheel.
  // That one is left out (generated from the checkout's unstamped schema, another build whose plugin the host would list):
  // the .pth names a directory of links to the rest, relative to the site directory, so that it holds after the rename.
  const pinnedPackages = path.join(out, "pinned-packages");
  fs.mkdirSync(pinnedPackages);
  for (const entry of fs.readdirSync(purelib(pinned.venv))) {
    if (!entry.startsWith("pulumi_svc")) fs.symlinkSync(path.join(purelib(pinned.venv), entry), path.join(pinnedPackages, entry));
  }
  fs.writeFileSync(path.join(purelib(out), "pulumi-requirements.pth"), `${path.relative(purelib(out), pinnedPackages)}\n`);
}

const PARTS = {
  plugin: (out: string) => buildPluginArchives(out),
  npm: (out: string) => buildNpmTarball(out),
  wheel: (out: string) => buildWheel(out),
  go: (out: string) => buildGoModule(out),
  venv: wheelVenv,
};

/**
 * What a part is built with beyond the release's sources, as a suffix of its directory: the
 * wheel and the virtualenv, the Python side of pulumi:install (the generator; the pinned
 * virtualenv the .pth file reaches; the virtualenv's recipe here), the Go module, the CLI's build (its Go generator).
 */
function variantOf(part: keyof typeof PARTS): string {
  const located = part === "wheel" || part === "venv" ? locatePython() : part === "go" ? locatePulumiCli() : undefined;
  // The virtualenv's recipe (wheelVenv) is this file's, outside the release's content.
  const recipe = part === "venv" ? fs.readFileSync(__filename) : "";
  return located && !("missing" in located) ? `-${createHash("sha256").update(located.binDir).update(recipe).digest("hex").slice(0, 8)}` : "";
}

/** A builder that has held a part's lock this long is taken for dead (killed mid-build), and its lock for stale. */
const STALE_LOCK_MS = 10 * 60_000;

/** The directory holding `part` of the release, built on first call for this content, by one process at a time. */
export async function releasePart(part: keyof typeof PARTS): Promise<string> {
  const { semver, content } = releaseVersion();
  const dir = path.join(ROOT, "node_modules", ".cache", "pulumi-svc-release", `${semver}-${content.slice(0, 16)}`, `${part}${variantOf(part)}`);
  const lock = `${dir}.lock`;
  fs.mkdirSync(path.dirname(dir), { recursive: true });
  for (;;) {
    if (fs.existsSync(dir)) return dir;
    try {
      fs.mkdirSync(lock);
      break;
    } catch {
      // Another process builds it: wait for its rename, or take over a lock it left behind.
      const age = Date.now() - (fs.statSync(lock, { throwIfNoEntry: false })?.mtimeMs ?? Date.now());
      if (age > STALE_LOCK_MS) fs.rmSync(lock, { recursive: true, force: true });
      else await new Promise((r) => setTimeout(r, 200));
    }
  }
  try {
    if (fs.existsSync(dir)) return dir;
    const staging = `${dir}.partial-${process.pid}`;
    fs.rmSync(staging, { recursive: true, force: true });
    fs.mkdirSync(staging, { recursive: true });
    const started = Date.now();
    await PARTS[part](staging);
    console.log(`release artifacts: ${part} built in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    fs.renameSync(staging, dir);
    return dir;
  } finally {
    fs.rmSync(lock, { recursive: true, force: true });
  }
}
