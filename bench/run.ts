/**
 * `npm run bench [-- --sizes 10,100,1000 --engine-sizes 10,100,1000 --parallel 16 --rounds 3 --record]`
 *
 * Stacks of mixed resources (bench/stack.ts) against the emulator in its own process
 * (plan enterprise), for each size:
 *   - provider, direct: the provider's own operations (check, diff, create, update,
 *     read, delete) at the engine's concurrency (bench/direct.ts);
 *   - floor: the same minimal HTTP calls issued with undici at the same concurrency
 *     (bench/floor.ts);
 *   both in fresh child processes started the same way, cold like a real plugin, each
 *   in a workspace of its own. One untimed round of both warms the emulator first; then
 *   `--rounds` rounds, each a provider run then a floor run (interleaved, so drift hits
 *   both); per phase the median wall time of each side, its min–max, the ratio of the
 *   medians, and the median CPU time of the provider and of the emulator;
 *   - engine (at the smaller sizes): the real program and dynamic-provider plugin
 *     through the engine stand-in (test/engine), plugin RSS sampled from /proc.
 * API calls are counted from the emulator's request log. Writes stack.md (tables,
 * targets) and stack.svg (time against stack size) to bench/.scratch, or with
 * `--record` to the committed bench/results (bench/output.ts).
 */
import { spawn } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { DEFINITIONS } from "../provider/registry";
import { runEngine } from "../test/engine/engine";
import { lineChart, type Series } from "./chart";
import { benchOutput, RECORD_OPTION } from "./output";
import { lastSeq, logSince, summarise, type DirectResult, type PhaseMeasure } from "./direct";
import { newWorkspace, startEmulatorProcess } from "./emulator-process";
import type { FloorPhase, FloorResult } from "./floor";
import { stackKinds } from "./stack";


/** Runs one bench/<file> in a fresh Node process (as tsx would) and parses the JSON line it prints last. */
function runChild<T>(file: string, args: string[]): Promise<T> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--require", require.resolve("tsx/cjs"), join(__dirname, file), ...args], { stdio: ["ignore", "pipe", "inherit"] });
    let out = "";
    child.stdout.on("data", (c: Buffer) => (out += c.toString()));
    child.on("error", reject);
    child.on("exit", (code) => {
      if (code !== 0) return reject(new Error(`${file} ${args.join(" ")} exited with ${code}`));
      resolve(JSON.parse(out.trim().split("\n").pop() ?? "") as T);
    });
  });
}

/** Peak RSS (MB) of this process's dynamic-provider plugin children while `f` runs. */
async function withPluginRss<T>(f: () => Promise<T>): Promise<{ result: T; rssMb: number }> {
  let peakKb = 0;
  const sample = () => {
    for (const pid of readdirSync("/proc").filter((d) => /^\d+$/.test(d))) {
      try {
        const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
        const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
        if (ppid !== process.pid || !readFileSync(`/proc/${pid}/cmdline`, "utf8").includes("dynamic-provider")) continue;
        const m = /VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
        if (m) peakKb = Math.max(peakKb, Number(m[1]));
      } catch {
        // the process ended meanwhile
      }
    }
  };
  const timer = setInterval(sample, 100);
  try {
    const result = await f();
    return { result, rssMb: Math.round(peakKb / 1024) };
  } finally {
    clearInterval(timer);
  }
}

interface EngineRun {
  phases: PhaseMeasure[];
  rssMb: number;
}

