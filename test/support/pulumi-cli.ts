/**
 * The real Pulumi CLI, run as a user runs it, behind the same call as the engine stand-in
 * (`runEngine(EngineOptions): EngineResult`), so a suite runs one scenario through either.
 *
 * Each state file path names a stack of its own: beside it, a file backend
 * (`PULUMI_BACKEND_URL=file://…`), a `PULUMI_HOME` and the stack's config file
 * (`--config-file`, so nothing is written into the program's directory, which tests
 * share). After each run the backend's checkpoint file is copied to the state file path
 * itself (secrets encrypted, as the CLI stores it), and `loadCliState` reads the state back
 * decrypted through `pulumi stack export --show-secrets`.
 *
 * What the run did comes from the CLI's own event log (`--event-log`, the stream the
 * Automation API reads), its exit code and its output; nothing is inferred from the
 * stand-in.
 */
import { spawn, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import * as fs from "node:fs";
import * as path from "node:path";
import type { EngineEvent, StepEventMetadata, StepEventStateMetadata } from "@pulumi/pulumi/automation";
import { locatePulumiCli } from "../../scripts/pulumi-cli/locate";
import { countCliCommand } from "./cli-commands";
import { DEFAULT_TEST_PASSPHRASE } from "./crypter";
import { defaultStateFile, type Checkpoint, type Deployment, type ResourceState } from "./state";
import type { Diagnostic, EngineOptions, EngineResult, PolicyViolation, Step, StepOp } from "./run-types";
import { SECRET_SIG, SIG_KEY, UNKNOWN, isObject, isSecret, unwrapSecrets, type Json } from "./values";

const located = locatePulumiCli();

/** Why the real CLI cannot run here (a skip's reason), or undefined. CI sets PULUMI_SVC_REQUIRE_CLI=1: missing is then a failure. */
export const PULUMI_CLI_MISSING: string | undefined = "missing" in located ? located.missing : undefined;
if (PULUMI_CLI_MISSING && process.env["PULUMI_SVC_REQUIRE_CLI"] === "1") throw new Error(`PULUMI_SVC_REQUIRE_CLI=1 but ${PULUMI_CLI_MISSING}`);

/** The directory holding `pulumi`, the language host and the dynamic-provider shim. */
export function cliBinDir(): string {
  if ("missing" in located) throw new Error(located.missing);
  return located.binDir;
}

interface StackPaths {
  home: string;
  backend: string;
  configFile: string;
  eventLog: string;
}

export function stackPaths(stateFile: string): StackPaths {
  const root = `${path.resolve(stateFile)}.pulumi`;
  return { home: path.join(root, "home"), backend: path.join(root, "backend"), configFile: path.join(root, "config.yaml"), eventLog: path.join(root, "events.jsonl") };
}

const stateFileOf = (opts: Pick<EngineOptions, "cwd" | "stack" | "stateFile">) => defaultStateFile(opts.cwd, opts.stack, opts.stateFile);

/** The environment every CLI command of this stack gets: offline, its own home and backend. */
export function cliEnv(opts: Pick<EngineOptions, "cwd" | "stack" | "stateFile" | "passphrase" | "env" | "skipCheckpoints">): NodeJS.ProcessEnv {
  const p = stackPaths(stateFileOf(opts));
  return {
    ...process.env,
    PATH: `${cliBinDir()}${path.delimiter}${process.env["PATH"] ?? ""}`,
    PULUMI_HOME: p.home,
    PULUMI_BACKEND_URL: `file://${p.backend}`,
    PULUMI_CONFIG_PASSPHRASE: opts.passphrase ?? process.env["PULUMI_CONFIG_PASSPHRASE"] ?? DEFAULT_TEST_PASSPHRASE,
    PULUMI_SKIP_UPDATE_CHECK: "true",
    PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION: "true",
    PULUMI_SKIP_CONFIRMATIONS: "true",
    // Enables --event-log (the Automation API sets it for the same reason).
    PULUMI_DEBUG_COMMANDS: "true",
    ...(opts.skipCheckpoints !== undefined ? { PULUMI_SKIP_CHECKPOINTS: String(opts.skipCheckpoints) } : {}),
    ...opts.env,
  };
}

/** The directory of this stack's backend: its state, as the CLI stores it, and the state's backups and history. */
export const backendDir = (opts: Pick<EngineOptions, "cwd" | "stack" | "stateFile">) => stackPaths(stateFileOf(opts)).backend;

/** The arguments that name this stack and its config file, for a command runCli does not run (e.g. `pulumi import`); the stack must exist (a run or prepareStack made it). */
export function stackArgs(opts: Pick<EngineOptions, "cwd" | "stack" | "stateFile">): string[] {
  return ["--stack", opts.stack, "--config-file", stackPaths(stateFileOf(opts)).configFile];
}

/** `pulumi ARGS` for this stack, synchronously: for setup and export, not for runs under test. */
export function pulumiSync(opts: Parameters<typeof cliEnv>[0], args: string[], cwd = opts.cwd): string {
  countCliCommand(args);
  const r = spawnSync(path.join(cliBinDir(), "pulumi"), [...args, "--non-interactive"], { cwd, env: cliEnv(opts), encoding: "utf8", maxBuffer: 256 * 1024 * 1024 });
  if (r.status !== 0) throw new Error(`pulumi ${args.join(" ")} exited ${r.status}: ${r.stderr || r.stdout}`);
  return r.stdout;
}

/** `pulumi ARGS` for this stack, not spawnSync: the emulator answering the CLI's plugins runs in this process. Its exit code, stdout and stderr. */
export function pulumiAsync(opts: Parameters<typeof cliEnv>[0], args: string[]): Promise<{ code: number; output: string; stderr: string }> {
  countCliCommand(args);
  const child = spawn(path.join(cliBinDir(), "pulumi"), [...args, "--non-interactive"], { cwd: opts.cwd, env: cliEnv(opts), stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  let stderr = "";
  child.stdout.on("data", (b: Buffer) => (output += b.toString()));
  child.stderr.on("data", (b: Buffer) => (stderr += b.toString()));
  return new Promise((resolve) => child.once("close", (code) => resolve({ code: code ?? 1, output, stderr })));
}

/**
 * Creates the stack on first use and writes its config. `stack init` writes the passphrase's
 * salt to Pulumi.<stack>.yaml beside the Pulumi.yaml it runs by, so it runs by a copy of
 * Pulumi.yaml in the stack's own directory; later commands read that file with --config-file.
 */
export function prepareStack(opts: EngineOptions): void {
  const p = stackPaths(stateFileOf(opts));
  fs.mkdirSync(p.backend, { recursive: true });
  const initDir = path.join(path.dirname(p.configFile), "project");
  if (!fs.existsSync(p.configFile)) {
    fs.mkdirSync(initDir, { recursive: true });
    fs.copyFileSync(path.join(opts.cwd, "Pulumi.yaml"), path.join(initDir, "Pulumi.yaml"));
    pulumiSync(opts, ["stack", "init", opts.stack], initDir);
    fs.renameSync(path.join(initDir, `Pulumi.${opts.stack}.yaml`), p.configFile);
  }
  // The config is what this run gives, as the stand-in takes it: the file keeps only its salt.
  // Each `pulumi` command that encrypts derives the passphrase's key (about half a second), so
  // the file is rewritten only when this run's config differs from the last one written.
  const given = createHash("sha256").update(JSON.stringify([opts.config ?? {}, opts.secrets ?? {}])).digest("hex");
  const givenFile = `${p.configFile}.given`;
  if (fs.existsSync(givenFile) && fs.readFileSync(givenFile, "utf8") === given) return;
  const salt = /^encryptionsalt: .*$/m.exec(fs.readFileSync(p.configFile, "utf8"))?.[0];
  fs.writeFileSync(p.configFile, salt ? `${salt}\n` : "");
  const pairs: string[] = [];
  for (const [k, v] of Object.entries(opts.config ?? {})) pairs.push("--plaintext", `${k}=${v}`);
  for (const [k, v] of Object.entries(opts.secrets ?? {})) pairs.push("--secret", `${k}=${v}`);
  if (pairs.length) pulumiSync(opts, ["config", "set-all", "--stack", opts.stack, "--config-file", p.configFile, ...pairs]);
  fs.writeFileSync(givenFile, given);
}

const EXIT_CODES = new Set([0, 1, 7, 8]);

/** What only the real CLI's runs take, beside the stand-in's options. */
export interface CliOptions extends EngineOptions {
  /**
   * What an abort of `signal` sends to the `pulumi` process: SIGINT (the default: the first
   * Ctrl-C, which cancels) or SIGKILL (killed outright, as a CI runner ends a step that
   * ignored its SIGINT and SIGTERM). Only `pulumi` gets it: the CLI starts each plugin in a
   * process group of its own, so what they do afterwards is theirs (see `stackProcesses`).
   */
  abortWith?: "SIGINT" | "SIGKILL";
  /** `--target`: the URNs the run acts on alone (the others are left as the state has them). */
  targets?: string[];
}

/** One `pulumi preview|up|refresh|destroy` of the stack, as the stand-in's runEngine. */
export async function runCli(opts: CliOptions): Promise<EngineResult> {
  prepareStack(opts);
  const stateFile = stateFileOf(opts);
  const p = stackPaths(stateFile);
  fs.rmSync(p.eventLog, { force: true });
  const args = [opts.verb, "--stack", opts.stack, "--config-file", p.configFile, "--event-log", p.eventLog, "--non-interactive", "--color", "never"];
  if (opts.verb !== "preview") args.push("--yes");
  if (opts.parallel !== undefined) args.push("--parallel", String(opts.parallel));
  for (const urn of opts.targets ?? []) args.push("--target", urn);
  // up, refresh and destroy preview first unless told not to (the stand-in's refresh and destroy never do).
  if (opts.verb !== "preview" && opts.skipPreview) args.push("--skip-preview");
  if (opts.verb === "up" && opts.refresh) args.push("--refresh");
  if (opts.expectNoChanges && opts.verb !== "destroy") args.push("--expect-no-changes");
  if (opts.verb === "refresh" && opts.clearPendingCreates) args.push("--clear-pending-creates");
  if (opts.policyPack && (opts.verb === "preview" || opts.verb === "up")) {
    args.push("--policy-pack", path.resolve(opts.policyPack));
    if (opts.policyConfig) args.push("--policy-pack-config", path.resolve(opts.policyConfig));
  }
  countCliCommand(args);
  const child = spawn(path.join(cliBinDir(), "pulumi"), args, { cwd: opts.cwd, env: cliEnv(opts), stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  child.stdout.on("data", (b: Buffer) => (output += b.toString()));
  child.stderr.on("data", (b: Buffer) => (output += b.toString()));
  const onAbort = () => child.kill(opts.abortWith ?? "SIGINT");
  opts.signal?.addEventListener("abort", onAbort, { once: true });
  const code = await new Promise<number>((resolve) => child.once("close", (c) => resolve(c ?? 1)));
  opts.signal?.removeEventListener("abort", onAbort);

  const events = readEvents(p.eventLog);
  // `up` previews first: the event log holds the preview's events up to its summary, then the update's.
  const previewSummary = opts.verb === "up" ? events.findIndex((e) => (e.summaryEvent as { isPreview?: boolean } | undefined)?.isPreview) : -1;
  const previewEnd = previewSummary + 1;
  const checkpoint = copyCheckpoint(stateFile, opts.stack);
  const result = resultOf(opts, events.slice(previewEnd), code, output, stateFile, checkpoint);
  if (previewEnd) result.preview = resultOf({ ...opts, verb: "preview" }, events.slice(0, previewEnd), 0, "", stateFile, checkpoint);
  return result;
}

function readEvents(file: string): EngineEvent[] {
  if (!fs.existsSync(file)) return [];
  return fs
    .readFileSync(file, "utf8")
    .split("\n")
    .filter((l) => l.trim())
    .flatMap((l) => {
      try {
        return [JSON.parse(l) as EngineEvent];
      } catch {
        return []; // the last line of a killed CLI, cut short
      }
    });
}

/** The stack's checkpoint file in its backend, once a run or an import wrote it. */
function checkpointFile(stateFile: string, stack: string): string | undefined {
  const stacks = path.join(stackPaths(stateFile).backend, ".pulumi", "stacks");
  return fs.existsSync(stacks) ? fs.readdirSync(stacks).map((project) => path.join(stacks, project, `${stack}.json`)).find((f) => fs.existsSync(f)) : undefined;
}

/** The backend's checkpoint file, copied to the state file path as the CLI stored it (secrets encrypted). */
function copyCheckpoint(stateFile: string, stack: string): Checkpoint | undefined {
  const file = checkpointFile(stateFile, stack);
  if (!file) return undefined;
  fs.mkdirSync(path.dirname(stateFile), { recursive: true });
  fs.copyFileSync(file, stateFile);
  return JSON.parse(fs.readFileSync(stateFile, "utf8")) as Checkpoint;
}

function stepOp(op: string): StepOp | undefined {
  switch (op) {
    case "create":
    case "update":
    case "delete":
    case "same":
    case "read":
    case "replace":
      return op;
    default:
      // create-replacement / delete-replaced are parts of the "replace" step; refresh is mapped by resultOf.
      return undefined;
  }
}

function resultOf(opts: EngineOptions, events: EngineEvent[], code: number, output: string, stateFile: string, checkpoint: Checkpoint | undefined): EngineResult {
  const steps: Step[] = [];
  const byUrn = new Map<string, Step>();
  const firstHalf = new Map<string, "create-replacement" | "delete-replaced">();
  const diagnostics: Diagnostic[] = [];
  const policyViolations: PolicyViolation[] = [];
  const visible = (m: StepEventMetadata) => !m.type.startsWith("pulumi:providers:");
  const name = (urn: string) => urn.split("::").slice(3).join("::");
  const add = (m: StepEventMetadata, op: StepOp, diffs: string[]) => {
    const step: Step = { urn: m.urn, type: m.type, name: name(m.urn), op, diffs };
    if (op === "replace") {
      step.replaces = m.keys ?? [];
      step.deleteBeforeReplace = firstHalf.get(m.urn) === "delete-replaced";
    }
    steps.push(step);
    byUrn.set(m.urn, step);
  };
  let cancelled = false;
  let outputs: Record<string, unknown> = {};
  for (const e of events) {
    const pre = e.resourcePreEvent?.metadata;
    if (pre && visible(pre)) {
      if ((pre.op === "create-replacement" || pre.op === "delete-replaced") && !firstHalf.has(pre.urn)) firstHalf.set(pre.urn, pre.op);
      const op = stepOp(pre.op);
      // The dynamic provider's Diff names no keys; the CLI then shows the inputs that moved.
      const shown = pre.diffs?.length ? pre.diffs : (op === "update" || op === "replace") && pre.old && pre.new ? movedKeys(pre.old, pre.new) : [];
      if (op && opts.verb !== "refresh") add(pre, op, shown);
    }
    const out = e.resOutputsEvent?.metadata;
    if (out?.type === "pulumi:pulumi:Stack" && out.new) outputs = shownOutputs(out.new.outputs ?? {});
    if (out && visible(out) && opts.verb === "refresh") {
      // A refresh step's outcome: gone (no new state), drift (the engine's diff), or the same.
      // The engine decided it (through the provider's Diff); its event names no keys.
      const diffs = out.new && out.old ? movedKeys(out.old, out.new) : [];
      add(out, out.op === "delete" || !out.new ? "delete" : out.op === "update" ? "update" : "same", out.op === "update" ? diffs : []);
    }
    const failed = e.resOpFailedEvent?.metadata;
    if (failed) {
      const s = byUrn.get(failed.urn);
      if (s) s.failed = true;
    }
    const d = e.diagnosticEvent;
    if (d && d.severity !== ("debug" as string)) {
      diagnostics.push({ severity: d.severity === "info#err" ? "info" : d.severity, message: d.message.trim(), ...(d.urn ? { urn: d.urn } : {}), source: "engine" });
    }
    const pe = e.policyEvent;
    if (pe) {
      policyViolations.push({
        policyPack: `${pe.policyPackName}@v${pe.policyPackVersion}`,
        policyName: pe.policyName,
        description: "",
        // The engine's text: the policy server's message (its description, then the violation) and a newline.
        message: pe.message.replace(/\n$/, ""),
        enforcementLevel: pe.enforcementLevel === "mandatory" ? "mandatory" : "advisory",
        ...(pe.resourceUrn ? { urn: pe.resourceUrn } : {}),
      });
    }
    if (e.cancelEvent && code === 8) cancelled = true;
  }
  if (code !== 0 && !diagnostics.some((d) => d.severity === "error")) diagnostics.push({ severity: "error", message: output.trim().split("\n").slice(-20).join("\n"), source: "engine" });
  const pendingOperations = (checkpoint?.checkpoint.latest.pending_operations ?? []).map((po) => ({ urn: po.resource.urn, type: po.resource.type, op: po.type, ...(po.resource.id ? { id: po.resource.id } : {}) }));
  return {
    ok: code === 0,
    verb: opts.verb,
    steps,
    outputs,
    diagnostics,
    pendingOperations,
    policyViolations,
    summary: output,
    stateFile,
    ...(EXIT_CODES.has(code) ? { exitCode: code as 0 | 1 | 7 | 8 } : {}),
    ...(cancelled || code === 8 ? { cancelled: true } : {}),
  };
}

/** The stack's outputs as an event carries them, in the stand-in's words: secrets as "[secret]", a preview's unknowns as "[unknown]". */
function shownOutputs(outputs: Record<string, unknown>): Record<string, unknown> {
  const shown = (v: unknown): unknown => {
    if (v === UNKNOWN) return "[unknown]";
    if (v && typeof v === "object" && (v as Record<string, unknown>)[SIG_KEY] === SECRET_SIG) return "[secret]";
    if (Array.isArray(v)) return v.map(shown);
    if (v && typeof v === "object") return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, shown(x)]));
    return v;
  };
  return shown(outputs) as Record<string, unknown>;
}

/**
 * The keys the CLI shows as changed when the provider names none (display/rows.go,
 * getDiffInfo): top-level inputs whose values moved, as the event carries them (secrets
 * masked, so a secret's new value alone shows no key), `__provider` aside.
 */
function movedKeys(old: StepEventStateMetadata, now: StepEventStateMetadata): string[] {
  const keys = new Set([...Object.keys(old.inputs ?? {}), ...Object.keys(now.inputs ?? {})]);
  keys.delete("__provider");
  return [...keys].filter((k) => JSON.stringify(old.inputs?.[k]) !== JSON.stringify(now.inputs?.[k])).sort();
}

/**
 * The processes still running that a CLI run of this stack started: every process whose
 * environment holds the stack's own PULUMI_HOME (the CLI, the language host, the program,
 * the plugins), or `pulumiHome`, a fresh runner's. Linux only (/proc); elsewhere an empty list.
 */
export function stackProcesses(opts: Pick<EngineOptions, "cwd" | "stack" | "stateFile">, pulumiHome = stackPaths(stateFileOf(opts)).home): number[] {
  if (process.platform !== "linux") return [];
  const marker = `\0PULUMI_HOME=${pulumiHome}\0`;
  const found: number[] = [];
  for (const entry of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      if (`\0${fs.readFileSync(`/proc/${entry}/environ`, "latin1")}\0`.includes(marker)) found.push(Number(entry));
    } catch {
      // gone meanwhile, or not ours to read
    }
  }
  return found;
}

/**
 * The stack's deployment through `pulumi stack export --show-secrets`, secrets decrypted and
 * wrapped as the stand-in's StateFile.load gives them ({sig, value}): empty before the first run.
 */
export function loadCliDeployment(opts: Pick<EngineOptions, "cwd" | "stack" | "stateFile" | "passphrase">): Deployment {
  if (!fs.existsSync(stackPaths(stateFileOf(opts)).configFile)) return { manifest: { time: "", magic: "", version: "" }, resources: [], pending_operations: [] };
  // The export is a function of the checkpoint file and the passphrase: a state read again
  // unchanged (tests read it after every run, resource by resource) costs no CLI process.
  const checkpoint = () => {
    const file = checkpointFile(stateFileOf(opts), opts.stack);
    return file && createHash("sha256").update(cliEnv(opts)["PULUMI_CONFIG_PASSPHRASE"] ?? "").update("\0").update(fs.readFileSync(file)).digest("hex");
  };
  const before = checkpoint();
  const known = before && exported.get(before);
  if (known) return structuredClone(known);
  const text = pulumiSync(opts, ["stack", "export", "--stack", opts.stack, "--show-secrets"]);
  const raw = (JSON.parse(text) as { deployment: Deployment }).deployment;
  const deployment = { ...raw, ...mapValues({ resources: raw.resources ?? [], pending_operations: raw.pending_operations }, secretsWrapped) };
  // Kept only when no command wrote the checkpoint during the export.
  if (before && checkpoint() === before) exported.set(before, structuredClone(deployment));
  return deployment;
}

/** Exports already made, by their checkpoint's hash (see loadCliDeployment). */
const exported = new Map<string, Deployment>();

/** Every resource's inputs and outputs (pending operations' too) mapped by `f`. */
function mapValues(d: Pick<Deployment, "resources" | "pending_operations">, f: (v: Json) => Json): Pick<Deployment, "resources" | "pending_operations"> {
  const each = (r: ResourceState): ResourceState => ({ ...r, inputs: f(r.inputs as Json) as ResourceState["inputs"], outputs: f(r.outputs as Json) as ResourceState["outputs"] });
  return { resources: d.resources.map(each), pending_operations: (d.pending_operations ?? []).map((op) => ({ ...op, resource: each(op.resource) })) };
}

/** The state's resources with secrets decrypted and unwrapped, as the stand-in's runner gives them. */
export function loadCliState(opts: Pick<EngineOptions, "cwd" | "stack" | "stateFile" | "passphrase">): ResourceState[] {
  return mapValues(loadCliDeployment(opts), unwrapSecrets).resources;
}

/**
 * Replaces the stack's state with `deployment` (secrets wrapped as StateFile.load gives them)
 * through `pulumi stack import`, as a user moves a state in: the stack is created with this
 * run's config first, and the secrets are encrypted with its passphrase.
 */
export function importCliState(opts: EngineOptions, deployment: Deployment): void {
  prepareStack(opts);
  const p = stackPaths(stateFileOf(opts));
  const salt = /^encryptionsalt: (.*)$/m.exec(fs.readFileSync(p.configFile, "utf8"))?.[1];
  const file = `${p.configFile}.import.json`;
  // A manifest of its own: the CLI refuses another engine's version with a magic cookie that does not match it.
  const imported = { manifest: { time: new Date().toISOString(), magic: "", version: "" }, ...(salt ? { secrets_providers: { type: "passphrase", state: { salt } } } : {}), ...mapValues(deployment, secretsAsPlaintext) };
  fs.writeFileSync(file, JSON.stringify({ version: 3, deployment: imported }), { mode: 0o600 });
  try {
    pulumiSync(opts, ["stack", "import", "--stack", opts.stack, "--file", file]);
  } finally {
    fs.rmSync(file, { force: true });
  }
  copyCheckpoint(stateFileOf(opts), opts.stack);
}

/** `--show-secrets` gives a secret as {sig, plaintext: JSON text}; the stand-in's StateFile.load as {sig, value}. */
function secretsWrapped(v: Json): Json {
  if (Array.isArray(v)) return v.map(secretsWrapped);
  if (isObject(v)) {
    if (v[SIG_KEY] === SECRET_SIG && typeof v["plaintext"] === "string") return { [SIG_KEY]: SECRET_SIG, value: secretsWrapped(JSON.parse(v["plaintext"]) as Json) };
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, secretsWrapped(x)]));
  }
  return v;
}

/** The inverse, for `stack import`, which encrypts {sig, plaintext} with the stack's secrets provider. */
function secretsAsPlaintext(v: Json): Json {
  if (isSecret(v)) return { [SIG_KEY]: SECRET_SIG, plaintext: JSON.stringify(unwrapSecrets(v.value)) };
  if (Array.isArray(v)) return v.map(secretsAsPlaintext);
  if (isObject(v)) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, secretsAsPlaintext(x)]));
  return v;
}
