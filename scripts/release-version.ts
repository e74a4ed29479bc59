// The version every artifact of `npm run release` carries, from one source, as Pulumi's providers
// version theirs (pulumictl `get version`):
//
//   - package.json's "version" is the release being prepared (CHANGELOG.md, "Unreleased") as an
//     unstamped development build, `<version>-alpha.0+dev` (what a checkout's `npm pack` and plugin
//     say: before every stamped build and the release);
//   - a build of the commit tagged `v<version>`, from a clean work tree, is that release and carries it;
//   - any other build is a development build: `<version>-alpha.<n>`, n the commit time of HEAD in
//     seconds (a later commit's builds sort later) followed by six digits of the SHA-256 of what goes
//     into the artifacts (not the commit's: two builds of one commit with different uncommitted
//     changes differ). No build metadata (`+...`): the consumers do not carry it through (Go refuses
//     it; Pulumi's Python SDK drops it when it names its plugin, and the engine then asks the release
//     host for the archive by that name at refresh and destroy; the CLI's plugin cache ignores it), so
//     a version with it would not be one name everywhere. It sorts before the release and after the
//     one before, and no two builds of different content share it, so no cache (the Go module cache,
//     pip's, the CLI's plugins) holding another build at that version can serve it.
//
// Each artifact spells it in its own syntax: semver for the plugin archives, schema.json,
// pulumi-plugin.json and the npm package; `v<semver>` for the Go module; PEP 440 for the wheel.

import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import * as fs from "node:fs";
import * as path from "node:path";
import { pinnedCliVersion } from "./pulumi-cli/locate";

const ROOT = path.resolve(__dirname, "..");

export interface ReleaseVersion {
  /** Semver: the plugin archives' names, schema.json, pulumi-plugin.json, the npm package. */
  semver: string;
  /** The Go module's version: `v<semver>`. */
  go: string;
  /** PEP 440, the wheel's: what Pulumi's Python generator makes of the semver (`a<n>`), as pip writes it. */
  python: string;
  /** The release's version (package.json's, without `-alpha.0+dev`): the tag `v<release>` makes a build the release. */
  release: string;
  /** Whether this is a development build (not the tagged, clean release). */
  development: boolean;
  /** contentHash(): what the build is made of. */
  content: string;
}

/** The files (besides dist/'s JavaScript) whose content goes into the artifacts, relative to the root. */
const INPUTS = ["package.json", "schema.json", "scripts/release.ts", "scripts/release-version.ts"];

function jsFilesUnder(root: string, dir: string): string[] {
  return fs.readdirSync(path.join(root, dir), { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) return p === path.join("dist", "release") ? [] : jsFilesUnder(root, p);
    return e.name.endsWith(".js") ? [p] : [];
  });
}

/** The SHA-256 (hex) of what a release under `root` is built from: INPUTS, the build (dist/, so `npm run build` first), and the CLI whose generators write the SDKs. */
export function contentHash(root = ROOT): string {
  const hash = createHash("sha256").update(`pulumi ${pinnedCliVersion()}\n`);
  for (const f of [...INPUTS, ...jsFilesUnder(root, "dist").sort()]) hash.update(`${f}\n`).update(fs.readFileSync(path.join(root, f)));
  return hash.digest("hex");
}

function git(root: string, args: string[]): string {
  const r = spawnSync("git", args, { cwd: root, encoding: "utf8" });
  if (r.error || r.status !== 0) throw new Error(`the release's version is read from git, and \`git ${args.join(" ")}\` failed in ${root}: ${r.error?.message ?? r.stderr.trim()}`);
  return r.stdout;
}

/** The version of a build of the checkout at `root` (its package.json, its git HEAD and work tree, its content). */
export function versionAt(root = ROOT): ReleaseVersion {
  const declared = (JSON.parse(fs.readFileSync(path.join(root, "package.json"), "utf8")) as { version: string }).version;
  const base = /^(\d+\.\d+\.\d+)-alpha\.0\+dev$/.exec(declared)?.[1];
  if (!base) throw new Error(`package.json's version is the release being prepared as an unstamped development build, <major.minor.patch>-alpha.0+dev: not ${JSON.stringify(declared)}`);
  const content = contentHash(root);
  const tagged = git(root, ["tag", "--points-at", "HEAD"]).split("\n").includes(`v${base}`);
  if (tagged && git(root, ["status", "--porcelain"]) === "") return { semver: base, go: `v${base}`, python: base, release: base, development: false, content };
  const n = `${git(root, ["log", "-1", "--format=%ct", "HEAD"]).trim()}${String(parseInt(content.slice(8, 16), 16) % 1_000_000).padStart(6, "0")}`;
  return {
    semver: `${base}-alpha.${n}`,
    go: `v${base}-alpha.${n}`,
    python: `${base}a${n}`,
    release: base,
    development: true,
    content,
  };
}

let current: ReleaseVersion | undefined;
/** The version of this checkout's build, read once per process. */
export function releaseVersion(): ReleaseVersion {
  return (current ??= versionAt());
}
