// Scenario runners: the same scenario, run by the engine stand-in (always
// available) or by the real Pulumi CLI with a local file backend. Both return an
// EngineResult, so a test can assert the same things against either.

import { PULUMI_CLI_MISSING, runCli } from "../support/pulumi-cli";
import { runEngine } from "./engine";
import type { EngineOptions, EngineResult } from "./types";

export interface StackRunner {
  readonly name: "stand-in" | "cli";
  /** Why the runner cannot run here, or undefined when it can. */
  readonly unavailable: string | undefined;
  run(opts: EngineOptions): Promise<EngineResult>;
}

export const standInRunner: StackRunner = {
  name: "stand-in",
  unavailable: undefined,
  run: runEngine,
};

/** The real Pulumi CLI (test/support/pulumi-cli.ts): `pulumi` built by `npm run pulumi:install`, or on PATH. */
export const cliRunner: StackRunner = {
  name: "cli",
  unavailable: PULUMI_CLI_MISSING,
  run: runCli,
};
