/**
 * Stacks of the lifecycle program (test/lifecycle/program: any resources, from config)
 * run by the real Pulumi CLI (`npm run pulumi:install`) against the emulator, each with its own state file,
 * for the scenarios where the state and the service could part
 * (issue 24). What the service holds is read over HTTP, calls are counted from the
 * emulator's request log.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import picomatch from "picomatch";
import { afterAll, afterEach, expect } from "vitest";
import type { RunningEmulator } from "../../emulator";
import type { EngineOptions, EngineResult } from "../support/run-types";
import { cliRunner } from "../support/runner";
import type { ResourceState } from "../support/state";
import { PROGRAM, writesDuring } from "../lifecycle/stack";
import type { Workspace } from "../provider/support";
import { control, lastSeq, requestsSince } from "../support/emulator";
import { pulumiSync, stackProcesses, type CliOptions } from "../support/pulumi-cli";
import { recoverStack } from "../support/recover";

export { errorsOf } from "../lifecycle/stack";

/** Each test runs the program a few times (a run starts the program and the plugin): generous under load. */
export const RUNS_TIMEOUT_MS = 300_000;

export interface Declared {
  kind: string;
  name: string;
  inputs: Record<string, unknown>;
  /** Names of resources declared before this one. */
  dependsOn?: string[];
  /** Plain resource options, e.g. `{ deleteBeforeReplace: true }`. */
  options?: { deleteBeforeReplace?: boolean };
}

export interface RunOptions {
  /** Secret config `lifecycle:<k>`, referred to by `{ "$secret": "k" }` in inputs. */
  secrets?: Record<string, string>;
  config?: Record<string, string>;
  /** E.g. `{ signal, abortWith: "SIGKILL" }` to kill the run (test/support/pulumi-cli.ts). */
  verbOptions?: Partial<CliOptions>;
}

/** A stack's program, name and state file. */
export type StackRef = Pick<EngineOptions, "cwd" | "stack" | "stateFile">;

export interface OwnershipStack {
  ws: Workspace;
  run(verb: EngineOptions["verb"], resources: Declared[], opts?: RunOptions): Promise<EngineResult>;
  /** The run, and every write (`METHOD /path`, no GET) it made. */
  writes(verb: EngineOptions["verb"], resources: Declared[], opts?: RunOptions): Promise<{ result: EngineResult; writes: string[] }>;
  state(): ResourceState[];
  /** The id the state holds for the resource named `name` (not an old object of its pending deletion). */
  id(name: string): string | undefined;
  /** A directory of the stack's own, removed after the test. */
  dir: string;
  /** The stack's program, name and state file, for `pulumiSync` and `stackProcesses`. */
  ref: StackRef;
}

/** Why these suites cannot run here (the Pulumi CLI is not installed), or undefined. */
export const CLI_MISSING = cliRunner.unavailable;
if (CLI_MISSING) console.log(`where the state and the service part (test/ownership): skipped: ${CLI_MISSING}`);