async function runStandIn(url: string, size: number, parallel: number): Promise<EngineRun> {
  const ws = await newWorkspace(url, `bench-engine-${size}`);
  const dir = mkdtempSync(join(tmpdir(), "svc-bench-"));
  const kinds = stackKinds(Object.keys(DEFINITIONS));
  const phases: PhaseMeasure[] = [];
  let rssMb = 0;
  try {
    const run = async (phase: string, verb: "preview" | "up" | "refresh" | "destroy", variant: number) => {
      const since = await lastSeq(url);
      const started = performance.now();
      const { result: r, rssMb: rss } = await withPluginRss(() =>
        runEngine({
          verb,
          cwd: join(__dirname, "program"),
          stack: `bench${size}`,
          stateFile: join(dir, "state.json"),
          parallel,
          // One save at the end, not a checkpoint per step: at 1,000 resources the state file is about
          // 7 MB and a checkpoint per step makes the engine's own writes the run (quadratic).
          skipCheckpoints: true,
          config: {
            "bench:count": String(size),
            "bench:variant": String(variant),
            "bench:kinds": JSON.stringify(kinds),
            "svc:webhooksUrl": `${url}/webhooks`,
            "svc:inboxesUrl": `${url}/inboxes`,
            "svc:infraUrl": `${url}/infra`,
          },
          secrets: { "svc:webhooksApiKey": ws.webhooks!.admin, "svc:inboxesApiKey": ws.inboxes!.admin, "svc:infraApiKey": ws.infra!.admin },
          env: { SVC_WEBHOOKS_API_KEY: "", SVC_INBOXES_API_KEY: "", SVC_INFRA_API_KEY: "" },
        }),
      );
      const ms = performance.now() - started;
      rssMb = Math.max(rssMb, rss);
      const ops: Record<string, number> = {};
      for (const s of r.steps) if (s.type.includes("svc/")) ops[s.op] = (ops[s.op] ?? 0) + 1;
      const errors = r.diagnostics.filter((d) => d.severity === "error");
      const m = summarise(phase, ms, await logSince(url, since));
      phases.push({ ...m, ops, errors: r.ok ? 0 : Math.max(1, errors.length), firstError: errors[0]?.message.slice(0, 300) });
    };
    await run("preview", "preview", 1);
    await run("up", "up", 1);
    await run("update", "up", 2);
    await run("no-op preview", "preview", 2);
    await run("no-op up", "up", 2);
    await run("refresh", "refresh", 2);
    await run("destroy", "destroy", 2);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return { phases, rssMb };
}

const FLOOR_OF: Record<string, string> = { up: "up", update: "update", refresh: "refresh", "refresh (GET each, before)": "refresh", destroy: "destroy" };
const fmtMs = (ms: number) => (ms >= 1000 ? `${(ms / 1000).toFixed(2)} s` : `${Math.round(ms)} ms`);

/** Median, min and max of one measure over the rounds. */
interface Spread {
  median: number;
  min: number;
  max: number;
}

function spread(values: number[]): Spread {
  const v = [...values].sort((a, b) => a - b);
  const mid = v.length >> 1;
  return { median: v.length % 2 ? v[mid]! : (v[mid - 1]! + v[mid]!) / 2, min: v[0]!, max: v[v.length - 1]! };
}

/** "522 ms (480–560)": the median, then min–max in the median's unit. */
function fmtSpread(s: Spread): string {
  if (s.min === s.max) return fmtMs(s.median);
  const range = s.median >= 1000 ? `${(s.min / 1000).toFixed(2)}–${(s.max / 1000).toFixed(2)}` : `${Math.round(s.min)}–${Math.round(s.max)}`;
  return `${fmtMs(s.median)} (${range})`;
}

/** A count over the rounds: the one value, or min–max where the rounds differ. */
function fmtCount(values: number[]): string {
  const s = spread(values);
  return s.min === s.max ? String(s.min) : `${s.min}–${s.max}`;
}

/** Median CPU ms over the rounds; "—" where a round could not measure it (no /proc). */
function fmtCpu(values: (number | undefined)[]): string {
  return values.every((v) => v !== undefined) ? `${Math.round(spread(values as number[]).median)} ms` : "—";
}

/** One size: the measured rounds of each side, in order (the warm-up round is not among them). */
interface SizeRounds {
  size: number;
  direct: DirectResult[];
  floor: FloorResult[];
}

/** A phase over the rounds: the provider's measure in each, and the floor's where the phase has a floor. */
function phaseRounds(s: SizeRounds, name: string): { p: PhaseMeasure[]; f?: FloorPhase[] } {
  const p = s.direct.map((d) => d.phases.find((x) => x.phase === name)!);
  const floorName = FLOOR_OF[name];
  return { p, f: floorName ? s.floor.map((r) => r.phases[floorName]!) : undefined };
}

const msOf = (xs: { ms: number }[]) => spread(xs.map((x) => x.ms));

async function main() {
  const { values } = parseArgs({
    options: {
      sizes: { type: "string", default: "10,100,1000" },
      "engine-sizes": { type: "string", default: "10,100,1000" },
      parallel: { type: "string", default: "16" },
      rounds: { type: "string", default: "3" },
      ...RECORD_OPTION,
    },
  });
  const sizes = values.sizes!.split(",").map(Number);
  const engineSizes = new Set(values["engine-sizes"]!.split(",").filter(Boolean).map(Number));
  const parallel = Number(values.parallel);
  const rounds = Number(values.rounds);
  if (!Number.isInteger(rounds) || rounds < 1) throw new Error(`--rounds must be a whole number ≥ 1, not ${values.rounds}`);
  const emu = await startEmulatorProcess(["--plan", "enterprise"]);
  const measured: SizeRounds[] = [];
  const engines: Record<number, EngineRun> = {};
  try {
    for (const size of sizes) {
      const args = ["--url", emu.url, "--size", String(size), "--parallel", String(parallel), "--emulator-pid", String(emu.pid)];
      const round = async () => ({ direct: await runChild<DirectResult>("direct.ts", args), floor: await runChild<FloorResult>("floor.ts", args) });
      process.stderr.write(`size ${size}: warm-up round (provider, floor; discarded)...\n`);
      await round();
      const s: SizeRounds = { size, direct: [], floor: [] };
      for (let r = 1; r <= rounds; r++) {
        const { direct, floor } = await round();
        s.direct.push(direct);
        s.floor.push(floor);
        const up = direct.phases.find((p) => p.phase === "up")!;
        process.stderr.write(`size ${size}: round ${r}/${rounds}: up ${fmtMs(up.ms)} provider, ${fmtMs(floor.phases.up!.ms)} floor\n`);
      }
      measured.push(s);
      if (engineSizes.has(size)) {
        process.stderr.write(`size ${size}: engine stand-in...\n`);
        engines[size] = await runStandIn(emu.url, size, parallel);
      }
    }
  } finally {
    emu.stop();
  }

  const kinds = measured[0]?.direct[0]?.kinds ?? [];
  const lines: string[] = [];
  lines.push(`Measured ${new Date().toISOString()} with \`npm run bench\` (${process.platform}, ${(await import("node:os")).cpus().length} CPUs, Node ${process.version}); emulator in its own process; concurrency ${parallel} (the stand-in's \`--parallel\` default).`);
  lines.push(`Stack: ${kinds.join(", ")}, round-robin (bench/stack.ts). The one-field update changes a description, name or label: one PATCH each, except kinds the API cannot update (event types, operational endpoints): a replacement, DELETE + POST.`);
  lines.push(`Provider and floor each run in a fresh process; per size one untimed round of both warms the emulator, then ${rounds} round(s), each a provider run then a floor run. Times are medians (min–max over the rounds); provider / floor is the ratio of the medians; CPU columns are medians, the emulator's from /proc (10 ms resolution).`);
  lines.push("");
  lines.push("### Provider operations (direct) against the floor");
  lines.push("");
  lines.push("| resources | phase | provider | API calls (writes) | floor | floor calls | provider / floor | provider CPU | emulator CPU (provider run) | floor CPU | emulator CPU (floor run) | errors |");
  lines.push("|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
  for (const s of measured) {
    for (const { phase } of s.direct[0]!.phases) {
      const { p, f } = phaseRounds(s, phase);
      const errors = p.reduce((n, x) => n + x.errors, 0);
      const firstError = p.find((x) => x.firstError)?.firstError;
      const floorCells = f
        ? [fmtSpread(msOf(f)), fmtCount(f.map((x) => x.calls)), `${(msOf(p).median / msOf(f).median).toFixed(2)}×`]
        : ["0 (no call needed)", "0", "—"];
      lines.push(
        `| ${s.size} | ${phase} | ${fmtSpread(msOf(p))} | ${fmtCount(p.map((x) => x.calls))} (${fmtCount(p.map((x) => x.writes))}) | ${floorCells.join(" | ")} | ` +
          `${fmtCpu(p.map((x) => x.providerCpuMs))} | ${fmtCpu(p.map((x) => x.emulatorCpuMs))} | ${f ? fmtCpu(f.map((x) => x.cpuMs)) : "—"} | ${f ? fmtCpu(f.map((x) => x.emulatorCpuMs)) : "—"} | ` +
          `${errors}${firstError ? ` (${firstError.slice(0, 80)})` : ""} |`,
      );
    }
  }
  lines.push("");
  lines.push(`Peak RSS of the provider process (direct runs, max over ${rounds} round(s)): ` + measured.map((s) => `${s.size}: ${Math.max(...s.direct.map((d) => d.maxRssMb))} MB`).join(", ") + ".");
  if (Object.keys(engines).length) {
    lines.push("");
    lines.push("### Through the engine stand-in (real program, real dynamic-provider plugin)");
    lines.push("");
    lines.push("| resources | phase | wall time | API calls (writes) | steps | ok |");
    lines.push("|---:|---|---:|---:|---|---|");
    for (const [size, e] of Object.entries(engines)) {
      for (const p of e.phases) lines.push(`| ${size} | ${p.phase} | ${fmtMs(p.ms)} | ${p.calls} (${p.writes}) | ${JSON.stringify(p.ops)} | ${p.errors ? `no: ${p.firstError ?? ""}` : "yes"} |`);
    }
    lines.push("");
    lines.push("Peak RSS of the dynamic-provider plugin: " + Object.entries(engines).map(([s, e]) => `${s}: ${e.rssMb} MB`).join(", ") + ".");
  }

  // Targets (reported, not asserted); times are medians over the rounds, counts the worst round.
  lines.push("");
  lines.push("### Targets");
  lines.push("");
  const largest = measured[measured.length - 1]!;
  for (const name of ["up", "update", "refresh", "destroy"]) {
    const { p, f } = phaseRounds(largest, name);
    const ratio = msOf(p).median / msOf(f!).median;
    lines.push(`- ${name} at ${largest.size}: provider ${fmtSpread(msOf(p))} vs floor ${fmtSpread(msOf(f!))} = ${ratio.toFixed(2)}× (medians; target ≤ 1.2×): ${ratio <= 1.2 ? "met" : "NOT met"}`);
  }
  const noopWrites = [...measured.flatMap((s) => s.direct.flatMap((d) => d.phases)), ...Object.values(engines).flatMap((e) => e.phases)].filter((p) => p.phase.startsWith("no-op"));
  lines.push(`- no-op up and no-op preview make zero write calls: ${noopWrites.every((p) => p.writes === 0) ? "met" : "NOT met"} (${noopWrites.map((p) => p.writes).join(", ")} writes)`);
  for (const s of measured) {
    const kindCount = s.direct[0]!.kinds.length;
    const r = phaseRounds(s, "refresh").p;
    const before = phaseRounds(s, "refresh (GET each, before)").p;
    const calls = Math.max(...r.map((x) => x.calls));
    const perKind = Math.ceil(s.size / Math.max(1, kindCount));
    const bound = kindCount * (Math.ceil(perKind / 200) + 3);
    lines.push(
      `- refresh of ${s.size} (${kindCount} kinds, ≤ ${perKind} each): ${fmtCount(r.map((x) => x.calls))} calls, ${fmtCount(r.map((x) => x.listPages))} of them list pages ` +
        `(before batching: ${fmtCount(before.map((x) => x.calls))} calls, ${fmtMs(msOf(before).median)} → ${fmtMs(msOf(r).median)}); target ≤ ${bound} (ceil(N/200) + 3 per kind): ${calls <= bound ? "met" : "NOT met"}`,
    );
    const listings = Math.max(...phaseRounds(s, "preview").p.map((x) => x.catalogListings));
    lines.push(`- preview of ${s.size}: ${listings} catalog listing(s) for 1 scope (target ≤ 1 per scope): ${listings <= 1 ? "met" : "NOT met"}`);
  }
  const table = lines.join("\n");
  process.stdout.write(`\n${table}\n`);

  const series: Series[] = [];
  const palette: Record<string, string> = { up: "#1f77b4", update: "#2ca02c", refresh: "#9467bd", destroy: "#d62728" };
  for (const name of ["up", "update", "refresh", "destroy"]) {
    series.push({ label: `${name} (provider)`, color: palette[name]!, points: measured.map((s) => ({ x: s.size, y: msOf(phaseRounds(s, name).p).median })) });
    series.push({ label: `${name} (floor)`, color: palette[name]!, dashed: true, points: measured.map((s) => ({ x: s.size, y: msOf(phaseRounds(s, name).f!).median })) });
  }
  const eng = Object.entries(engines);
  if (eng.length) series.push({ label: "up (engine stand-in)", color: "#ff7f0e", points: eng.map(([s, e]) => ({ x: Number(s), y: e.phases.find((p) => p.phase === "up")!.ms })) });
  const out = benchOutput(values.record);
  out.write("stack.svg", lineChart("Wall time against stack size (log-log, medians)", "resources in the stack", "wall time", series));
  out.write("stack.md", `# Stack benchmark\n\n${table}\n\n![time against stack size](stack.svg)\n`);
  process.stdout.write(`\n${out.report()}`);
}

main().catch((err) => {
  process.stderr.write(`${(err as Error).stack}\n`);
  process.exit(1);
});
