/**
 * A Python program of native resources through the real CLI, our Python language host
 * (`pulumi-language-python`, scripts/pulumi-cli/python-host.ts) and the emulator, taking a
 * Python user's path from the released artifacts (README, "Python programs"): a virtualenv with the
 * wheel of `npm run release` pip-installed (test/release/artifacts.ts), and no plugin on PATH:
 * the CLI downloads it from the schema's pluginDownloadURL (the release host, a loopback
 * server here: test/release/host.ts). The lifecycle of lifecycle.ts, as the YAML program's
 * (create, a no-op, a refresh, an update, destroy, with the API calls counted, and the
 * secrets nowhere in plaintext), then a program's error and a bad runtime option.
 */
import { spawnSync } from "node:child_process";
import * as path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { pluginArchiveName } from "../../scripts/release";
import { releaseVersion } from "../../scripts/release-version";
import { releasePart } from "../release/artifacts";
import { PLATFORM, useReleaseHost } from "../release/host";
import { lastSeq, requestsSince, useEmulator } from "../support/emulator";
import { checkNativeLifecycle } from "./lifecycle";
import { PYTHON_MISSING, pythonProgram, requirePython } from "./python";
import { defaultProviderName, nativeStack, writesOf, type ProgramFiles } from "./support";

const emu = useEmulator();
const host = useReleaseHost();

const PROGRAM = `
import pulumi
import pulumi_svc as svc

config = pulumi.Config()
orders = svc.webhooks.Endpoint(
    "orders",
    url="https://hooks.example.com/orders",
    description=config.require("description"),
    max_attempts=5,
    custom_headers={"X-Team": "fulfilment", "Authorization": config.require_secret("token")},
)
inbox = svc.inboxes.Inbox("bin", label=config.require("label"))

pulumi.export("endpointId", orders.id)
pulumi.export("inboxId", inbox.id)
pulumi.export("lookedUpUrl", svc.webhooks.get_endpoint_output(id=orders.id).url)
`;

requirePython();
if (PYTHON_MISSING) console.log(`a Python program under the real CLI: skipped: ${PYTHON_MISSING}`);
describe.skipIf(PYTHON_MISSING !== undefined)("a Python program of native resources under the real CLI", () => {
  let venv = "";
  beforeAll(async () => {
    venv = await releasePart("venv");
  }, 300_000);
  const userStack = (name: string, main: string) => nativeStack(emu(), name, pythonProgram(main, venv), { env: host().env() });

  it("the virtualenv's pulumi_svc is the wheel's, at the build's version (PEP 440)", () => {
    const r = spawnSync(path.join(venv, "bin", "python"), ["-c", "import importlib.metadata as m, pulumi_svc; print(pulumi_svc.__file__); print(m.version('pulumi_svc'))"], { encoding: "utf8" });
    const [file, version] = r.stdout.trim().split("\n");
    expect(file?.startsWith(`${venv}/lib/`), r.stdout + r.stderr).toBe(true);
    expect(version).toBe(releaseVersion().python);
  });

  // Six runs of the CLI, each starting Python, under a shared machine's load: more than the default 120 s allows.
  it("creates with one POST each, a rerun and a refresh write nothing, a change is one PATCH each, destroy deletes both; the secrets stay secret", { timeout: 300_000 }, async () => {
    const s = await userStack("native-python", PROGRAM);
    const state = await checkNativeLifecycle(emu(), s, { lookedUpUrl: "https://hooks.example.com/orders" });
    // The plugin came from the release host, into each command's fresh PULUMI_HOME: also at refresh and
    // destroy, which run no program and fetch it at the version the state names.
    expect(host().served).toContain(`GET /${pluginArchiveName(PLATFORM)}`);
    // The SDK is at the build's version (its schema's), and asks the engine for the plugin at it, from the
    // schema's pluginDownloadURL (the engine names the default provider by both).
    expect(state.find((r) => r.type === "svc:webhooks:Endpoint")?.provider).toContain(`::${defaultProviderName(releaseVersion().semver)}_github_/api.github.com/pulumi-svc::`);
  });

  it("a program that raises: the run fails with the program's traceback, and writes nothing", async () => {
    const s = await userStack("native-python-raises", `import pulumi_svc as svc\n\nraise ValueError("no team named " + "platfrom")\n`);
    const since = await lastSeq(emu());
    const up = await s.run("up");
    expect(up.ok).toBe(false);
    expect(up.summary).toContain(`File "${s.dir}/__main__.py", line 3, in <module>`);
    expect(up.summary).toContain("ValueError: no team named platfrom");
    // From the program's frame on: the runner's and the SDK's frames above it are not the user's.
    expect(up.summary).not.toContain("pulumi-language-python-exec");
    expect(up.summary).not.toContain("site-packages/pulumi/runtime");
    // The runner has shown the error (exit 32, a bail): the host adds no "exited with code" of its own.
    expect(up.summary).not.toContain("non-zero exit code");
    expect(writesOf(await requestsSince(emu(), since))).toEqual([]);
  });

  it("a read function given an id that does not exist: the run fails with the provider's message, and no frame of the runner or the SDK", async () => {
    const s = await userStack("native-python-missing", `import pulumi\nimport pulumi_svc as svc\n\npulumi.export("url", svc.webhooks.get_endpoint_output(id="ep_nosuch").url)\n`);
    const preview = await s.run("preview");
    expect(preview.ok).toBe(false);
    expect(preview.summary).toContain("no endpoint ep_nosuch is visible to the API key in use");
    expect(preview.summary).not.toContain("frozen runpy");
    expect(preview.summary).not.toContain("site-packages/pulumi");
  });

  it("a virtualenv option that is not a virtual environment: the preview fails naming the option and the directory", async () => {
    const program = pythonProgram("import pulumi\n", venv);
    const missing: ProgramFiles = { ...program, project: "runtime:\n  name: python\n  options:\n    virtualenv: no-such-venv\n" };
    const s = await nativeStack(emu(), "native-python-novenv", missing);
    const preview = await s.run("preview");
    expect(preview.ok).toBe(false);
    expect(preview.summary).toContain("runtime option virtualenv is no-such-venv, but");
    expect(preview.summary).toContain(`${s.dir}/no-such-venv is not a virtual environment (no bin/python)`);
  });
});
