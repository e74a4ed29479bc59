/**
 * `describe` for a suite that runs its programs under the real Pulumi CLI. Where the CLI
 * is missing (no Go to build it), the suite skips and says what to install; CI sets
 * PULUMI_SVC_REQUIRE_CLI=1, which makes a missing CLI an error instead (pulumi-cli.ts).
 */
import { describe, type TestOptions } from "vitest";
import { PULUMI_CLI_MISSING } from "./pulumi-cli";

export function describeWithCli(name: string, fn: () => void, options: TestOptions = {}): void {
  if (PULUMI_CLI_MISSING !== undefined) console.log(`${name}: skipped: ${PULUMI_CLI_MISSING}`);
  describe.skipIf(PULUMI_CLI_MISSING !== undefined)(name, options, fn);
}
