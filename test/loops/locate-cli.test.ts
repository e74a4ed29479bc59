/**
 * Which Pulumi CLI the real-CLI loop runs (scripts/pulumi-cli/locate.ts): one of the pinned
 * version only. A `pulumi` of another version first on PATH is passed over, and named in the
 * reason the suites give when no pinned one is found.
 */
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { afterEach, expect, it } from "vitest";
import { locatePulumiCli, pinnedCliVersion } from "../../scripts/pulumi-cli/locate";

const saved = { PATH: process.env["PATH"], PULUMI_SVC_CLI_CACHE: process.env["PULUMI_SVC_CLI_CACHE"] };
const dirs: string[] = [];
afterEach(() => {
  for (const [k, v] of Object.entries(saved)) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
  dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true }));
});

/** A directory with `pulumi` and `pulumi-language-nodejs` reporting `version`. */
function cliOf(version: string): string {
  const dir = mkdtempSync(join(tmpdir(), "svc-locate-"));
  dirs.push(dir);
  for (const name of ["pulumi", "pulumi-language-nodejs"]) {
    writeFileSync(join(dir, name), `#!/bin/sh\necho v${version}\n`);
    chmodSync(join(dir, name), 0o755);
  }
  return dir;
}

it("takes a pinned-version CLI on PATH, passes over another version, and names it when nothing else is found", () => {
  const pinned = pinnedCliVersion();
  const [other, right] = [cliOf("3.100.0"), cliOf(pinned)];
  process.env["PATH"] = [other, right, saved.PATH].join(delimiter);
  expect(locatePulumiCli()).toEqual({ binDir: right, version: pinned });

  process.env["PATH"] = [other, saved.PATH].join(delimiter);
  process.env["PULUMI_SVC_CLI_CACHE"] = mkdtempSync(join(tmpdir(), "svc-locate-cache-")); // no cached build
  dirs.push(process.env["PULUMI_SVC_CLI_CACHE"]);
  const found = locatePulumiCli();
  expect(found).toEqual({ missing: expect.stringContaining(`the Pulumi CLI v${pinned} is not installed`) });
  expect(found).toEqual({ missing: expect.stringContaining(`${join(other, "pulumi")} is v3.100.0`) });
});
