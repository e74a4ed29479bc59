/**
 * The build's version (scripts/release-version.ts): two builds of different content never at
 * one version, in any of the three syntaxes (semver, Go, PEP 440), both before the release in
 * pip's order; the tagged commit's clean build at the release's. (That every artifact carries
 * it: artifacts.test.ts.)
 */
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { locatePython } from "../../scripts/pulumi-cli/python";
import { versionAt } from "../../scripts/release-version";

const ROOT = path.resolve(__dirname, "../..");

describe("the build's version", () => {
  const declared = (JSON.parse(fs.readFileSync(path.join(ROOT, "package.json"), "utf8")) as { version: string }).version;

  it("two builds of different content differ in every syntax and sort before the release; the tagged commit's clean build is the release", () => {
    // A checkout of its own: the inputs of a build, and one build file whose content changes.
    const root = fs.mkdtempSync(path.join(os.tmpdir(), "svc-release-version-"));
    for (const f of ["package.json", "schema.json", "scripts/release.ts", "scripts/release-version.ts"]) fs.cpSync(path.join(ROOT, f), path.join(root, f));
    const build = (text: string) => {
      fs.mkdirSync(path.join(root, "dist", "native"), { recursive: true });
      fs.writeFileSync(path.join(root, "dist", "native", "main.js"), text);
    };
    const git = (...args: string[]) => expect(spawnSync("git", ["-c", "user.name=t", "-c", "user.email=t@example.com", ...args], { cwd: root, encoding: "utf8" }).status).toBe(0);
    build("one");
    git("init", "--quiet");
    git("add", ".");
    git("commit", "--quiet", "-m", "one");
    const first = versionAt(root);
    // package.json names the release as an unstamped development build.
    const base = first.release;
    expect(declared).toBe(`${base}-alpha.0+dev`);
    // One name in every syntax, with no build metadata, which the Python SDK drops when it names its plugin.
    expect(first.semver).toMatch(new RegExp(`^${base.replace(/\./g, "\\.")}-alpha\\.\\d{16}$`));
    expect(first.go).toBe(`v${first.semver}`);
    expect(first.python).toBe(first.semver.replace("-alpha.", "a"));
    build("two");
    const second = versionAt(root);
    for (const syntax of ["semver", "go", "python"] as const) expect(second[syntax], syntax).not.toBe(first[syntax]);
    // pip's order (PEP 440): before the release, and the Python spelling is what pip reads.
    const py = locatePython();
    if ("missing" in py) {
      if (process.env["PULUMI_SVC_REQUIRE_CLI"] === "1") throw new Error(`PULUMI_SVC_REQUIRE_CLI=1 but ${py.missing}`);
      console.log(`pip's order of the development version: not checked: ${py.missing}`);
    } else {
      const check = `from packaging.version import Version as V; a, b = V("${first.python}"), V("${base}"); assert a < b and str(a) == "${first.python}", a`;
      const r = spawnSync(path.join(py.venv, "bin", "python"), ["-c", check], { encoding: "utf8" });
      expect(r.status, r.stderr).toBe(0);
    }
    // Tagged, but with a change not committed: still a development build.
    git("tag", `v${base}`);
    expect(versionAt(root)).toMatchObject({ development: true, semver: second.semver });
    build("one");
    expect(versionAt(root)).toMatchObject({ development: false, semver: base, go: `v${base}`, python: base });
    fs.rmSync(root, { recursive: true, force: true });
  });
});
