// runEngine: one verb (preview, up, refresh, destroy) against one stack, end to end:
// state file -> gRPC monitor -> the real program (cmd/run) -> the real
// dynamic-provider plugin (and, optionally, a policy pack) -> state file.

import { spawn } from "node:child_process";
import * as crypto from "node:crypto";
import * as path from "node:path";
import * as readline from "node:readline";
import { DEFAULT_TEST_PASSPHRASE } from "../support/crypter";
import { DEFAULT_PROVIDER_TYPE, Deployment, errorMessage, STACK_TYPE, type ProviderHandle } from "./deployment";
import { MonitorServer } from "./monitor";
import { DynamicProviderPlugin } from "./plugin";
import { PolicyPack } from "./policy";
import { readProject, type Project } from "./project";
import { StateFile, defaultStateFile, type ResourceState } from "../support/state";
import { trackChild } from "./children";
import { defaultParallel } from "./parallel";
import { formatSummary } from "./summary";
import { changedSteps, runUp } from "./up";
import type { Diagnostic, EngineOptions, EngineResult, PendingOperationReport } from "../support/run-types";
import { makeSecret, redact, type PropertyMap } from "../support/values";

export type { EngineOptions, EngineResult } from "../support/run-types";

export async function runEngine(opts: EngineOptions): Promise<EngineResult> {
  return opts.verb === "up" ? runUp(opts, deploy) : deploy(opts);
}

