/**
 * What the package tests share: the tarball as npm ships it, running a command in
 * a fresh project, and the compiler options of Pulumi's TypeScript template.
 */
import { spawnSync } from "node:child_process";
import { join, resolve } from "node:path";
import { npmTarballName } from "../../scripts/release";
import { releasePart } from "../release/artifacts";

export const REPO = resolve(__dirname, "../..");

/** Runs a command to completion; its stdout, or an error with both streams. */
export function run(cmd: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = process.env): string {
  const res = spawnSync(cmd, args, { cwd, encoding: "utf8", env: { ...env, npm_config_update_notifier: "false", npm_config_fund: "false", npm_config_audit: "false" } });
  if (res.status !== 0) throw new Error(`${cmd} ${args.join(" ")} failed (${res.status}):\n${res.stdout}\n${res.stderr}`);
  return res.stdout;
}

/**
 * The npm tarball `npm run release` writes (scripts/release.ts: `npm pack` of the package at the
 * build's version), built once per content for every suite that installs it (test/release/artifacts.ts):
 * its path and the files it holds.
 */
export async function packTarball(): Promise<{ tarball: string; files: string[] }> {
  const tarball = join(await releasePart("npm"), npmTarballName());
  const files = run("tar", ["-tzf", tarball], REPO).trim().split("\n").filter((f) => !f.endsWith("/")).map((f) => f.replace(/^package\//, ""));
  return { tarball, files };
}

// Pulumi's TypeScript template (pulumi new typescript): no esModuleInterop, no skipLibCheck.
export const TEMPLATE_OPTIONS = {
  strict: true,
  outDir: "bin",
  target: "es2020",
  module: "commonjs",
  moduleResolution: "node",
  sourceMap: true,
  experimentalDecorators: true,
  pretty: false,
  noFallthroughCasesInSwitch: true,
  noImplicitReturns: true,
  forceConsistentCasingInFileNames: true,
};
