/**
 * A private build of the pack for tests that start the real policy runtime.
 *
 * Compiles policy/ (with the rules and tokens it imports) with the repository's
 * TypeScript and options (policy/tsconfig.build.json) into a fresh temporary
 * directory, and makes that directory a pack: PulumiPolicy.yaml and a package.json
 * whose `main` is the compiled index.js, as policy/package.json points at
 * dist/policy/index.js. A `node_modules` link next to it resolves @pulumi/policy
 * and friends from the repository.
 *
 * Why not dist/: test files run in parallel processes, and other suites' plugin
 * processes load dist/rules at the same time; rewriting dist under them could hand
 * one a half-written file. Each test file gets its own build instead, always of the
 * current source.
 */
import { execFile } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { promisify } from "node:util";

export const REPO_ROOT = path.resolve(__dirname, "../..");
/** The pack directory users pass to `--policy-pack` (loads the compiled pack from dist/). */
export const PACK_DIR = path.join(REPO_ROOT, "policy");

export interface BuiltPack {
  /** A pack directory to start the policy runtime in. */
  dir: string;
  remove(): void;
}

export async function buildPack(): Promise<BuiltPack> {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "svc-guardrails-"));
  const out = path.join(root, "out");
  const tsc = require.resolve("typescript/bin/tsc");
  try {
    await promisify(execFile)(process.execPath, [tsc, "-p", path.join(PACK_DIR, "tsconfig.build.json"), "--outDir", out], { cwd: REPO_ROOT });
  } catch (e) {
    fs.rmSync(root, { recursive: true, force: true });
    const err = e as { stdout?: string; stderr?: string; message: string };
    throw new Error(`building the policy pack failed:\n${err.stdout ?? ""}${err.stderr ?? ""}${err.message}`);
  }
  fs.symlinkSync(path.join(REPO_ROOT, "node_modules"), path.join(root, "node_modules"), "dir");
  const dir = path.join(out, "policy");
  const manifest = JSON.parse(fs.readFileSync(path.join(PACK_DIR, "package.json"), "utf8")) as Record<string, unknown>;
  fs.writeFileSync(path.join(dir, "package.json"), JSON.stringify({ ...manifest, main: "index.js" }, null, 2));
  fs.copyFileSync(path.join(PACK_DIR, "PulumiPolicy.yaml"), path.join(dir, "PulumiPolicy.yaml"));
  return { dir, remove: () => fs.rmSync(root, { recursive: true, force: true }) };
}
