/**
 * What a Python user does beside running a program, under the real CLI and our Python
 * language host (scripts/pulumi-cli/python-host.ts, whose Go half answers as Pulumi's host
 * does: go-host/pygen): `pulumi import --out` writes the Python code of what it imported,
 * and that code, as the program, previews with no change; `pulumi package add` of the
 * schema generates the SDK into the project, adds it to requirements.txt and installs it
 * into the project's virtualenv; `pulumi install` makes that virtualenv again from
 * requirements.txt; `pulumi convert` of a YAML program writes a Python project. pip downloads from the index pip is configured with (PyPI, or
 * PIP_FIND_LINKS/PIP_INDEX_URL), as Pulumi's host does.
 */
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { releasePart } from "../release/artifacts";
import { PLATFORM, useReleaseHost } from "../release/host";
import { pluginArchiveName } from "../../scripts/release";
import { releaseVersion } from "../../scripts/release-version";
import { PYTHON_REQUIREMENTS } from "../../scripts/pulumi-cli/python";
import { call, lastSeq, requestsSince, useEmulator } from "../support/emulator";
import { prepareStack } from "../support/pulumi-cli";
import { convert } from "./convert";
import { PYTHON_MISSING, pythonProgram, requirePython } from "./python";
import { nativeStack, writesOf, type NativeStack, type ProgramFiles } from "./support";

const emu = useEmulator();
const host = useReleaseHost();

/** `pulumi ARGS` in the stack's directory, which must succeed: all it printed. */
async function pulumiOk(s: NativeStack, args: string[], opts?: Parameters<NativeStack["pulumi"]>[1]): Promise<string> {
  const run = await s.pulumi([...args, "--color", "never"], opts);
  const output = run.output + run.stderr;
  expect(run.code, output).toBe(0);
  return output;
}

/** The `pulumi` version the virtualenv of the suites pins (python-requirements.txt): the one the generated SDK is tested with. */
const PULUMI_PIN = /^pulumi==\S+$/m.exec(fs.readFileSync(PYTHON_REQUIREMENTS, "utf8"))![0];

