/**
 * The look-alike program (test/reconcile/program) run through the engine stand-in
 * against the emulator, one fresh workspace and state file per
 * stack, and what the emulator holds, listed with no fault.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterEach, expect } from "vitest";
import type { RunningEmulator } from "../../emulator";
import { runEngine, type EngineResult } from "../engine/engine";
import type { EngineOptions, Verb } from "../support/run-types";
import { call, control } from "../support/emulator";

export const PROGRAM = resolve(__dirname, "program");

export interface LookAlikes {
  bins?: number;
  endpoints?: number;
  /** svc:reconcileWindowSeconds (the provider's default when omitted). */
  windowSeconds?: number;
  /** Every endpoint's declared status (create does not take it: a PATCH follows the create). */
  endpointStatus?: "enabled" | "disabled";
  /** Every endpoint's declared description and maxAttempts (updatable: one PATCH changes them). */
  endpointDescription?: string;
  maxAttempts?: number;
  /** Declare the endpoints last first (the engine registers them in that order). */
  reverse?: boolean;
  /** The program ends only this long after it started (a stack output waits), so a run can be killed after its steps were saved. */
  holdMs?: number;
}

interface Keys {
  webhooks: { admin: string };
  inboxes: { admin: string };
}

export interface ReconcileStack {
  run(verb: Verb, spec: LookAlikes): Promise<EngineResult>;
  /** A run's options (program, stack, state file, config), for either engine. */
  options(verb: Verb, spec: LookAlikes): EngineOptions;
  /** `up` in its own process group, killed (CLI, program and plugin) once `until` holds. */
  killedUp(spec: LookAlikes, until: () => Promise<boolean>): Promise<void>;
  bins(): Promise<string[]>;
  endpoints(): Promise<string[]>;
  /** The workspace's admin keys, to read what the service holds. */
  keys: Keys;
  /** Ids of the svc resources in the state, and its pending operations. */
  state(): { ids: string[]; pending: string[] };
  cleanUp(): void;
}

export async function reconcileStack(emu: RunningEmulator, name: string): Promise<ReconcileStack> {
  const dir = mkdtempSync(join(tmpdir(), `svc-reconcile-${name}-`));
  const stateFile = join(dir, "state.json");
  const ws = await control<Keys>(emu, "POST", "/workspaces", { plan: "enterprise" });
  const env = { SVC_WEBHOOKS_API_KEY: "", SVC_INBOXES_API_KEY: "", SVC_RECONCILE_WINDOW_SECONDS: "" };
  const settings = (spec: LookAlikes) => ({
    config: {
      "reconcile:bins": String(spec.bins ?? 0),
      "reconcile:endpoints": String(spec.endpoints ?? 0),
      "svc:webhooksUrl": emu.webhooksUrl,
      "svc:inboxesUrl": emu.inboxesUrl,
      ...(spec.windowSeconds === undefined ? {} : { "svc:reconcileWindowSeconds": String(spec.windowSeconds) }),
      ...(spec.endpointStatus === undefined ? {} : { "reconcile:endpointStatus": spec.endpointStatus }),
      ...(spec.endpointDescription === undefined ? {} : { "reconcile:description": spec.endpointDescription }),
      ...(spec.maxAttempts === undefined ? {} : { "reconcile:maxAttempts": String(spec.maxAttempts) }),
      ...(spec.reverse ? { "reconcile:order": "reverse" } : {}),
      ...(spec.holdMs === undefined ? {} : { "reconcile:holdMs": String(spec.holdMs) }),
    },
    secrets: { "svc:webhooksApiKey": ws.webhooks.admin, "svc:inboxesApiKey": ws.inboxes.admin },
  });
  const list = async (path: string, key: string) => ((await call(emu, "GET", `${path}?limit=200`, { key })).body.data as { id: string }[]).map((o) => o.id).sort();
  const options = (verb: Verb, spec: LookAlikes): EngineOptions => ({ verb, cwd: PROGRAM, stack: name, stateFile, ...settings(spec), env });
  return {
    // A refresh here is `refresh --clear-pending-creates`: the real engine keeps pending creates otherwise.
    run: (verb, spec) => runEngine({ ...options(verb, spec), clearPendingCreates: verb === "refresh" }),
    options,
    async killedUp(spec, until) {
      const s = settings(spec);
      const args = [require.resolve("tsx/cli"), resolve(__dirname, "../engine/cli.ts"), "up", "--cwd", PROGRAM, "--stack", name, "--state", stateFile];
      for (const [k, v] of Object.entries(s.config)) args.push("--config", `${k}=${v}`);
      for (const [k, v] of Object.entries(s.secrets)) args.push("--secret", `${k}=${v}`);
      const child = spawn(process.execPath, args, { detached: true, stdio: "ignore", env: { ...process.env, ...env } });
      const exited = new Promise((r) => child.once("exit", r));
      try {
        // Polls without a deadline of its own: the test's timeout bounds it.
        while (!(await until())) await new Promise((r) => setTimeout(r, 100));
      } finally {
        process.kill(-child.pid!, "SIGKILL");
      }
      await exited;
    },
    keys: ws,
    bins: () => list("/inboxes/v1/inboxes", ws.inboxes.admin),
    endpoints: () => list("/webhooks/v1/endpoints", ws.webhooks.admin),
    state() {
      let latest: { resources?: { id?: string; type: string }[]; pending_operations?: { type: string }[] } = {};
      try {
        latest = JSON.parse(readFileSync(stateFile, "utf8")).checkpoint.latest;
      } catch {
        // no state yet, or it is being replaced
      }
      return {
        ids: (latest.resources ?? []).filter((r) => r.type.includes("svc/")).flatMap((r) => (r.id ? [r.id] : [])).sort(),
        pending: (latest.pending_operations ?? []).map((p) => p.type),
      };
    },
    cleanUp: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** The service holds exactly one object per resource of `spec`, and the state holds those. */
export async function expectOnePerResource(s: ReconcileStack, spec: LookAlikes): Promise<void> {
  const endpoints = await s.endpoints();
  const bins = await s.bins();
  expect(endpoints).toHaveLength(spec.endpoints ?? 0);
  expect(bins).toHaveLength(spec.bins ?? 0);
  expect(s.state().ids).toEqual([...endpoints, ...bins].sort());
}

export const errorsOf = (r: EngineResult) => r.diagnostics.filter((d) => d.severity === "error").map((d) => d.message).join("\n");

/** Each test runs the program two or three times (a run starts the program and the plugin): generous under load. */
export const RUNS_TIMEOUT_MS = 300_000;

/** `stack(name)` makes a ReconcileStack; after each test the faults are cleared and its stacks' files deleted. */
export function useReconcileStacks(emu: () => RunningEmulator): (name: string) => Promise<ReconcileStack> {
  const stacks: ReconcileStack[] = [];
  afterEach(async () => {
    await control(emu(), "DELETE", "/faults");
    for (const s of stacks.splice(0)) s.cleanUp();
  });
  return async (name) => {
    const s = await reconcileStack(emu(), name);
    stacks.push(s);
    return s;
  };
}
