// Scenario runners: the same scenario, run by the engine stand-in (always
// available) or by the real Pulumi CLI with a local file backend. Both return an
// EngineResult, so a test can assert the same things against either.

import { PULUMI_CLI_MISSING, loadCliState, runCli } from "../support/pulumi-cli";
import { DEFAULT_TEST_PASSPHRASE } from "./crypter";
import { runEngine } from "./engine";
import { StateFile, defaultStateFile, type ResourceState } from "./state";
import type { EngineOptions, EngineResult } from "./types";
import { unwrapSecrets, type Json } from "./values";

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

export const standInRunner: StackRunner = {
  name: "stand-in",
  unavailable: undefined,
  run: runEngine,
  resources: (stack) => {
    return new StateFile(defaultStateFile(stack.cwd, stack.stack, stack.stateFile), stack.passphrase ?? DEFAULT_TEST_PASSPHRASE).load().resources.map((r) => ({
      ...r,
      inputs: unwrapSecrets(r.inputs as Json) as ResourceState["inputs"],
      outputs: unwrapSecrets(r.outputs as Json) as ResourceState["outputs"],
    }));
  },
};

/** The real Pulumi CLI (test/support/pulumi-cli.ts): `pulumi` built by `npm run pulumi:install`, or on PATH. */
export const cliRunner: StackRunner = {
  name: "cli",
  unavailable: PULUMI_CLI_MISSING,
  run: runCli,
  resources: loadCliState,
};
