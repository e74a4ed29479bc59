/**
 * One stack size through the provider's own operations, in a process of its own so
 * that its peak RSS is the provider's (run by bench/run.ts; prints one JSON line).
 *
 *   tsx bench/direct.ts --url http://127.0.0.1:PORT --size 100 --parallel 16 [--emulator-pid PID]
 *
 * `--profile <phase>` (e.g. `update`) records a V8 CPU profile of that phase alone and
 * writes it to `--profile-out` (default: the temp directory), for Chrome DevTools or
 * speedscope; the phase's timings are then inflated by the profiler.
 */
import { writeFileSync } from "node:fs";
import { Session } from "node:inspector/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
// The provider as the plugin loads it: the compiled package (dist/, built by `npm run bench`), not the sources through tsx.
import { startOperation, closeSharedDispatcher, providers } from "../dist/provider";
import { clientStats, resetClientStats } from "../dist/provider/client";
import { DEFINITIONS } from "../dist/provider/registry";
import { cpuClock, newWorkspace, svcConfig } from "./emulator-process";
import { StackRunner, configureAll, type PhaseResult } from "./runner";
import { mixedStack, stackKinds } from "./stack";

export interface LoggedCall {
  method: string;
  path: string;
  status: number;
  /** When the emulator answered (ISO 8601). */
  time: string;
}

export interface PhaseMeasure {
  phase: string;
  ms: number;
  calls: number;
  writes: number;
  reads: number;
  ops: Record<string, number>;
  errors: number;
  firstError?: string;
  /** Catalog listings (GET /webhooks/v1/event-types) made in the phase. */
  catalogListings: number;
  /** Per kind's list path: how many list pages were fetched. */
  listPages: number;
  retries: number;
  /** CPU time (ms) the provider process and the emulator process spent in the phase. */
  providerCpuMs?: number;
  emulatorCpuMs?: number;
}

export interface DirectResult {
  size: number;
  kinds: string[];
  phases: PhaseMeasure[];
  maxRssMb: number;
}

export async function logSince(url: string, since: number): Promise<LoggedCall[]> {
  const res = await fetch(`${url}/_emulator/requests?since=${since}`);
  return ((await res.json()) as { requests: LoggedCall[] }).requests;
}

export async function lastSeq(url: string): Promise<number> {
  const res = await fetch(`${url}/_emulator/requests?since=999999999`);
  return ((await res.json()) as { last_seq: number }).last_seq;
}

const LIST_PATHS = new Set(Object.values(DEFINITIONS).map((d) => `/${d!.product}${d!.paths.create}`));

export function summarise(phase: string, ms: number, log: LoggedCall[], result?: PhaseResult, retries = 0): PhaseMeasure {
  const reads = log.filter((c) => c.method === "GET").length;
  return {
    phase,
    ms,
    calls: log.length,
    writes: log.length - reads,
    reads,
    ops: result?.ops ?? {},
    errors: result?.errors.length ?? 0,
    firstError: result?.errors[0] ? `${result.errors[0].name}: ${result.errors[0].message}` : undefined,
    catalogListings: log.filter((c) => c.method === "GET" && c.path === "/webhooks/v1/event-types").length,
    listPages: log.filter((c) => c.method === "GET" && LIST_PATHS.has(c.path)).length,
    retries,
  };
}

async function main() {
  const { values } = parseArgs({ options: { url: { type: "string" }, size: { type: "string" }, parallel: { type: "string", default: "16" }, "emulator-pid": { type: "string" }, profile: { type: "string" }, "profile-out": { type: "string" } } });
  const emulatorPid = values["emulator-pid"] ? Number(values["emulator-pid"]) : undefined;
  const url = values.url!;
  const size = Number(values.size);
  const ws = await newWorkspace(url, `bench-direct-${size}`);
  await configureAll(svcConfig(url, ws), providers);
  const kinds = stackKinds(Object.keys(DEFINITIONS));
  const v1 = mixedStack(size, 1, kinds);
  const v2 = mixedStack(size, 2, kinds);
  const runner = new StackRunner(Number(values.parallel), providers);
  const phases: PhaseMeasure[] = [];
  const profiler = values.profile ? new Session() : undefined;
  profiler?.connect();
  const measure = async (phase: string, f: () => Promise<PhaseResult>) => {
    startOperation(); // each engine run is a new plugin process: nothing cached from the last one
    resetClientStats();
    const profiled = profiler && phase === values.profile;
    if (profiled) await profiler.post("Profiler.enable").then(() => profiler.post("Profiler.start"));
    const since = await lastSeq(url);
    const cpu = cpuClock(emulatorPid);
    const started = performance.now();
    const result = await f();
    const ms = performance.now() - started;
    const { ownCpuMs, emulatorCpuMs } = cpu();
    if (profiled) {
      const out = values["profile-out"] ?? join(tmpdir(), `svc-${phase.replace(/\W+/g, "-")}-${size}.cpuprofile`);
      writeFileSync(out, JSON.stringify((await profiler.post("Profiler.stop")).profile));
      process.stderr.write(`CPU profile of ${phase}: ${out}\n`);
    }
    phases.push({ ...summarise(phase, ms, await logSince(url, since), result, clientStats().retries), providerCpuMs: ownCpuMs, emulatorCpuMs });
  };
  await measure("preview", () => runner.preview(v1));
  await measure("up", () => runner.up(v1));
  await measure("update", () => runner.up(v2));
  await measure("no-op preview", () => runner.preview(v2));
  await measure("no-op up", () => runner.up(v2));
  process.env.SVC_BATCHED_READS = "0";
  await measure("refresh (GET each, before)", () => runner.refresh());
  delete process.env.SVC_BATCHED_READS;
  await new Promise((r) => setTimeout(r, 1_100)); // a new burst
  await measure("refresh", () => runner.refresh());
  await measure("destroy", () => runner.destroy());
  await closeSharedDispatcher();
  const result: DirectResult = { size, kinds, phases, maxRssMb: Math.round(process.resourceUsage().maxRSS / 1024) };
  process.stdout.write(`${JSON.stringify(result)}\n`);
}

if (require.main === module) {
  main().catch((err) => {
    process.stderr.write(`${(err as Error).stack}\n`);
    process.exit(1);
  });
}
