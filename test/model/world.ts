/**
 * The real system under the model: one emulator, a fresh workspace per sequence,
 * and the program (test/model/program) run through the real Pulumi CLI
 * (test/support/pulumi-cli.ts) or the engine stand-in's CLI, so a run can be interrupted
 * as a user's terminal or CI would: SIGINT (Ctrl-C) to the engine, or SIGKILL of the
 * engine. The stand-in runs in its own process group, killed whole (the program and the
 * plugin with it); the real `pulumi` is killed alone, as its plugins run in process
 * groups of their own, and the next run waits until they have left with it and clears
 * the lock it left (`pulumi cancel`), as its message asks.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import type { RunningEmulator } from "../../emulator";
import type { Checkpoint, ResourceState } from "../support/state";
import type { EngineOptions, EngineResult, Verb } from "../support/run-types";
import { pulumiSync, runCli, stackArgs, stackProcesses } from "../support/pulumi-cli";
import { compiledProgram } from "../support/compiled-program";
import { recoverStack } from "../support/recover";
import { KINDS, RESOURCE_KINDS, idOfListed, kindOfType, type Args, type ResourceKind } from "./kinds";

// Compiled to JavaScript once: no TypeScript loader in each command that runs it (test/support/compiled-program.ts).
const PROGRAM = compiledProgram(resolve(__dirname, "program"));
/** Settings only from the stack config; the plugin and program inherit the rest of the environment. */
const SETTINGS_FROM_CONFIG = { SVC_WEBHOOKS_URL: "", SVC_WEBHOOKS_API_KEY: "", SVC_INBOXES_URL: "", SVC_INBOXES_API_KEY: "", SVC_INFRA_URL: "", SVC_INFRA_API_KEY: "" };
const ENGINE_CLI = resolve(__dirname, "../engine/cli.ts");
/** A run that takes longer than this is stuck: its process group is killed and the run reported as such. */
const RUN_TIMEOUT_MS = 240_000;
/** How long the processes of a killed `pulumi` may outlive it (the plugin watches its engine every second). */
const LEAVE_WITH_ENGINE_MS = 30_000;

/** Which engine runs the program: the real Pulumi CLI, or the engine stand-in (test/engine). */
export type ModelEngine = "cli" | "stand-in";

/** The sequence's stack; another stack (commands.ts `SecondStack`) writes look-alikes into the same workspace. */
export const MAIN_STACK = "model";

export interface Workspace {
  workspace_id: string;
  project_id: string;
  webhooks: { admin: string };
  inboxes: { admin: string };
  infra: { admin: string };
}

/** What the model reads of a resource in the state. */
type StateEntry = Pick<ResourceState, "urn" | "type" | "id" | "custom" | "external" | "delete">;

export interface DeclaredResource {
  kind: ResourceKind;
  name: string;
  args: Args;
  aliases: string[];
}

/** What one run printed, or how it ended when it was interrupted or stuck. */
export interface RunOutcome {
  verb: Verb;
  exitCode: number | null;
  /** The EngineResult (without the summary) when the CLI got to print it. */
  result?: Omit<EngineResult, "summary">;
  /** Everything the CLI wrote: searched for secrets. */
  text: string;
  interrupted?: "SIGINT" | "SIGKILL";
}

export interface Interruption {
  signal: "SIGINT" | "SIGKILL";
  /** Interrupt once the emulator has logged this many writes of the run (at least 1). */
  afterWrites: number;
  /** Extra wait after that write, in ms. */
  delayMs: number;
}

export class World {
  readonly dir: string;
  readonly stateFile: string;
  /** A recognisable secret: in header values and source secrets; must never show in plaintext. */
  readonly marker: string;

  private constructor(
    readonly emu: RunningEmulator,
    readonly ws: Workspace,
    tag: string,
    readonly engine: ModelEngine,
    /** Every CLI command on a fresh runner (a new HOME, PULUMI_HOME and TMPDIR): only the state file carries over. */
    readonly freshRunners: boolean,
  ) {
    this.dir = mkdtempSync(join(tmpdir(), "svc-model-"));
    this.stateFile = join(this.dir, "state.json");
    this.marker = `mdlS3CR3T${tag}x`;
  }

  static async create(emu: RunningEmulator, tag: string, engine: ModelEngine, freshRunners = false): Promise<World> {
    if (freshRunners && engine !== "cli") throw new Error("fresh runners are the real CLI's (a new PULUMI_HOME per command): use --engine cli");
    const ws = await control<Workspace>(emu, "POST", "/workspaces", { plan: "enterprise" });
    await control(emu, "DELETE", "/faults");
    return new World(emu, ws, tag, engine, freshRunners);
  }

  /** The environment of one CLI command: a fresh runner's homes (in the sequence's directory), or none (the stack's own PULUMI_HOME). */
  private runner(): Record<string, string> {
    if (!this.freshRunners) return {};
    const dir = (what: string) => mkdtempSync(join(this.dir, `runner-${what}-`));
    return { HOME: dir("home"), PULUMI_HOME: dir("pulumi-home"), TMPDIR: dir("tmp") };
  }