requirePython();
if (PYTHON_MISSING) console.log(`pulumi import, package add and install in a Python project: skipped: ${PYTHON_MISSING}`);
describe.skipIf(PYTHON_MISSING !== undefined)("pulumi import, package add and install in a Python project", () => {
  // The virtualenv a user makes: the released wheel pip-installed (test/release/artifacts.ts).
  let venv = "";
  beforeAll(async () => {
    venv = await releasePart("venv");
  }, 300_000);

  it("`pulumi import --out` writes Python code that, as the program, previews with no change and writes nothing", { timeout: 240_000 }, async () => {
    // The plugin from the release host, at the wheel's version (the checkout's own says 0.x.y-alpha.0+dev, and the import's code generation asks for the wheel's).
    const s = await nativeStack(emu(), "native-python-import", pythonProgram("import pulumi\n", venv), { env: host().env() });
    // The stack exists before the import, with its config (prepareStack: `pulumi import` needs the stack, no update of it).
    prepareStack(s.options("up"));
    const inbox = await call(emu(), "POST", "/inboxes/v1/inboxes", { key: s.ws.inboxes.admin, body: { label: "archive" } });
    expect(inbox.status, inbox.text).toBe(201);
    const endpoint = await call(emu(), "POST", "/webhooks/v1/endpoints", { key: s.ws.webhooks.admin, body: { url: "https://hooks.example.com/orders", max_attempts: 7 } });
    expect(endpoint.status, endpoint.text).toBeLessThan(300);
    const file = path.join(s.dir, "import.json");
    fs.writeFileSync(
      file,
      JSON.stringify({
        resources: [
          { type: "svc:inboxes:Inbox", name: "archive", id: String(inbox.body["id"]) },
          { type: "svc:webhooks:Endpoint", name: "orders", id: String(endpoint.body["id"]) },
        ],
      }),
    );
    const out = path.join(s.dir, "imported.py");
    let since = await lastSeq(emu());
    const output = await pulumiOk(s, ["import", "--file", file, "--out", out, "--yes"]);
    expect(output).not.toContain("not supported");
    expect(writesOf(await requestsSince(emu(), since))).toEqual([]);

    const code = fs.readFileSync(out, "utf8");
    expect(code).toContain("import pulumi_svc as svc");
    expect(code).toMatch(/archive = svc\.inboxes\.Inbox\("archive",\s+label="archive"/);
    expect(code).toMatch(/orders = svc\.webhooks\.Endpoint\("orders",[^)]*url="https:\/\/hooks\.example\.com\/orders"/s);

    // The generated code is the program now: the preview shows no change, and nothing is written.
    fs.copyFileSync(out, path.join(s.dir, "__main__.py"));
    since = await lastSeq(emu());
    const preview = await s.run("preview");
    expect(preview.ok, preview.summary).toBe(true);
    expect(preview.steps.filter((st) => st.op !== "same"), preview.summary).toEqual([]);
    expect(preview.steps.filter((st) => st.type.startsWith("svc:")).map((st) => st.type).sort()).toEqual(["svc:inboxes:Inbox", "svc:webhooks:Endpoint"]);
    expect(writesOf(await requestsSince(emu(), since))).toEqual([]);
  });

  it("`pulumi import TYPE NAME ID` (README) with no plugin installed: the CLI installs it from the wheel's pluginDownloadURL, then imports", { timeout: 240_000 }, async () => {
    // No plugin on PATH: the CLI fetches it from the release host (the wheel's pulumi-plugin.json names the release URL).
    const s = await nativeStack(emu(), "native-python-import-fresh", pythonProgram("import pulumi\n", venv), { env: host().env() });
    prepareStack(s.options("up"));
    // A fresh PULUMI_HOME: no plugin installed (the stack's own home, test/support/pulumi-cli.ts).
    const plugins = path.join(`${s.options("up").stateFile!}.pulumi`, "home", "plugins");
    fs.rmSync(plugins, { recursive: true, force: true });
    const endpoint = await call(emu(), "POST", "/webhooks/v1/endpoints", { key: s.ws.webhooks.admin, body: { url: "https://hooks.example.com/fresh" } });
    expect(endpoint.status, endpoint.text).toBeLessThan(300);
    const served = host().served;
    served.length = 0;
    const output = await pulumiOk(s, ["import", "svc:webhooks:Endpoint", "orders", String(endpoint.body["id"]), "--yes"]);
    expect(output).toContain("svc:webhooks:Endpoint");
    expect(served).toEqual([`GET /${pluginArchiveName(PLATFORM)}`]);
    expect(fs.existsSync(path.join(plugins, `resource-svc-v${releaseVersion().semver}`, "pulumi-resource-svc"))).toBe(true);
  });

  it("`pulumi package add` generates the SDK, adds it to requirements.txt and installs it; `pulumi install` makes the virtualenv from requirements.txt", { timeout: 600_000 }, async () => {
    const project: ProgramFiles = {
      ...pythonProgram(`import pulumi\nimport pulumi_svc as svc\n\ninbox = svc.inboxes.Inbox("bin", label="first")\npulumi.export("label", inbox.label)\n`, venv),
      // The project's own virtualenv, which `pulumi install` makes (as `pulumi new` sets it up).
      project: "runtime:\n  name: python\n  options:\n    virtualenv: venv\n",
    };
    project.files["requirements.txt"] = `${PULUMI_PIN}\n`;
    // `pulumi install` also installs the plugins of the installed packages (the host lists them): from the release host.
    const s = await nativeStack(emu(), "native-python-add", project, { env: host().env() });
    const venvPython = path.join(s.dir, "venv", "bin", "python");

    // The build's schema, at its version (the one in its plugin archive): the plugin `pulumi install` then fetches is the release host's.
    const schema = path.join(s.dir, "svc-schema.json");
    fs.writeFileSync(schema, spawnSync("tar", ["-xzOf", path.join(host().archives, pluginArchiveName(PLATFORM)), "schema.json"], { encoding: "utf8" }).stdout);
    const added = await pulumiOk(s, ["package", "add", schema], { withStack: false });
    expect(added).toContain("You can import the SDK in your Python code with:");
    expect(added).toContain("import pulumi_svc as pulumi_svc");
    expect(fs.existsSync(path.join(s.dir, "sdks", "svc", "pulumi_svc", "__init__.py"))).toBe(true);
    expect(fs.readFileSync(path.join(s.dir, "requirements.txt"), "utf8")).toBe(`${PULUMI_PIN}\nsdks/svc\n`);
    expect(fs.existsSync(venvPython), added).toBe(true);

    // `pulumi install` from nothing: the virtualenv made again, with the SDK; the program previews its inbox.
    fs.rmSync(path.join(s.dir, "venv"), { recursive: true });
    const installed = await pulumiOk(s, ["install"], { withStack: false });
    expect(installed).toContain("Finished installing dependencies");
    const since = await lastSeq(emu());
    const preview = await s.run("preview");
    expect(preview.ok, preview.summary).toBe(true);
    expect(preview.steps.filter((st) => st.type.startsWith("svc:")).map((st) => `${st.op} ${st.type}`)).toEqual(["create svc:inboxes:Inbox"]);
    expect(writesOf(await requestsSince(emu(), since))).toEqual([]);

    // A requirement pip cannot install: `pulumi install` ends (it hung before the host ended the call with its
    // error) and fails with pip's error; the host's own failure line is the call's error, not more output.
    fs.appendFileSync(path.join(s.dir, "requirements.txt"), "./no-such-sdk\n");
    const failed = await s.pulumi(["install", "--color", "never"], { withStack: false });
    expect(failed.code).not.toBe(0);
    const failure = failed.output + failed.stderr;
    expect(failure).toMatch(/error: installing dependencies: installing dependencies via '.*pip install -r requirements\.txt': exit status 1: ERROR: Invalid requirement: '.\/no-such-sdk'/);
    expect(failure).not.toContain("pulumi-svc-python-gen");
  });

  it("`pulumi convert --language python` of a YAML program writes a project whose program declares the resources with the SDK", async () => {
    const s = await nativeStack(emu(), "native-python-convert", pythonProgram("import pulumi\n", venv));
    const { out, output } = await convert(s, "python");
    expect(fs.readFileSync(path.join(out, "__main__.py"), "utf8")).toMatch(/import pulumi_svc as svc\n\nbin = svc\.inboxes\.Inbox\("bin", label="first"\)/);
    expect(fs.readFileSync(path.join(out, "Pulumi.yaml"), "utf8")).toContain("name: python");
    expect(fs.existsSync(path.join(out, "requirements.txt"))).toBe(true);
    // No local SDK was linked: no instructions naming no import.
    expect(output).not.toContain("You can import");
  });

  it("a call the host does not serve says so in one line naming the command", async () => {
    const s = await nativeStack(emu(), "native-python-pack", pythonProgram("import pulumi\n", venv));
    const run = await s.pulumi(["package", "pack-sdk", "python", path.join(s.dir, "nosuchsdk"), "--color", "never"], { withStack: false });
    expect(run.code).not.toBe(0);
    expect(run.output + run.stderr).toContain("`pulumi package pack-sdk` is not supported by pulumi-svc's Python language host");
  });
});