/** `stack(name, ws?)`: a stack in `ws` (a fresh enterprise workspace when omitted); its files go after each test. */
export function useOwnershipStacks(emu: () => RunningEmulator): (name: string, ws?: Workspace) => Promise<OwnershipStack> {
  const dirs: string[] = [];
  afterEach(async () => {
    await control(emu(), "DELETE", "/faults");
    for (const d of [...dirs.splice(0), ...runnerDirs.splice(0)]) rmSync(d, { recursive: true, force: true });
  });
  return async (name, given) => {
    const ws = given ?? (await control<Workspace>(emu(), "POST", "/workspaces", { plan: "enterprise" }));
    const dir = mkdtempSync(join(tmpdir(), `svc-ownership-${name}-`));
    dirs.push(dir);
    const stateFile = join(dir, "state.json");
    const run = (verb: EngineOptions["verb"], resources: Declared[], opts: RunOptions = {}) => {
      const e = emu();
      const options: CliOptions = {
        verb,
        cwd: PROGRAM,
        stack: name,
        stateFile,
        config: { "svc:webhooksUrl": e.webhooksUrl, "svc:inboxesUrl": e.inboxesUrl, "svc:infraUrl": e.infraUrl, "lifecycle:resources": JSON.stringify(resources), ...opts.config },
        secrets: {
          ...Object.fromEntries(Object.entries(opts.secrets ?? {}).map(([k, v]) => [`lifecycle:${k}`, v])),
          "svc:webhooksApiKey": ws.webhooks.admin,
          "svc:inboxesApiKey": ws.inboxes.admin,
          "svc:infraApiKey": ws.infra.member,
          "svc:profiles": JSON.stringify({ infraAdmin: { infraUrl: e.infraUrl, infraApiKey: ws.infra.admin } }),
        },
        env: { SVC_WEBHOOKS_URL: "", SVC_WEBHOOKS_API_KEY: "", SVC_INBOXES_URL: "", SVC_INBOXES_API_KEY: "", SVC_INFRA_URL: "", SVC_INFRA_API_KEY: "", SVC_RECONCILE_WINDOW_SECONDS: "" },
        ...opts.verbOptions,
      };
      return cliRunner.run(options);
    };
    const state = () => cliRunner.resources({ cwd: PROGRAM, stack: name, stateFile }).filter((r) => r.type.startsWith("pulumi-nodejs:dynamic/svc/"));
    return {
      ws,
      dir,
      ref: { cwd: PROGRAM, stack: name, stateFile },
      run,
      writes: (verb, resources, opts) => writesDuring(emu(), () => run(verb, resources, opts)),
      state,
      id: (n) => state().find((r) => r.urn.endsWith(`::${n}`) && !r.delete)?.id,
    };
  };
}

/** The directories of `freshRunner`, removed after each test of `useOwnershipStacks`, and after every file that uses it. */
const runnerDirs: string[] = [];
afterAll(() => runnerDirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));

/** A new HOME, PULUMI_HOME and TMPDIR: what a fresh CI runner has; only the stack's backend carries over. */
export function freshRunner(): Record<string, string> {
  const dir = (what: string) => {
    const d = mkdtempSync(join(tmpdir(), `svc-runner-${what}-`));
    runnerDirs.push(d);
    return d;
  };
  const blank = { SVC_WEBHOOKS_URL: "", SVC_WEBHOOKS_API_KEY: "", SVC_INBOXES_URL: "", SVC_INBOXES_API_KEY: "", SVC_INFRA_URL: "", SVC_INFRA_API_KEY: "", SVC_RECONCILE_WINDOW_SECONDS: "" };
  return { ...blank, HOME: dir("home"), PULUMI_HOME: dir("pulumi-home"), TMPDIR: dir("tmp") };
}

/** Run options for one command on a fresh runner. */
export const fresh = (): RunOptions => ({ verbOptions: { env: freshRunner() } });

/**
 * Wait until `cond` holds; after two minutes, fail naming `what` was awaited (a test's own timeout names nothing) and
 * what `seen` tells of where things stand.
 */
