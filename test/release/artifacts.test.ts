/**
 * What `npm run release` writes besides the plugin archives (plugin.test.ts), as a user or a
 * registry receives it: the npm tarball, the Python wheel (its metadata: name, version, the
 * pulumi range, the plugin's pulumi-plugin.json), the Go SDK module (go.mod at the module
 * path, pinned to the tested Go SDK) and its module-proxy layout. Their use is in the Python
 * and Go lifecycles (test/native/python-lifecycle.test.ts, go-lifecycle.test.ts).
 */
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { pinnedCliVersion } from "../../scripts/pulumi-cli/locate";
import { GO_MODULE, VERSION, npmTarballName, wheelName } from "../../scripts/release";
import { PULUMI_CLI_MISSING } from "../support/pulumi-cli";
import { releasePart } from "./artifacts";

const listing = (cmd: string, args: string[]) => spawnSync(cmd, args, { encoding: "utf8" }).stdout.trim().split("\n");
const unzipText = (zip: string, member: string) => spawnSync("unzip", ["-p", zip, member], { encoding: "utf8" }).stdout;

describe.skipIf(PULUMI_CLI_MISSING !== undefined)("the release's SDK artifacts", () => {
  it("the npm tarball is the package at its version, with the native plugin's entry point", async () => {
    const tgz = path.join(await releasePart("npm"), npmTarballName());
    const files = listing("tar", ["-tzf", tgz]);
    expect(files).toContain("package/dist/native/main.js");
    expect(files).toContain("package/schema.json");
    expect(JSON.parse(spawnSync("tar", ["-xzOf", tgz, "package/package.json"], { encoding: "utf8" }).stdout)).toMatchObject({ name: "pulumi-svc", version: VERSION });
  });

  it("the wheel is pulumi_svc at the package's version, requiring pulumi below 4, and names the plugin's release host", async () => {
    const whl = path.join(await releasePart("wheel"), wheelName());
    const metadata = unzipText(whl, `pulumi_svc-${VERSION}.dist-info/METADATA`);
    expect(metadata).toMatch(/^Name: pulumi_svc$/m);
    expect(metadata).toMatch(new RegExp(`^Version: ${VERSION.replace(/\./g, "\\.")}$`, "m"));
    expect(metadata).toMatch(/^Requires-Dist: pulumi<4\.0\.0,>=3\.\d+\.\d+$/m);
    expect(JSON.parse(unzipText(whl, "pulumi_svc/pulumi-plugin.json"))).toMatchObject({ resource: true, name: "svc", server: "github://api.github.com/pulumi-svc" });
    // A list function's hints name the element type (a bare list output was typed `list`, of plain dicts).
    const getEndpoints = unzipText(whl, "pulumi_svc/webhooks/get_endpoints.py");
    expect(getEndpoints).toMatch(/def items\(self\) -> Sequence\['outputs\.EndpointInfo'\]:/);
    expect(getEndpoints).toMatch(/\) -> AwaitableGetEndpointsResult:/);
  });

  it("the Go SDK is a module at its real path, pinned to the tested Go SDK, and a module proxy serves it", async () => {
    const dir = await releasePart("go");
    const goMod = fs.readFileSync(path.join(dir, "go", "go.mod"), "utf8");
    expect(goMod).toMatch(new RegExp(`^module ${GO_MODULE}$`, "m"));
    expect(goMod).toContain(`require github.com/pulumi/pulumi/sdk/v3 v${pinnedCliVersion()}`);
    expect(fs.existsSync(path.join(dir, "go", "go", "svc", "webhooks", "endpoint.go"))).toBe(true);
    const at = path.join(dir, "goproxy", ...GO_MODULE.split("/"), "@v");
    expect(fs.readFileSync(path.join(at, "list"), "utf8")).toBe(`v${VERSION}\n`);
    expect(fs.readFileSync(path.join(at, `v${VERSION}.mod`), "utf8")).toBe(goMod);
    const zipped = listing("unzip", ["-Z1", path.join(at, `v${VERSION}.zip`)]);
    expect(zipped).toContain(`${GO_MODULE}@v${VERSION}/go.mod`);
    expect(zipped).toContain(`${GO_MODULE}@v${VERSION}/go/svc/webhooks/endpoint.go`);
    expect(zipped.every((f) => f.startsWith(`${GO_MODULE}@v${VERSION}/`))).toBe(true);
  });
});
