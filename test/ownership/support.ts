/**
 * Stacks of the lifecycle program (test/lifecycle/program: any resources, from
 * config) run through the engine stand-in against the emulator, each with its own
 * state file and create journal, for the scenarios where the state and the service
 * could part (issue 24). What the service holds is read over HTTP, calls are counted
 * from the emulator's request log.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach } from "vitest";
import type { RunningEmulator } from "../../emulator";
import { runEngine, type EngineOptions, type EngineResult } from "../engine/engine";
import type { ResourceState } from "../engine/state";
import { loadState, stackOptions, writesDuring, type Declared } from "../lifecycle/stack";
import type { Workspace } from "../provider/support";
import { control } from "../support/emulator";

export { errorsOf } from "../lifecycle/stack";
export type { Declared } from "../lifecycle/stack";

export interface OwnershipStack {
  run(verb: EngineOptions["verb"], resources: Declared[], extra?: Partial<EngineOptions>): Promise<EngineResult>;
  /** The run, and every write (`METHOD /path`, no GET) it made. */
  writes(verb: EngineOptions["verb"], resources: Declared[], extra?: Partial<EngineOptions>): Promise<{ result: EngineResult; writes: string[] }>;
  state(): ResourceState[];
  /** The id the state holds for the resource named `name`. */
  id(name: string): string | undefined;
}

/** `stack(name, ws?)`: a stack in `ws` (a fresh enterprise workspace when omitted); its files go after each test. */
export function useOwnershipStacks(emu: () => RunningEmulator): (name: string, ws?: Workspace) => Promise<OwnershipStack & { ws: Workspace }> {
  const dirs: string[] = [];
  afterEach(async () => {
    await control(emu(), "DELETE", "/faults");
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });
  return async (name, given) => {
    const ws = given ?? (await control<Workspace>(emu(), "POST", "/workspaces", { plan: "enterprise" }));
    const dir = mkdtempSync(join(tmpdir(), `svc-ownership-${name}-`));
    dirs.push(dir);
    const stateFile = join(dir, "state.json");
    const run = (verb: EngineOptions["verb"], resources: Declared[], extra: Partial<EngineOptions> = {}) => {
      const base = stackOptions(emu(), ws, verb, name, stateFile, resources);
      return runEngine({ ...base, ...extra, env: { ...base.env, SVC_JOURNAL_DIR: join(dir, "journal"), ...extra.env } });
    };
    const state = () => loadState(stateFile).filter((r) => r.type.startsWith("pulumi-nodejs:dynamic/svc/"));
    return {
      ws,
      run,
      writes: (verb, resources, extra) => writesDuring(emu(), () => run(verb, resources, extra)),
      state,
      id: (n) => state().find((r) => r.urn.endsWith(`::${n}`))?.id,
    };
  };
}
