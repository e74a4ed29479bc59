/**
 * The plugin archives of `npm run release` as the real CLI takes them, with no
 * `pulumi-resource-svc` on PATH and a fresh PULUMI_HOME each time:
 *
 * - a loopback HTTP server stands in for the release host: a YAML program whose package
 *   declaration (`sdks/svc.yaml`) names it as the `downloadUrl` runs `up` against the emulator, the CLI downloading
 *   `pulumi-resource-svc-v<version>-<os>-<arch>.tar.gz` from it and installing it itself;
 * - `pulumi plugin install resource svc <version> --file <archive>`, then
 *   `pulumi package get-schema svc` by name lists the nine kinds.
 *
 * Also the archives themselves: one per platform, the launchers and the bundle inside, no
 * node_modules tree; and the bundle's start-up to its port line (printed, not asserted).
 */
import { spawn, spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { PLATFORMS, pluginArchiveName } from "../../scripts/release";
import { releaseVersion } from "../../scripts/release-version";
import { lastSeq, requestsSince, useEmulator } from "../support/emulator";
import { pulumiAsync, runCli } from "../support/pulumi-cli";
import { NATIVE_MISSING, nativeStack, writesOf } from "../native/support";
import { PLATFORM, useReleaseHost, userPath } from "./host";

const emu = useEmulator();
const host = useReleaseHost();

const KINDS = ["svc:inboxes:Inbox", "svc:infra:QuotaLimits", "svc:infra:QuotaRequest", "svc:webhooks:Endpoint", "svc:webhooks:EventType", "svc:webhooks:EventTypePolicy", "svc:webhooks:OperationalEndpoint", "svc:webhooks:Source", "svc:webhooks:WorkspaceSettings"];

describe.skipIf(NATIVE_MISSING !== undefined)("the released plugin archives under the real CLI", () => {
  const archive = () => path.join(host().archives, pluginArchiveName(PLATFORM));

  it("are one per platform, each holding the launchers, one bundle beside recheck's, package.json and schema.json: no node_modules", () => {
    expect(fs.readdirSync(host().archives).sort()).toEqual(PLATFORMS.map(pluginArchiveName).sort());
    const listing = spawnSync("tar", ["-tzvf", archive()], { encoding: "utf8" }).stdout;
    const names = listing.trim().split("\n").map((l) => l.split(/\s+/).pop());
    expect(names.sort()).toEqual(["LICENSE", "package.json", "pulumi-resource-svc", "pulumi-resource-svc.cmd", "pulumi-resource-svc.js", "recheck.js", "schema.json"]);
    // The Unix launcher is executable as extracted.
    expect(listing).toMatch(/^-rwx.* pulumi-resource-svc$/m);
    for (const platform of PLATFORMS) console.log(`${pluginArchiveName(platform)}: ${(fs.statSync(path.join(host().archives, pluginArchiveName(platform))).size / 1024).toFixed(0)} KiB`);
  });

  it("the launcher without node on PATH says what it needs", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "svc-release-nonode-"));
    spawnSync("tar", ["-xzf", archive(), "-C", dir]);
    const r = spawnSync("/bin/sh", [path.join(dir, "pulumi-resource-svc")], { encoding: "utf8", env: { PATH: "/nonexistent" } });
    expect(r.status).toBe(1);
    expect(r.stderr).toContain("pulumi-resource-svc needs Node.js >= 20 on PATH (https://nodejs.org): node was not found");
    // Windows' launcher says the same: in its parenthesised block, each of cmd's metacharacters is escaped with `^`
    // (an unescaped `)` would end the block and cut the message), which cmd drops when it echoes.
    const echoed = /\(echo (.*) 1>&2 & exit \/b 1\)/.exec(fs.readFileSync(path.join(dir, "pulumi-resource-svc.cmd"), "utf8"))?.[1] ?? "";
    expect(echoed.replace(/\^./g, "")).not.toMatch(/[\^&|<>()]/);
    expect(echoed.replace(/\^(.)/g, "$1")).toBe("pulumi-resource-svc needs Node.js >= 20 on PATH (https://nodejs.org): node was not found");
  });

  it("starts to its port line (printed beside dist/native/main.js's)", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "svc-release-start-"));
    spawnSync("tar", ["-xzf", archive(), "-C", dir]);
    const portLine = async (args: string[]) => {
      const started = process.hrtime.bigint();
      const child = spawn(process.execPath, args, { stdio: ["ignore", "pipe", "inherit"] });
      let out = "";
      await new Promise<void>((resolve) => child.stdout.on("data", (b: Buffer) => ((out += b.toString()), out.includes("\n") && resolve())));
      child.kill();
      expect(out).toMatch(/^\d+\n$/);
      return Number(process.hrtime.bigint() - started) / 1e6;
    };
    const median = async (args: string[]) => {
      const times: number[] = [];
      for (let i = 0; i < 5; i++) times.push(await portLine(args));
      return times.sort((a, b) => a - b)[2]!.toFixed(0);
    };
    console.log(`port line: released bundle ${await median([path.join(dir, "pulumi-resource-svc.js")])} ms, dist/native/main.js ${await median([path.resolve(__dirname, "../../dist/native/main.js")])} ms (medians of 5)`);
  });

  it("the CLI downloads the plugin from the release host a YAML project's package declaration names into a fresh PULUMI_HOME, and up creates through it", { timeout: 300_000 }, async () => {
    // As the README's YAML path says: one package declaration file (Pulumi YAML's `sdks/*.yaml`), no option on any
    // resource or invoke.
    const program = `
resources:
  bin:
    type: svc:inboxes:Inbox
    properties:
      label: fetched
variables:
  found:
    fn::invoke:
      function: svc:inboxes:getInbox
      arguments:
        id: \${bin.id}
outputs:
  inboxId: \${bin.id}
  foundLabel: \${found.label}
`;
    const declaration = `packageDeclarationVersion: 1\nname: svc\nversion: ${releaseVersion().semver}\ndownloadUrl: ${host().url}\n`;
    const s = await nativeStack(emu(), "release-download", { project: `runtime: yaml\n${program}`, files: { "sdks/svc.yaml": declaration }, binDirs: [] });
    const opts = s.options("up");
    // The program names the host itself: no redirect.
    const env = { ...opts.env, ...host().env(), PULUMI_PLUGIN_DOWNLOAD_URL_OVERRIDES: "" };
    expect(spawnSync("/bin/sh", ["-c", "command -v pulumi-resource-svc"], { env: { PATH: userPath() } }).status).not.toBe(0);
    const since = await lastSeq(emu());
    const served = host().served;
    served.length = 0;
    const started = Date.now();
    const up = await runCli({ ...opts, env });
    console.log(`download, install and up: ${((Date.now() - started) / 1000).toFixed(1)} s`);
    expect(up.ok, up.summary).toBe(true);
    expect(up.outputs).toMatchObject({ foundLabel: "fetched" });
    // The API keys are set with --secret: no warning that they are not.
    expect(up.summary).not.toContain("in plaintext");
    expect(served).toEqual([`GET /${pluginArchiveName(PLATFORM)}`]);
    expect(writesOf(await requestsSince(emu(), since))).toEqual(["POST /inboxes/v1/inboxes"]);
    // Installed where the CLI keeps plugins, in this stack's own PULUMI_HOME.
    const home = `${opts.stateFile!}.pulumi/home`;
    expect(fs.existsSync(path.join(home, "plugins", `resource-svc-v${releaseVersion().semver}`, "pulumi-resource-svc"))).toBe(true);
    // Once installed, the next run downloads nothing.
    const destroy = await runCli({ ...s.options("destroy"), env });
    expect(destroy.ok, destroy.summary).toBe(true);
    expect(served).toHaveLength(1);
  });

  it("`pulumi plugin install resource svc <version> --file <archive>` installs it, and `get-schema svc` by name lists the nine kinds", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "svc-release-install-"));
    const user = { cwd: dir, stack: "dev", stateFile: path.join(dir, "state.json"), env: { PATH: userPath() } };
    const install = await pulumiAsync(user, ["plugin", "install", "resource", "svc", releaseVersion().semver, "--file", archive()]);
    expect(install.code, install.output + install.stderr).toBe(0);
    const listed = await pulumiAsync(user, ["plugin", "ls"]);
    expect(listed.output).toMatch(new RegExp(`svc\\s+resource\\s+${releaseVersion().semver.replace(/[.+]/g, "\\$&")}\\s`));
    const schema = await pulumiAsync(user, ["package", "get-schema", "svc"]);
    expect(schema.code, schema.stderr).toBe(0);
    expect(Object.keys((JSON.parse(schema.output) as { resources: Record<string, unknown> }).resources).sort()).toEqual(KINDS);
  });
});