  /** `pulumi-svc recover` of the sequence's stack, as the GitOps job runs it after a killed run (examples/gitops): its exit code and output. */
  recover(extra: string[] = []): Promise<{ code: number; output: string }> {
    return recoverStack({ cwd: PROGRAM, stack: MAIN_STACK, stateFile: this.stateFile }, { ...SETTINGS_FROM_CONFIG, ...this.runner() }, extra);
  }

  /** `pulumi ARGS` of the sequence's stack (its config file named) on a runner of its own. */
  pulumi(args: string[]): string {
    const ref = { cwd: PROGRAM, stack: MAIN_STACK, stateFile: this.stateFile };
    return pulumiSync({ ...ref, env: { ...SETTINGS_FROM_CONFIG, ...this.runner() } }, [...args, ...stackArgs(ref)]);
  }

  dispose(): void {
    rmSync(this.dir, { recursive: true, force: true });
  }

  /** Every value that must never appear in plaintext. */
  secrets(): string[] {
    return [this.marker, this.ws.webhooks.admin, this.ws.inboxes.admin, this.ws.infra.admin];
  }

  control<T = unknown>(method: string, path: string, body?: unknown): Promise<T> {
    return control<T>(this.emu, method, path, body);
  }

  /** One API call with the workspace's admin key of the product the path belongs to. */
  async api(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
    const product = path.split("/")[1] as keyof Pick<Workspace, "webhooks" | "inboxes" | "infra">;
    const res = await fetch(this.emu.url + path, {
      method,
      headers: { authorization: `Bearer ${this.ws[product].admin}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, body: text ? safeJson(text) : undefined };
  }

  /** The ids of the objects the workspace holds, per listable kind. */
  async holdings(): Promise<Map<ResourceKind, string[]>> {
    const out = new Map<ResourceKind, string[]>();
    for (const kind of RESOURCE_KINDS) {
      const list = KINDS[kind].list;
      if (!list) continue;
      const res = await this.api("GET", `${list.path}?${list.query ? `${list.query}&` : ""}limit=200`);
      if (res.status !== 200) throw new Error(`listing ${list.path}: ${res.status} ${JSON.stringify(res.body)}`);
      const items = (res.body?.[list.items] ?? []) as Record<string, unknown>[];
      out.set(kind, items.map((i) => idOfListed(kind, i)));
    }
    return out;
  }

  /**
   * The stack's managed resources in the state file (none before the first run): what the
   * checkpoint keeps in plaintext (ids, types, names), the same for either engine.
   */
  state(stack: string = MAIN_STACK): { resources: (StateEntry & { kind: ResourceKind; name: string })[]; pending: number; raw: string } {
    let raw = "";
    try {
      raw = readFileSync(this.stateFileOf(stack), "utf8");
    } catch {
      return { resources: [], pending: 0, raw };
    }
    // The CLI writes no `resources` once a destroy has emptied the stack.
    const d: Partial<Checkpoint["checkpoint"]["latest"]> = (JSON.parse(raw) as Checkpoint).checkpoint.latest ?? {};
    const resources = (d.resources ?? []).flatMap((r) => {
      const kind = kindOfType(r.type);
      return kind && r.custom && !r.external ? [{ ...r, kind, name: r.urn.slice(r.urn.lastIndexOf("::") + 2) }] : [];
    });
    return { resources, pending: d.pending_operations?.length ?? 0, raw };
  }

  /** The emulator's request-log position, to count what a run sent. */
  async lastSeq(): Promise<number> {
    return (await this.control<{ last_seq: number }>("GET", "/requests?since=999999999")).last_seq;
  }

  async writesSince(seq: number): Promise<{ method: string; path: string; status: number }[]> {
    const { requests } = await this.control<{ requests: { method: string; path: string; status: number }[] }>("GET", `/requests?since=${seq}`);
    return requests.filter((r) => r.method !== "GET");
  }

  /** The state file of a stack: the sequence's own, or another stack's in the same workspace. */
  stateFileOf(stack: string): string {
    return stack === MAIN_STACK ? this.stateFile : join(this.dir, `${stack}.json`);
  }

  /** Runs one verb over `spec` (as `stack`); with `interrupt`, stops it part-way as a signal or a kill would. */
  async run(verb: Verb, spec: DeclaredResource[], interrupt?: Interruption, stack: string = MAIN_STACK): Promise<RunOutcome> {
    const stateFile = this.stateFileOf(stack);
    const config: Record<string, string> = {
      "svc:webhooksUrl": this.emu.webhooksUrl,
      "svc:inboxesUrl": this.emu.inboxesUrl,
      "svc:infraUrl": this.emu.infraUrl,
      "svc-model:spec": JSON.stringify(spec),
    };
    const secrets: Record<string, string> = {
      "svc:webhooksApiKey": this.ws.webhooks.admin,
      "svc:inboxesApiKey": this.ws.inboxes.admin,
      "svc:infraApiKey": this.ws.infra.admin,
      "svc-model:marker": this.marker,
    };
    const env = SETTINGS_FROM_CONFIG;
    const since = interrupt ? await this.lastSeq() : 0;
    if (this.engine === "cli") return this.runCli({ verb, cwd: PROGRAM, stack, stateFile, config, secrets, env }, since, interrupt);
    const args = [
      "--require", require.resolve("tsx/cjs"), ENGINE_CLI, verb, "--cwd", PROGRAM, "--stack", stack, "--state", stateFile, "--json",
      ...Object.entries(config).flatMap(([k, v]) => ["--config", `${k}=${v}`]),
      ...Object.entries(secrets).flatMap(([k, v]) => ["--secret", `${k}=${v}`]),
    ];
    const child = spawn(process.execPath, args, { cwd: PROGRAM, env: { ...process.env, ...env }, detached: true, stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    let err = "";
    child.stdout!.on("data", (b: Buffer) => (out += b.toString()));
    child.stderr!.on("data", (b: Buffer) => (err += b.toString()));
    const exited = new Promise<number | null>((res) => child.once("exit", (code) => res(code)));
    const killGroup = (signal: NodeJS.Signals) => {
      try {
        process.kill(-child.pid!, signal);
      } catch {
        /* already gone */
      }
    };
    let done = false;
    void exited.then(() => (done = true));
    const timer = setTimeout(() => killGroup("SIGKILL"), RUN_TIMEOUT_MS);
    const interrupted = await this.interruptWhen(since, interrupt, () => done, async (signal) => {
      if (signal === "SIGINT") {
        // Ctrl-C reaches the engine only; it should cancel and save. Then whatever is left is killed.
        child.kill("SIGINT");
        await Promise.race([exited, sleep(30_000)]);
      }
      killGroup("SIGKILL");
    });
    const exitCode = await exited;
    clearTimeout(timer);
    // The program and plugin of a killed engine go with its group.
    killGroup("SIGKILL");
    const text = `${out}\n${err}`;
    let result: RunOutcome["result"];
    try {
      result = out.trim() ? JSON.parse(out) : undefined;
    } catch {
      result = undefined;
    }
    return { verb, exitCode, result, text, interrupted };
  }

  /** Once the run's writes reached the service (and `delayMs` more), stops it with `stop`; the signal used, if any. */
  private async interruptWhen(since: number, interrupt: Interruption | undefined, done: () => boolean, stop: (signal: Interruption["signal"]) => Promise<void>): Promise<RunOutcome["interrupted"]> {
    if (!interrupt) return undefined;
    while (!done() && (await this.writesSince(since)).length < interrupt.afterWrites) await sleep(50);
    if (done()) return undefined;
    await sleep(interrupt.delayMs);
    if (done()) return undefined;
    await stop(interrupt.signal);
    return interrupt.signal;
  }

  /** One run through the real Pulumi CLI, interrupted as `run` says. */
  private async runCli(given: EngineOptions, since: number, interrupt: Interruption | undefined): Promise<RunOutcome> {
    const runner = this.runner();
    const opts = { ...given, env: { ...given.env, ...runner } };
    const ac = new AbortController();
    let done = false;
    const running = runCli({ ...opts, signal: ac.signal, abortWith: interrupt?.signal }).finally(() => (done = true));
    // The run's processes, found by its PULUMI_HOME.
    const processes = () => stackProcesses(opts, runner.PULUMI_HOME);
    const killAll = () => processes().forEach((pid) => process.kill(pid, "SIGKILL"));
    let stuck = false;
    const timer = setTimeout(() => {
      stuck = true;
      killAll();
    }, RUN_TIMEOUT_MS);
    const interrupted = await this.interruptWhen(since, interrupt, () => done, async (signal) => {
      ac.abort();
      if (signal === "SIGINT") {
        // Cancelled, the CLI finishes the steps in flight; if it has not ended by then, everything is killed.
        await Promise.race([running, sleep(30_000)]);
        if (!done) killAll();
      }
    });
    const result = await running;
    clearTimeout(timer);
    // A killed `pulumi` leaves its plugins behind (process groups of their own): they must leave with it.
    const killedAt = Date.now();
    while (processes().length && Date.now() - killedAt < LEAVE_WITH_ENGINE_MS) await sleep(100);
    const left = processes();
    killAll();
    if (left.length) throw new Error(`processes of the ${opts.verb} still ran ${LEAVE_WITH_ENGINE_MS / 1000} s after it ended: ${left.join(", ")}`);
    // A killed CLI leaves its lock on the stack; its message asks for `pulumi cancel` (a no-op when there is none).
    if (interrupted || stuck) pulumiSync({ ...opts, env: { ...given.env, ...this.runner() } }, ["cancel", "--yes", "--stack", opts.stack]);
    const { summary, ...rest } = result;
    return { verb: opts.verb, exitCode: result.exitCode ?? null, result: rest, text: `${summary}\n${JSON.stringify(rest)}`, interrupted };
  }
}

async function control<T>(emu: RunningEmulator, method: string, path: string, body?: unknown): Promise<T> {
  const res = await fetch(`${emu.url}/_emulator${path}`, {
    method,
    headers: body === undefined ? {} : { "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (res.status >= 300) throw new Error(`control ${method} ${path}: ${res.status} ${text}`);
  return (text ? JSON.parse(text) : undefined) as T;
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