export async function until(what: string, cond: () => boolean | Promise<boolean>, seen?: () => Promise<string>): Promise<void> {
  const deadline = Date.now() + 120_000;
  while (!(await cond())) {
    if (Date.now() > deadline) throw new Error(`still waiting, after two minutes, for ${what}${seen ? `; ${await seen()}` : ""}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Whether the emulator lists no fault any more: every fault injected has been used up (the requests it waits for came). */
export async function noFaultListed(emu: RunningEmulator): Promise<boolean> {
  return (await control<{ faults: unknown[] }>(emu, "GET", "/faults")).faults.length === 0;
}

/**
 * `pulumi up` of `resources` on a fresh runner, killed (SIGKILL) once its `PUT path`
 * reached the service: the first PUT is done and its answer lost (the client sends it
 * again, as a PUT may be), the second is held, and `pulumi` is killed then; the
 * take-over's answer is never saved. Then `pulumi cancel` on another fresh runner, as a
 * pipeline's next job would. The killed run's result.
 */
/** A killed run's runner torn down: every process its `pulumiHome` still runs is killed, and gone. */
async function endRunner(ref: StackRef, pulumiHome: string): Promise<void> {
  // Killed again at every look: a process the killed ones were starting (a plugin's launcher execs node) ends too.
  await until("the killed runner's processes to end", () => {
    const left = stackProcesses(ref, pulumiHome);
    for (const pid of left) {
      try {
        process.kill(pid, "SIGKILL");
      } catch {
        // ended meanwhile
      }
    }
    return left.length === 0;
  });
}

export async function upKilledAfterPut(emu: RunningEmulator, s: OwnershipStack, resources: Declared[], path: string): Promise<EngineResult> {
  await control(emu, "POST", "/faults", { method: "PUT", path, drop_after_response: true, count: 1 });
  await control(emu, "POST", "/faults", { method: "PUT", path, latency_ms: 60_000, count: 1 });
  const ac = new AbortController();
  const runner = freshRunner();
  // Its preview proves nothing here (the kill comes in the update): skipped, as setup runs skip it.
  const up = s.run("up", resources, { verbOptions: { env: runner, signal: ac.signal, abortWith: "SIGKILL", skipPreview: true } });
  await until("the PUTs to reach the service", () => noFaultListed(emu));
  ac.abort();
  const killed = await up;
  await endRunner(s.ref, runner.PULUMI_HOME);
  pulumiSync({ ...s.ref, env: freshRunner() }, ["cancel", "--yes", "--stack", s.ref.stack]);
  return killed;
}

/** How long after its dropped connection the service acts on a delayed request (`killedWhileActing`). */
const ACT_AFTER_MS = 1_000;

/**
 * A run (`start`, given the verb options that kill it) with its `method` requests (`paths`: globs and counts) acted on
 * by the service a second after their connection dropped (a delayed answer with latency is never acted on: the
 * emulator drops a request whose client went away), killed (SIGKILL) on a fresh runner once the service read every
 * one's body (the emulator lists such a fault until then; a kill between headers and body left a request never made,
 * and this waited for good); then, once the service acted on every one (its log holds each, about a second long), `pulumi cancel` on
 * another fresh runner.
 */
export async function killedWhileActing(emu: RunningEmulator, ref: StackRef, start: (verbOptions: Partial<CliOptions>) => Promise<EngineResult>, method: string, paths: Record<string, number>): Promise<void> {
  const since = await lastSeq(emu);
  for (const [path, count] of Object.entries(paths)) await control(emu, "POST", "/faults", { method, path, drop_then_act_ms: ACT_AFTER_MS, count });
  const ac = new AbortController();
  const runner = freshRunner();
  // Its preview proves nothing here (the kill comes in the update or destroy): skipped.
  const run = start({ env: runner, signal: ac.signal, abortWith: "SIGKILL", skipPreview: true });
  let ended: EngineResult | undefined;
  void run.then((r) => (ended = r));
  await until(`every faulted ${method} to reach the service`, async () => ended !== undefined || (await noFaultListed(emu)));
  if (ended) throw new Error(`the run ended before the service had every request it waits for: ${ended.diagnostics.map((d) => d.message).join("\n")}`);
  ac.abort();
  const killed = await run;
  expect(killed.ok).toBe(false);
  // The runner goes with its job: what the killed run started (found by the runner's PULUMI_HOME) ends too. The
  // plugins end by themselves; Pulumi YAML's language host waits for its engine for good.
  await endRunner(ref, runner.PULUMI_HOME);
  const calls = async () => (await requestsSince(emu, since)).filter((r) => r.method === method);
  await until(
    `the service to act on every faulted ${method}`,
    async () => {
      // Half the delay tells them from the others: the service's timer may end a fraction of a millisecond before the
      // request's own clock says a second has passed (999.7 ms logged).
      const acted = (await calls()).filter((r) => r.duration_ms >= ACT_AFTER_MS / 2);
      return Object.entries(paths).every(([path, count]) => acted.filter((r) => picomatch.isMatch(r.path, path)).length >= count);
    },
    async () => `the service logged ${JSON.stringify((await calls()).map((r) => `${r.path} ${r.status} ${r.duration_ms} ms`))}; faults listed: ${JSON.stringify((await control<{ faults: unknown[] }>(emu, "GET", "/faults")).faults)}`,
  );
  pulumiSync({ ...ref, env: freshRunner() }, ["cancel", "--yes", "--stack", ref.stack]);
}

/** `pulumi-svc recover` on a fresh runner: its exit code and output. */
export const recover = (s: OwnershipStack, ...extra: string[]) => recoverStack(s.ref, freshRunner(), extra);
