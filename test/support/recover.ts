/**
 * `pulumi-svc recover` (the built dist/cli/pulumi-svc.js: `npm run build`) for a stack the
 * real CLI runs (pulumi-cli.ts), as a pipeline runs it after a killed job: its exit code
 * and everything it printed.
 */
import { spawn } from "node:child_process";
import { resolve } from "node:path";
import type { EngineOptions } from "./run-types";
import { cliEnv, stackArgs } from "./pulumi-cli";

const RECOVER = resolve(__dirname, "../../dist/cli/pulumi-svc.js");

/** `env`: the runner's (e.g. a fresh HOME and PULUMI_HOME); `extra`: more arguments (`--adopt URN=ID`, `--dry-run`). */
export function recoverStack(ref: Pick<EngineOptions, "cwd" | "stack" | "stateFile">, env: Record<string, string>, extra: string[] = []): Promise<{ code: number; output: string }> {
  const child = spawn(process.execPath, [RECOVER, "recover", ...stackArgs(ref), ...extra], { cwd: ref.cwd, env: cliEnv({ ...ref, env }), stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  child.stdout.on("data", (b: Buffer) => (output += b.toString()));
  child.stderr.on("data", (b: Buffer) => (output += b.toString()));
  return new Promise((r) => child.once("close", (code) => r({ code: code ?? 1, output })));
}