/** One verb, one deployment: what the CLI's engine does between loading and saving the stack. */
async function deploy(opts: EngineOptions): Promise<EngineResult> {
  const project = readProject(opts.cwd);
  const stack = opts.stack;
  const stateFile = defaultStateFile(project.root, stack, opts.stateFile);
  const passphrase = opts.passphrase ?? process.env["PULUMI_CONFIG_PASSPHRASE"] ?? DEFAULT_TEST_PASSPHRASE;
  const skipCheckpoints = opts.skipCheckpoints ?? /^(1|true)$/i.test(process.env["PULUMI_SKIP_CHECKPOINTS"] ?? "");
  const store = new StateFile(stateFile, passphrase);
  const diagnostics: Diagnostic[] = project.warnings.map((message) => ({ severity: "warning", message, source: "engine" }));
  const config = stackConfig(project.name, opts.config ?? {}, opts.secrets ?? {});
  const env: NodeJS.ProcessEnv = { ...process.env, ...opts.env };
  const parallel = opts.parallel ?? defaultParallel(env);
  // cmd/run would register ts-node over our loader if this were "true"; config
  // reaches the program and the plugin only the way the engine sends it.
  delete env["PULUMI_NODEJS_TYPESCRIPT"];
  delete env["PULUMI_CONFIG"];
  delete env["PULUMI_CONFIG_SECRET_KEYS"];

  const old = store.load();
  const pendingOperations: PendingOperationReport[] = (old.pending_operations ?? []).map((op) => ({
    urn: op.resource.urn,
    type: op.resource.type,
    op: op.type,
    id: op.resource.id,
  }));
  if (pendingOperations.length && opts.verb !== "refresh") diagnostics.push(pendingWarning(pendingOperations));

  const dryRun = opts.verb === "preview";
  const monitor = new MonitorServer({ deployment: () => deployment, diagnostics });
  const engineAddress = await monitor.start();
  let plugin: DynamicProviderPlugin | undefined;
  let policy: PolicyPack | undefined;
  let providerPromise: Promise<ProviderHandle> | undefined;

  // The default provider for package pulumi-nodejs: for up/preview configured with
  // the current stack config; for refresh/destroy with the inputs stored in state,
  // as the engine loads old providers from the snapshot.
  const oldProvider = old.resources.find((r) => r.type === DEFAULT_PROVIDER_TYPE && !r.delete);
  const providerInputs: PropertyMap = opts.verb === "up" || opts.verb === "preview" || !oldProvider ? config : oldProvider.inputs;
  const provider = (): Promise<ProviderHandle> =>
    (providerPromise ??= (async () => {
      plugin = await DynamicProviderPlugin.start({
        cwd: project.programDir,
        engineAddress,
        // No PULUMI_CONFIG here: the provider gets config only through Configure.
        env: { ...env, ...runtimeEnv(project, stack, opts) },
        onOutput: (message) => diagnostics.push({ severity: "info", message, source: "provider" }),
      });
      const urn = `urn:pulumi:${stack}::${project.name}::${DEFAULT_PROVIDER_TYPE}::default`;
      const checked = await plugin.checkConfig(urn, oldProvider?.inputs ?? {}, providerInputs);
      await plugin.configure(checked);
      const state: ResourceState = {
        urn,
        custom: true,
        id: oldProvider?.id ?? crypto.randomUUID(),
        type: DEFAULT_PROVIDER_TYPE,
        inputs: providerInputs,
        outputs: providerInputs,
        dependencies: [],
      };
      if (opts.verb === "up" || opts.verb === "preview") deployment.ensureProviderState(state);
      return { plugin, ref: `${urn}::${state.id}`, state };
    })());

  const deployment: Deployment = new Deployment({
    project: project.name,
    stack,
    dryRun,
    skipCheckpoints,
    old,
    provider,
    save: (d) => store.save(stackFqn(opts, project, stack), d),
    // The engine cancels the deployment on the first failed step, lets in-flight steps
    // finish and then closes the language host, which kills the program. Waiting for
    // the program instead is not only unfaithful: cmd/run's error reporting on a
    // rejected registration can take minutes and gigabytes (see README).
    onFailure: () => void deployment.settle().then(() => program?.kill()),
    parallel,
    clearPendingCreates: opts.clearPendingCreates,
  });
  const cancel = () => deployment.cancel();
  if (opts.signal?.aborted) cancel();
  opts.signal?.addEventListener("abort", cancel, { once: true });
  let program: ProgramProcess | undefined;

  let ok = true;
  try {
    if (opts.policyPack) {
      policy = await PolicyPack.start({
        dir: path.resolve(opts.policyPack),
        engineAddress,
        env: { ...env, ...runtimeEnv(project, stack, opts) },
        configFile: opts.policyConfig,
        diagnostics,
        stack: { name: stack, project: project.name, organization: opts.organization ?? "organization", dryRun },
      });
      deployment.setPolicy(policy.hooks());
    }
    if (opts.verb === "preview" || opts.verb === "up") {
      program = startProgram(project, stack, engineAddress, dryRun, config, env, opts, diagnostics);
      const code = await program.exited;
      await deployment.settle();
      if (code !== 0 || deployment.failed) {
        ok = false;
        // When a step failed we stopped the program ourselves; its error is the step's.
        if (!deployment.failed && !diagnostics.some((d) => d.severity === "error") && !deployment.cancelRequested) {
          diagnostics.push({ severity: "error", message: `the program exited with code ${code}`, source: "engine" });
        }
      }
      await deployment.finish(ok);
      // Stack policies run when no step failed, even after resource violations in preview.
      if (ok && policy) {
        const violations = await policy.analyzeStack(deployment.resources());
        deployment.violations.push(...violations);
        if (violations.some((v) => v.enforcementLevel === "mandatory")) deployment.sawPolicyError = true;
      }
      if (deployment.sawPolicyError) {
        ok = false;
        const names = [...new Set(deployment.violations.filter((v) => v.enforcementLevel === "mandatory").map((v) => v.policyName))];
        diagnostics.push({ severity: "error", message: `mandatory policy violations: ${names.join(", ")}`, source: "policy" });
      }
    } else if (opts.verb === "refresh") {
      await deployment.refreshAll();
    } else {
      await deployment.destroyAll();
    }
  } catch (e) {
    ok = false;
    diagnostics.push({ severity: "error", message: errorMessage(e), source: "engine" });
    // What was done is kept, even when checkpoints were skipped.
    deployment.persist(true);
  } finally {
    opts.signal?.removeEventListener("abort", cancel);
    program?.kill();
    await plugin?.close();
    await policy?.close();
    await monitor.stop();
  }

  diagnostics.push(...deployment.diagnostics);
  if (deployment.diagnostics.some((d) => d.severity === "error") || deployment.steps.some((s) => s.failed)) ok = false;
  const cancelled = deployment.cancelRequested;
  if (cancelled) {
    ok = false;
    diagnostics.push({ severity: "error", source: "engine", message: `the ${opts.verb} was cancelled: steps in flight finished, no new ones started, and the state was saved` });
  }
  const unexpected = opts.expectNoChanges && ok ? changedSteps(deployment.steps) : [];
  if (unexpected.length) {
    ok = false;
    diagnostics.push({ severity: "error", source: "engine", message: `no changes were expected but changes were ${dryRun ? "proposed" : "made"}: ${unexpected.join(", ")}` });
  }

  const stackState = deployment.resources().find((r) => r.type === STACK_TYPE && !r.delete);
  const outputs = opts.verb === "destroy" ? {} : (redact(stackState?.outputs ?? {}) as Record<string, unknown>);
  const result: EngineResult = {
    ok,
    verb: opts.verb,
    steps: deployment.steps,
    outputs,
    diagnostics: dedupe(diagnostics),
    pendingOperations,
    policyViolations: deployment.violations,
    summary: "",
    stateFile,
    exitCode: ok ? 0 : cancelled ? 8 : unexpected.length ? 7 : 1,
    cancelled: cancelled || undefined,
  };
  result.summary = formatSummary(result, stack);
  return result;
}

