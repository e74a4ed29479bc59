/**
 * What the package tests share: packing the tarball as npm ships it, running a command in
 * a fresh project, and the compiler options of Pulumi's TypeScript template.
 */
import { spawnSync } from "node:child_process";
import { join, resolve } from "node:path";

export const REPO = resolve(__dirname, "../..");

/** Runs a command to completion; its stdout, or an error with both streams. */
export function run(cmd: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = process.env): string {
  const res = spawnSync(cmd, args, { cwd, encoding: "utf8", env: { ...env, npm_config_update_notifier: "false", npm_config_fund: "false", npm_config_audit: "false" } });
  if (res.status !== 0) throw new Error(`${cmd} ${args.join(" ")} failed (${res.status}):\n${res.stdout}\n${res.stderr}`);
  return res.stdout;
}

/** `npm pack` of the repository into dir: the tarball's path and the files it holds. */
export function packTarball(dir: string): { tarball: string; files: string[] } {
  // --ignore-scripts: `prepare` would build again; dist/ is built already.
  const packed = JSON.parse(run("npm", ["pack", "--json", "--ignore-scripts", "--pack-destination", dir], REPO)) as { filename: string; files: { path: string }[] }[];
  return { tarball: join(dir, packed[0]!.filename), files: packed[0]!.files.map((f) => f.path) };
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
