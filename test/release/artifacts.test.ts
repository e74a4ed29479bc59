/**
 * What `npm run release` writes besides the plugin archives (plugin.test.ts), as a user or a
 * registry receives it: the npm tarball, the Python wheel (its metadata: name, version, the
 * pulumi range, the plugin's pulumi-plugin.json), the Go SDK module (go.mod at the module
 * path, pinned to the tested Go SDK) and its module-proxy layout. Their use is in the Python
 * and Go lifecycles (test/native/python-lifecycle.test.ts, go-lifecycle.test.ts).
 *
 * And their version (scripts/release-version.ts): every artifact at the build's, each in its
 * own syntax, and no Go module cache of this machine holding another build at it. (How the
 * version is made: version.test.ts.)
 */
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { pinnedCliVersion } from "../../scripts/pulumi-cli/locate";
import { GO_MODULE, PLATFORMS, npmTarballName, pluginArchiveName, wheelName } from "../../scripts/release";
import { releaseVersion } from "../../scripts/release-version";
import { PULUMI_CLI_MISSING } from "../support/pulumi-cli";
import { releasePart } from "./artifacts";

const listing = (cmd: string, args: string[]) => spawnSync(cmd, args, { encoding: "utf8" }).stdout.trim().split("\n");
const unzipText = (zip: string, member: string) => spawnSync("unzip", ["-p", zip, member], { encoding: "utf8" }).stdout;
const untarText = (tgz: string, member: string) => spawnSync("tar", ["-xzOf", tgz, member], { encoding: "utf8" }).stdout;
const versionOf = (json: string) => (JSON.parse(json) as { version: string }).version;

describe.skipIf(PULUMI_CLI_MISSING !== undefined)("the release's SDK artifacts", () => {
  const { semver, go, python } = releaseVersion();

  it("the plugin archives carry the build's version in their names, package.json and schema.json", async () => {
    const archive = path.join(await releasePart("plugin"), pluginArchiveName(PLATFORMS[0]));
    expect(path.basename(archive)).toBe(`pulumi-resource-svc-v${semver}-${PLATFORMS[0]}.tar.gz`);
    expect(versionOf(untarText(archive, "package.json"))).toBe(semver);
    expect(versionOf(untarText(archive, "schema.json"))).toBe(semver);
  });

  it("the npm tarball is the package at the build's version, with the native plugin's entry point", async () => {
    const tgz = path.join(await releasePart("npm"), npmTarballName());
    const files = listing("tar", ["-tzf", tgz]);
    expect(files).toContain("package/dist/native/main.js");
    expect(files).toContain("package/schema.json");
    expect(JSON.parse(untarText(tgz, "package/package.json"))).toMatchObject({ name: "pulumi-svc", version: semver });
    expect(versionOf(untarText(tgz, "package/schema.json"))).toBe(semver);
  });

  it("the wheel is pulumi_svc at the build's version (PEP 440), requiring pulumi below 4, and names the plugin's version and release host", async () => {
    const whl = path.join(await releasePart("wheel"), wheelName());
    const metadata = unzipText(whl, `pulumi_svc-${python}.dist-info/METADATA`);
    expect(metadata).toMatch(/^Name: pulumi_svc$/m);
    expect(metadata).toMatch(new RegExp(`^Version: ${python.replace(/[.+]/g, "\\$&")}$`, "m"));
    expect(metadata).toMatch(/^Requires-Dist: pulumi<4\.0\.0,>=3\.\d+\.\d+$/m);
    expect(JSON.parse(unzipText(whl, "pulumi_svc/pulumi-plugin.json"))).toMatchObject({ resource: true, name: "svc", version: semver, server: "github://api.github.com/pulumi-svc" });
    // A list function's hints name the element type (a bare list output was typed `list`, of plain dicts).
    const getEndpoints = unzipText(whl, "pulumi_svc/webhooks/get_endpoints.py");
    expect(getEndpoints).toMatch(/def items\(self\) -> Sequence\['outputs\.EndpointInfo'\]:/);
    expect(getEndpoints).toMatch(/\) -> AwaitableGetEndpointsResult:/);
  });

  it("the Go SDK is a module at its real path, pinned to the tested Go SDK, and a module proxy serves it at the build's version", async () => {
    const dir = await releasePart("go");
    const goMod = fs.readFileSync(path.join(dir, "go", "go.mod"), "utf8");
    expect(goMod).toMatch(new RegExp(`^module ${GO_MODULE}$`, "m"));
    expect(goMod).toContain(`require github.com/pulumi/pulumi/sdk/v3 v${pinnedCliVersion()}`);
    expect(fs.existsSync(path.join(dir, "go", "go", "svc", "webhooks", "endpoint.go"))).toBe(true);
    expect(JSON.parse(fs.readFileSync(path.join(dir, "go", "go", "svc", "pulumi-plugin.json"), "utf8"))).toMatchObject({ name: "svc", version: semver });
    const at = path.join(dir, "goproxy", ...GO_MODULE.split("/"), "@v");
    expect(fs.readFileSync(path.join(at, "list"), "utf8")).toBe(`${go}\n`);
    expect(fs.readFileSync(path.join(at, `${go}.mod`), "utf8")).toBe(goMod);
    const zipped = listing("unzip", ["-Z1", path.join(at, `${go}.zip`)]);
    expect(zipped).toContain(`${GO_MODULE}@${go}/go.mod`);
    expect(zipped).toContain(`${GO_MODULE}@${go}/go/svc/webhooks/endpoint.go`);
    expect(zipped.every((f) => f.startsWith(`${GO_MODULE}@${go}/`))).toBe(true);
  });

  it("this machine's Go module cache holds no other build at this version (`go get` would be served it, and a go.sum of it fails)", async () => {
    const machineCache = spawnSync("go", ["env", "GOMODCACHE"], { encoding: "utf8" }).stdout.trim();
    const cached = path.join(machineCache, "cache", "download", ...GO_MODULE.split("/"), "@v", `${go}.ziphash`);
    if (!fs.existsSync(cached)) return;
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "svc-release-gosum-"));
    const env = { ...process.env, GOPROXY: `file://${path.join(await releasePart("go"), "goproxy")}`, GOMODCACHE: tmp, GOSUMDB: "off", GOFLAGS: "-modcacherw" };
    const r = spawnSync("go", ["mod", "download", "-json", `${GO_MODULE}@${go}`], { cwd: tmp, env, encoding: "utf8" });
    fs.rmSync(tmp, { recursive: true, force: true });
    expect(r.status, r.stderr + r.stdout).toBe(0);
    expect((JSON.parse(r.stdout) as { Sum: string }).Sum).toBe(fs.readFileSync(cached, "utf8").trim());
  });
});