interface ProgramProcess {
  exited: Promise<number>;
  kill(): void;
}

/** Starts the program with cmd/run, as the Node.js language host does. */
function startProgram(
  project: Project,
  stack: string,
  engineAddress: string,
  dryRun: boolean,
  config: PropertyMap,
  env: NodeJS.ProcessEnv,
  opts: EngineOptions,
  diagnostics: Diagnostic[],
): ProgramProcess {
  const runEntry = require.resolve("@pulumi/pulumi/cmd/run/index.js");
  // TypeScript: a current loader through node arguments (Pulumi.yaml's runtime
  // option `nodeargs`, else tsx's CommonJS hook), never cmd/run's ts-node.
  const nodeArgs = project.nodeArgs.length ? project.nodeArgs : ["--require", require.resolve("tsx/cjs")];
  const args = [
    ...nodeArgs,
    runEntry,
    `--monitor=${engineAddress}`,
    `--engine=${engineAddress}`,
    `--project=${project.name}`,
    `--stack=${stack}`,
    `--organization=${opts.organization ?? "organization"}`,
    `--root-directory=${project.root}`,
    `--pwd=${project.programDir}`,
    `--parallel=${opts.parallel ?? defaultParallel(env)}`,
    ...(dryRun ? ["--dry-run"] : []),
    project.entryPoint,
  ];
  const secretKeys = Object.keys(config).filter((k) => typeof config[k] === "object");
  const child = trackChild(spawn(process.execPath, args, {
    cwd: project.programDir,
    env: {
      ...env,
      PULUMI_CONFIG: JSON.stringify(plainConfig(config)),
      PULUMI_CONFIG_SECRET_KEYS: JSON.stringify(secretKeys),
    },
    stdio: ["ignore", "pipe", "pipe"],
  }));
  const lines = (stream: NodeJS.ReadableStream) =>
    new Promise<void>((resolve) => {
      readline
        .createInterface({ input: stream })
        .on("line", (message) => diagnostics.push({ severity: "info", message, source: "program" }))
        .on("close", resolve);
    });
  const drained = Promise.all([lines(child.stdout!), lines(child.stderr!)]);
  const exited = new Promise<number>((resolve, reject) => {
    child.once("error", reject);
    child.once("exit", (code, signal) => {
      void drained.then(() => resolve(code ?? (signal ? 128 : 1)));
    });
  });
  return {
    exited,
    kill: () => {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    },
  };
}

/** Stack config: "ns:key" (a bare key gets the project namespace); secrets wrapped. */
function stackConfig(projectName: string, plain: Record<string, string>, secrets: Record<string, string>): PropertyMap {
  const out: PropertyMap = {};
  const key = (k: string) => (k.includes(":") ? k : `${projectName}:${k}`);
  for (const [k, v] of Object.entries(plain)) out[key(k)] = v;
  for (const [k, v] of Object.entries(secrets)) out[key(k)] = makeSecret(v);
  return out;
}

function plainConfig(config: PropertyMap): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(config)) {
    const x = typeof v === "object" && v !== null && "value" in v ? v["value"] : v;
    out[k] = typeof x === "string" ? x : JSON.stringify(x);
  }
  return out;
}

function runtimeEnv(project: Project, stack: string, opts: EngineOptions): Record<string, string> {
  return {
    PULUMI_NODEJS_PROJECT: project.name,
    PULUMI_NODEJS_STACK: stack,
    PULUMI_NODEJS_ORGANIZATION: opts.organization ?? "organization",
    PULUMI_NODEJS_ROOT_DIRECTORY: project.root,
  };
}

function stackFqn(opts: EngineOptions, project: Project, stack: string): string {
  return `${opts.organization ?? "organization"}/${project.name}/${stack}`;
}

function pendingWarning(ops: PendingOperationReport[]): Diagnostic {
  const lines = ops.map((o) => `  * ${o.urn}, interrupted while ${o.op}${o.id ? ` (id ${o.id})` : ""}`);
  return {
    severity: "warning",
    source: "engine",
    message: [
      `Attempting to deploy or update resources with ${ops.length} pending operation(s) from a previous deployment.`,
      ...lines,
      "These resources are in an unknown state because the previous run was interrupted while waiting for these operations to complete.",
      "Check the service to see whether they completed (an interrupted create may have made an object that is not in the state),",
      "then run `refresh` to update the state from the service and clear the pending operations.",
    ].join("\n"),
  };
}

function dedupe(diags: Diagnostic[]): Diagnostic[] {
  const seen = new Set<string>();
  return diags.filter((d) => {
    const k = `${d.severity}|${d.urn ?? ""}|${d.message}`;
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}
