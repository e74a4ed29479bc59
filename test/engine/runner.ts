// Scenario runners: the same scenario, run by the engine stand-in (always
// available) or, where the `pulumi` CLI is on PATH, by the real engine through the
// Automation API with a local file backend. Both return an EngineResult, so a test
// can assert the same things against either.

import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import type * as Automation from "@pulumi/pulumi/automation";
import { DEFAULT_TEST_PASSPHRASE } from "./crypter";
import { runEngine } from "./engine";
import type { Diagnostic, EngineOptions, EngineResult, PolicyViolation, Step, StepOp } from "./types";

export interface StackRunner {
  readonly name: "stand-in" | "automation";
  /** Why the runner cannot run here, or undefined when it can. */
  readonly unavailable: string | undefined;
  run(opts: EngineOptions): Promise<EngineResult>;
}

export const standInRunner: StackRunner = {
  name: "stand-in",
  unavailable: undefined,
  run: runEngine,
};

export function pulumiOnPath(): boolean {
  return spawnSync("which", ["pulumi"], { stdio: "ignore" }).status === 0;
}

export const PULUMI_MISSING_REASON =
  "pulumi CLI not on PATH: the Automation API suite needs it; the engine stand-in suite covers the same scenarios";

/** The real engine via @pulumi/pulumi/automation; state in a file backend next to opts.stateFile. */
export const automationRunner: StackRunner = {
  name: "automation",
  get unavailable() {
    return pulumiOnPath() ? undefined : PULUMI_MISSING_REASON;
  },
  run: runWithAutomation,
};

async function runWithAutomation(opts: EngineOptions): Promise<EngineResult> {
  // Loaded lazily: the automation module is large and only useful with the CLI present.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const auto = require("@pulumi/pulumi/automation") as typeof Automation;
  const backendDir = path.join(path.dirname(path.resolve(opts.stateFile ?? path.join(opts.cwd, ".pulumi-state", "x"))), "automation-backend");
  fs.mkdirSync(backendDir, { recursive: true });
  const passphrase = opts.passphrase ?? process.env["PULUMI_CONFIG_PASSPHRASE"] ?? DEFAULT_TEST_PASSPHRASE;
  const stack = await auto.LocalWorkspace.createOrSelectStack(
    { stackName: opts.stack, workDir: path.resolve(opts.cwd) },
    {
      envVars: {
        PULUMI_BACKEND_URL: `file://${backendDir}`,
        PULUMI_CONFIG_PASSPHRASE: passphrase,
        ...(opts.skipCheckpoints !== undefined ? { PULUMI_SKIP_CHECKPOINTS: String(opts.skipCheckpoints) } : {}),
        ...opts.env,
      },
    },
  );
  const config: Record<string, { value: string; secret?: boolean }> = {};
  for (const [k, v] of Object.entries(opts.config ?? {})) config[k] = { value: v };
  for (const [k, v] of Object.entries(opts.secrets ?? {})) config[k] = { value: v, secret: true };
  await stack.setAllConfig(config);

  const steps: Step[] = [];
  const diagnostics: Diagnostic[] = [];
  const policyViolations: PolicyViolation[] = [];
  const onEvent = (e: Automation.EngineEvent) => {
    const m = e.resourcePreEvent?.metadata;
    if (m && !m.type.startsWith("pulumi:providers:")) {
      const op = mapOp(m.op, m.diffs ?? []);
      if (op) steps.push({ urn: m.urn, type: m.type, name: m.urn.split("::").slice(3).join("::"), op, diffs: m.diffs ?? [] });
    }
    const failed = e.resOpFailedEvent?.metadata;
    if (failed) for (const s of steps) if (s.urn === failed.urn) s.failed = true;
    const d = e.diagnosticEvent;
    if (d) {
      const severity = d.severity === "info#err" ? "info" : d.severity;
      diagnostics.push({ severity, message: d.message.trim(), urn: d.urn, source: "engine" });
    }
    const p = e.policyEvent;
    if (p) {
      policyViolations.push({
        policyPack: `${p.policyPackName}@v${p.policyPackVersion}`,
        policyName: p.policyName,
        description: "",
        message: p.message,
        enforcementLevel: p.enforcementLevel === "mandatory" ? "mandatory" : "advisory",
        urn: p.resourceUrn,
      });
    }
  };
  const policy = opts.policyPack ? { policyPacks: [path.resolve(opts.policyPack)], policyPackConfigs: opts.policyConfig ? [opts.policyConfig] : undefined } : {};

  let ok = true;
  let outputs: Record<string, unknown> = {};
  try {
    if (opts.verb === "preview") await stack.preview({ onEvent, ...policy });
    else if (opts.verb === "up") {
      const r = await stack.up({ onEvent, ...policy });
      outputs = Object.fromEntries(Object.entries(r.outputs).map(([k, v]: [string, Automation.OutputValue]) => [k, v.secret ? "[secret]" : (v.value as unknown)]));
    } else if (opts.verb === "refresh") await stack.refresh({ onEvent });
    else await stack.destroy({ onEvent });
  } catch (e) {
    ok = false;
    diagnostics.push({ severity: "error", message: e instanceof Error ? e.message : String(e), source: "engine" });
  }
  const exported = (await stack.exportStack()) as { deployment?: { pending_operations?: { type: string; resource: { urn: string; type: string; id?: string } }[] } };
  const pendingOperations = (exported.deployment?.pending_operations ?? []).map((p) => ({
    urn: p.resource.urn,
    type: p.resource.type,
    op: p.type as "creating" | "updating" | "deleting" | "reading",
    id: p.resource.id,
  }));
  return {
    ok,
    verb: opts.verb,
    steps,
    outputs,
    diagnostics,
    pendingOperations,
    policyViolations,
    summary: "",
    stateFile: backendDir,
  };
}

function mapOp(op: string, diffs: string[]): StepOp | undefined {
  switch (op) {
    case "create":
    case "update":
    case "delete":
    case "same":
    case "read":
    case "replace":
      return op;
    case "refresh":
      return diffs.length ? "update" : "same";
    default:
      // create-replacement / delete-replaced are parts of the "replace" step.
      return undefined;
  }
}
