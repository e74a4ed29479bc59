/**
 * Which Pulumi CLI the real-CLI loop runs (scripts/pulumi-cli/locate.ts): one of the pinned
 * version only. A `pulumi` of another version first on PATH is passed over, and named in the
 * reason the suites give when no pinned one is found; under PULUMI_SVC_REQUIRE_CLI=1 that
 * reason fails them.
 */
import { spawnSync } from "node:child_process";
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

  // Only the other version on PATH (a pinned CLI the machine has on PATH would be found), and no cached build.
  process.env["PATH"] = other;
  process.env["PULUMI_SVC_CLI_CACHE"] = mkdtempSync(join(tmpdir(), "svc-locate-cache-"));
  dirs.push(process.env["PULUMI_SVC_CLI_CACHE"]);
  const found = locatePulumiCli();
  expect(found).toEqual({ missing: expect.stringContaining(`the Pulumi CLI v${pinned} is not installed`) });
  expect(found).toEqual({ missing: expect.stringContaining(`${join(other, "pulumi")} is v3.100.0`) });
});

/** Importing `module` in a child process with PATH `dir` (the stand-in CLI) and no cached build: its exit and output. */
function importWith(module: string, dir: string, require: boolean) {
  const cache = mkdtempSync(join(tmpdir(), "svc-locate-cache-"));
  dirs.push(cache);
  const env = { ...process.env, PATH: dir, PULUMI_SVC_CLI_CACHE: cache, PULUMI_SVC_REQUIRE_CLI: require ? "1" : "" };
  const r = spawnSync(process.execPath, ["--require", "tsx/cjs", "-e", `require(${JSON.stringify(module)})`], { cwd: join(__dirname, "../.."), env, encoding: "utf8" });
  return { status: r.status, output: `${r.stdout}${r.stderr}` };
}

it("under PULUMI_SVC_REQUIRE_CLI=1 (CI), a missing CLI or YAML host fails the suites that need them, rather than skip them", () => {
  const support = join(__dirname, "../support");
  const nodejsOnly = cliOf(pinnedCliVersion()); // pulumi and the Node.js host, no pulumi-language-yaml
  expect(importWith(join(support, "native-plugin.ts"), nodejsOnly, false).status).toBe(0);
  const yaml = importWith(join(support, "native-plugin.ts"), nodejsOnly, true);
  expect(yaml.status).not.toBe(0);
  expect(yaml.output).toContain("PULUMI_SVC_REQUIRE_CLI=1 but pulumi-language-yaml is not installed");
  const none = importWith(join(support, "pulumi-cli.ts"), cliOf("3.100.0"), true);
  expect(none.status).not.toBe(0);
  expect(none.output).toContain(`PULUMI_SVC_REQUIRE_CLI=1 but the Pulumi CLI v${pinnedCliVersion()} is not installed`);
}, 60_000);
