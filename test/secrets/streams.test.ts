/**
 * The streams users keep carry no write-only secret: a program with a secret custom
 * header, a declared endpoint signing secret and a source's secret runs under the real
 * CLI, and none of the three values is in `pulumi up --json`, `preview --json`,
 * `up -v=9 --logtostderr --debug`, `refresh --json`, `preview --diff --json`,
 * `stack export`, or the outputs of `stack export --show-secrets` (the inputs hold them:
 * the program declared them). For the dynamic front end (a TypeScript program) and the
 * native plugin (a YAML program). Before the outputs sealed them (provider/engine/sealed.ts)
 * the outputs held them, so whatever shows outputs did; with CLI v3.274.1 the live streams
 * above did not (the SDK logs each RegisterResource answer as `[object Object]`): the
 * outputs check is the one that failed then.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { EngineOptions } from "../support/run-types";
import { NATIVE_MISSING, nativeStack } from "../native/support";
import type { Workspace } from "../provider/support";
import { describeWithCli } from "../support/cli-suite";
import { emulatorStack } from "../support/stack-config";
import { control, useEmulator } from "../support/emulator";
import { prepareStack, pulumiAsync, stackArgs } from "../support/pulumi-cli";

const SECRETS = {
  headerValue: "Bearer stream-header-value-4c1f",
  signingSecret: "whsec_stream_declared_signing_secret_8e2a",
  sourceSecret: "stream-source-secret-value-b7d0",
};

/** The runs whose output a pipeline keeps, in order (the first creates). */
const RUNS = [
  ["up", "--json", "--yes"],
  ["preview", "--json"],
  ["up", "--yes", "-v=9", "--logtostderr", "--debug"],
  ["refresh", "--json", "--yes"],
  ["preview", "--diff", "--json"],
];

type Pulumi = (args: string[], withConfig?: boolean) => Promise<{ code: number; output: string; stderr: string }>;

/** Every run's output, and both exports (the outputs only, decrypted). */
async function streams(pulumi: Pulumi): Promise<Record<string, string>> {
  const seen: Record<string, string> = {};
  for (const args of RUNS) {
    const r = await pulumi(args);
    expect(r.code, `${args.join(" ")}: ${r.output}${r.stderr}`).toBe(0);
    seen[args.join(" ")] = r.output + r.stderr;
  }
  // Refresh found nothing moved: the preview after it shows no change.
  expect(Object.keys((JSON.parse(seen["preview --diff --json"]!) as { changeSummary: object }).changeSummary)).toEqual(["same"]);
  seen["stack export"] = (await pulumi(["stack", "export"], false)).output;
  const decrypted = JSON.parse((await pulumi(["stack", "export", "--show-secrets"], false)).output) as { deployment: { resources: { type: string; outputs?: unknown }[] } };
  // The nodejs default provider's outputs are the stack's config, secrets included (Pulumi's own): not this provider's outputs.
  seen["stack export --show-secrets (outputs)"] = JSON.stringify(decrypted.deployment.resources.filter((r) => !r.type.startsWith("pulumi:providers:")).map((r) => r.outputs));
  return seen;
}

function expectNone(seen: Record<string, string>): void {
  for (const [run, text] of Object.entries(seen)) for (const [name, value] of Object.entries(SECRETS)) expect(text.includes(value), `${name} in ${run}`).toBe(false);
  // Not vacuous: the seals are there.
  expect(seen["stack export --show-secrets (outputs)"]).toContain("hmac-sha256:");
}

const emu = useEmulator();

describeWithCli("write-only secrets stay out of the kept streams", () => {
  let ws: Workspace;
  let dir: string;
  beforeAll(async () => {
    ws = await control<Workspace>(emu(), "POST", "/workspaces", { plan: "enterprise" });
    dir = mkdtempSync(join(tmpdir(), "svc-secret-streams-"));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("the dynamic front end (a TypeScript program)", async () => {
    const opts: EngineOptions = {
      verb: "preview",
      cwd: join(__dirname, "fixtures", "streams"),
      stack: "streams",
      stateFile: join(dir, "dynamic.json"),
      ...emulatorStack(emu(), { webhooks: ws.webhooks.admin }, { secrets: Object.fromEntries(Object.entries(SECRETS).map(([k, v]) => [`svc-secret-streams:${k}`, v])), env: { SVC_SKIP_REMOTE_CHECKS: "" } }),
    };
    // The stack and its config, with no run of its own: the first of RUNS creates.
    prepareStack(opts);
    const seen = await streams((args, withConfig = true) => pulumiAsync(opts, [...args, ...(withConfig ? stackArgs(opts) : ["--stack", opts.stack])]));
    expectNone(seen);
    // Not vacuous: the SDK's debug log of the answers is in the verbose run.
    expect(seen["up --yes -v=9 --logtostderr --debug"]).toContain("RegisterResource RPC finished");
  });

  it.skipIf(NATIVE_MISSING !== undefined)("the native plugin (a YAML program)", async () => {
    const program = `
config:
  headerValue: { type: string, secret: true }
  signingSecret: { type: string, secret: true }
  sourceSecret: { type: string, secret: true }
resources:
  hook:
    type: svc:webhooks:Endpoint
    properties:
      url: https://streams.example.com/in
      secret: \${signingSecret}
      customHeaders:
        Authorization: \${headerValue}
  payments:
    type: svc:webhooks:Source
    properties:
      provider: payments
      secret: \${sourceSecret}
`;
    const s = await nativeStack(emu(), "streams-yaml", program, { ws });
    // As above: the stack and its config, with no run of its own.
    prepareStack(s.options("preview", {}, SECRETS));
    expectNone(await streams((args, withConfig = true) => s.pulumi(args, { withStack: withConfig ? true : "no-config" })));
  });
});
