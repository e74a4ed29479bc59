/**
 * Build the pack the way a user does before `pulumi preview --policy-pack policy`:
 * the repository's TypeScript compiler, pack only (policy/tsconfig.build.json),
 * into dist/. Tests that start the real policy runtime call this first so they
 * never run a stale build.
 */
import { execFile } from "node:child_process";
import * as path from "node:path";
import { promisify } from "node:util";

export const REPO_ROOT = path.resolve(__dirname, "../..");
export const PACK_DIR = path.join(REPO_ROOT, "policy");

let built: Promise<void> | undefined;

export function buildPack(): Promise<void> {
  built ??= (async () => {
    const tsc = require.resolve("typescript/bin/tsc");
    try {
      await promisify(execFile)(process.execPath, [tsc, "-p", path.join(PACK_DIR, "tsconfig.build.json")], { cwd: REPO_ROOT });
    } catch (e) {
      const err = e as { stdout?: string; stderr?: string; message: string };
      throw new Error(`building the policy pack failed:\n${err.stdout ?? ""}${err.stderr ?? ""}${err.message}`);
    }
  })();
  return built;
}
