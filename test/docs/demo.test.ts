/**
 * `npm run demo` as the README promises it: the quickstart against the emulator with the
 * real Pulumi CLI (when installed), one PATCH for the one-field change, nothing left
 * after destroy, and the team token never printed.
 */
import { spawnSync } from "node:child_process";
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { PULUMI_CLI_MISSING } from "../support/pulumi-cli";

const ROOT = resolve(__dirname, "../..");

if (PULUMI_CLI_MISSING) console.log(`npm run demo with the Pulumi CLI: skipped: ${PULUMI_CLI_MISSING}`);
describe.skipIf(PULUMI_CLI_MISSING !== undefined)("npm run demo", () => {
  it("runs the quickstart with the Pulumi CLI: up, a one-field change as one PATCH, destroy leaves nothing", () => {
    // scripts/demo.ts is what `npm run demo` runs after the build `npm test` has done.
    const r = spawnSync(resolve(ROOT, "node_modules/.bin/tsx"), ["scripts/demo.ts"], { cwd: ROOT, encoding: "utf8", timeout: 280_000 });
    const out = `${r.stdout}${r.stderr}`;
    expect(r.status, out).toBe(0);
    expect(out).toContain("running with the Pulumi CLI");
    const secondUpCalls = /Change one argument[\s\S]*?API calls: (.*)/.exec(out)?.[1] ?? "";
    expect(secondUpCalls.split(", ").filter((c) => !c.startsWith("GET "))).toEqual([expect.stringMatching(/^PATCH \/webhooks\/v1\/endpoints\/ep_\w+ -> 200$/)]);
    expect(out).toContain("The emulator now holds 0 endpoints.");
    expect(out).not.toContain("demo-team-token-kept-secret");
  }, 300_000);
});
