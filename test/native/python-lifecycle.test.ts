/**
 * A Python program of native resources through the real CLI, our Python language host
 * (`pulumi-language-python`, scripts/pulumi-cli/python-host.ts) and `pulumi-resource-svc`
 * on PATH, against the emulator: the `pulumi_svc` SDK that `pulumi package gen-sdk
 * --language python` generated from schema.json, installed with `pulumi` from PyPI into the
 * virtualenv `npm run pulumi:install` built. The same lifecycle as the YAML program's
 * (yaml-lifecycle.test.ts): create, a no-op, a refresh, an update, destroy, with the API
 * calls counted from the emulator's request log, and the custom header's secret value and
 * the signing secret nowhere in plaintext.
 */
import * as fs from "node:fs";
import { describe, expect, it } from "vitest";
import { lastSeq, requestsSince, useEmulator } from "../support/emulator";
import { loadCliState } from "../support/pulumi-cli";
import { PYTHON_MISSING, nativeStack, pythonProgram, requirePython, writesOf, type ProgramFiles } from "./support";

const emu = useEmulator();

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
`;

const TOKEN = "Bearer tok-4242-native-python-secret";

requirePython();
if (PYTHON_MISSING) console.log(`a Python program under the real CLI: skipped: ${PYTHON_MISSING}`);
describe.skipIf(PYTHON_MISSING !== undefined)("a Python program of native resources under the real CLI", () => {
  // Six runs of the CLI, each starting Python, under a shared machine's load: more than the default 120 s allows.
  it("creates with one POST each, a rerun and a refresh write nothing, a change is one PATCH each, destroy deletes both; the secrets stay secret", { timeout: 300_000 }, async () => {
    const s = await nativeStack(emu(), "native-python", pythonProgram(PROGRAM));
    const secrets = { token: TOKEN };
    let since = await lastSeq(emu());

    const up = await s.run("up", { description: "v1", label: "first" }, secrets);
    expect(up.ok, up.summary).toBe(true);
    expect(writesOf(await requestsSince(emu(), since)).sort()).toEqual(["POST /inboxes/v1/inboxes", "POST /webhooks/v1/endpoints"]);
    const { endpointId, inboxId } = up.outputs as { endpointId: string; inboxId: string };
    expect(endpointId).toMatch(/^ep_/);
    // The SDK is the package's version (schema.json's), and asks the engine for the plugin at it.
    const provider = loadCliState(s.options("up")).find((r) => r.type === "svc:webhooks:Endpoint")?.provider;
    expect(provider).toContain("::default_0_1_0::");

    since = await lastSeq(emu());
    const again = await s.run("up", { description: "v1", label: "first" }, secrets);
    expect(again.ok, again.summary).toBe(true);
    expect(again.steps.filter((st) => st.op !== "same")).toEqual([]);
    expect(writesOf(await requestsSince(emu(), since))).toEqual([]);

    // A refresh finds nothing moved, and the up after it writes nothing.
    since = await lastSeq(emu());
    const refreshed = await s.run("refresh", { description: "v1", label: "first" }, secrets);
    expect(refreshed.ok, refreshed.summary).toBe(true);
    expect(refreshed.steps.filter((st) => st.op !== "same")).toEqual([]);
    const afterRefresh = await s.run("up", { description: "v1", label: "first" }, secrets);
    expect(afterRefresh.steps.filter((st) => st.op !== "same"), afterRefresh.summary).toEqual([]);
    expect(writesOf(await requestsSince(emu(), since))).toEqual([]);

    since = await lastSeq(emu());
    const changed = await s.run("up", { description: "v2", label: "second" }, secrets);
    expect(changed.ok, changed.summary).toBe(true);
    expect(writesOf(await requestsSince(emu(), since)).sort()).toEqual([`PATCH /inboxes/v1/inboxes/${inboxId}`, `PATCH /webhooks/v1/endpoints/${endpointId}`]);
    const state = loadCliState(s.options("up"));
    expect(state.find((r) => r.type === "svc:webhooks:Endpoint")?.outputs).toMatchObject({ description: "v2", customHeaders: { Authorization: TOKEN } });
    // Decrypted above; as stored and as shown, never in plaintext.
    const stored = fs.readFileSync(changed.stateFile, "utf8");
    expect(stored).not.toContain("tok-4242");
    const signingSecret = state.find((r) => r.type === "svc:webhooks:Endpoint")?.outputs["signingSecret"];
    expect(signingSecret).toMatch(/^whsec_/);
    expect(stored).not.toContain(String(signingSecret));
    expect(up.summary + again.summary + refreshed.summary + changed.summary).not.toContain("tok-4242");

    since = await lastSeq(emu());
    const down = await s.run("destroy", { description: "v2", label: "second" }, secrets);
    expect(down.ok, down.summary).toBe(true);
    expect(writesOf(await requestsSince(emu(), since)).sort()).toEqual([`DELETE /inboxes/v1/inboxes/${inboxId}`, `DELETE /webhooks/v1/endpoints/${endpointId}`]);
    expect(loadCliState(s.options("destroy")).filter((r) => r.type.startsWith("svc:"))).toEqual([]);
  });

  it("a program that raises: the run fails with the program's traceback, and writes nothing", async () => {
    const s = await nativeStack(emu(), "native-python-raises", pythonProgram(`import pulumi_svc as svc\n\nraise ValueError("no team named " + "platfrom")\n`));
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

  it("a virtualenv option that is not a virtual environment: the preview fails naming the option and the directory", async () => {
    const program = pythonProgram("import pulumi\n");
    const missing: ProgramFiles = { ...program, project: "runtime:\n  name: python\n  options:\n    virtualenv: no-such-venv\n" };
    const s = await nativeStack(emu(), "native-python-novenv", missing);
    const preview = await s.run("preview");
    expect(preview.ok).toBe(false);
    expect(preview.summary).toContain("runtime option virtualenv is no-such-venv, but");
    expect(preview.summary).toContain(`${s.dir}/no-such-venv is not a virtual environment (no bin/python)`);
  });
});
