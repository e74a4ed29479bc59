// A stack run behind one interface, `StackRunner`: the real Pulumi CLI with a local file
// backend (pulumi-cli.ts), returning an EngineResult a test asserts on.

import { PULUMI_CLI_MISSING, loadCliState, runCli } from "./pulumi-cli";
import type { ResourceState } from "./state";
import type { EngineOptions, EngineResult } from "./run-types";

/** What identifies a stack's state for a runner: its program, name and state file. */
export type StackRef = Pick<EngineOptions, "cwd" | "stack" | "stateFile" | "passphrase">;

export interface StackRunner {
  readonly name: "stand-in" | "cli";
  /** Why the runner cannot run here, or undefined when it can. */
  readonly unavailable: string | undefined;
  run(opts: EngineOptions): Promise<EngineResult>;
  /** The stack's resources with secrets decrypted and unwrapped (empty before the first up). */
  resources(stack: StackRef): ResourceState[];
}

/** The real Pulumi CLI (test/support/pulumi-cli.ts): `pulumi` built by `npm run pulumi:install`, or on PATH. */
export const cliRunner: StackRunner = {
  name: "cli",
  unavailable: PULUMI_CLI_MISSING,
  run: runCli,
  resources: loadCliState,
};
