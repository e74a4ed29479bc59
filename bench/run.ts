/**
 * `npm run bench [-- --sizes 10,100,1000 --engine-sizes 10,100 --parallel 16]`
 *
 * Stacks of mixed resources (bench/stack.ts) against the emulator in its own process
 * (plan enterprise), for each size:
 *   - provider, direct: the provider's own operations (check, diff, create, update,
 *     read, delete) at the engine's concurrency, in a child process (its peak RSS);
 *   - floor: the same minimal HTTP calls issued with undici at the same concurrency
 *     (bench/floor.ts), so the provider's overhead is a ratio from the same run;
 *   - engine (at the smaller sizes): the real program and dynamic-provider plugin
 *     through the engine stand-in (test/engine), plugin RSS sampled from /proc.
 * API calls are counted from the emulator's request log. Writes bench/results/
 * stack.md (tables, targets) and stack.svg (time against stack size).
 */
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { DEFINITIONS } from "../provider/registry";
import { runEngine } from "../test/engine/engine";
import { lineChart, type Series } from "./chart";
import { lastSeq, logSince, summarise, type DirectResult, type PhaseMeasure } from "./direct";
import { startEmulatorProcess } from "./emulator-process";
import { Floor, type FloorPhase } from "./floor";
import { mixedStack, stackKinds } from "./stack";

const root = join(__dirname, "..");

function runDirect(url: string, size: number, parallel: number): Promise<DirectResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--require", require.resolve("tsx/cjs"), join(__dirname, "direct.ts"), "--url", url, "--size", String(size), "--parallel", String(parallel)], { stdio: ["ignore", "pipe", "inherit"] });
    let out = "";
    child.stdout.on("data", (c: Buffer) => (out += c.toString()));
    child.on("exit", (code) => {
      const line = out.trim().split("\n").pop() ?? "";
      if (code !== 0) return reject(new Error(`direct run of ${size} exited with ${code}`));
      resolve(JSON.parse(line) as DirectResult);
    });
  });
}

async function newWorkspace(url: string, name: string): Promise<Record<string, { admin: string }>> {
  const res = await fetch(`${url}/_emulator/workspaces`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ plan: "enterprise", name }) });
  return (await res.json()) as Record<string, { admin: string }>;
}

async function runFloor(url: string, size: number, parallel: number): Promise<Record<string, FloorPhase>> {
  const ws = await newWorkspace(url, `bench-floor-${size}`);
  const conns = Object.fromEntries(["webhooks", "inboxes", "infra"].map((p) => [p, { baseUrl: `${url}/${p}`, key: ws[p]!.admin }]));
  const kinds = stackKinds(Object.keys(DEFINITIONS));
  const v1 = mixedStack(size, 1, kinds);
  const v2 = mixedStack(size, 2, kinds);
  const floor = new Floor(conns, parallel);
  const out: Record<string, FloorPhase> = {};
  out.up = await floor.create(v1);
  out.update = await floor.update(v1, v2);
  out.refresh = await floor.refresh(v2);
  out.destroy = await floor.destroy(v2);
  await floor.close();
  return out;
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

async function main() {
  const { values } = parseArgs({
    options: { sizes: { type: "string", default: "10,100,1000" }, "engine-sizes": { type: "string", default: "10,100" }, parallel: { type: "string", default: "16" } },
  });
  const sizes = values.sizes!.split(",").map(Number);
  const engineSizes = new Set(values["engine-sizes"]!.split(",").filter(Boolean).map(Number));
  const parallel = Number(values.parallel);
  const emu = await startEmulatorProcess(["--plan", "enterprise"]);
  const direct: DirectResult[] = [];
  const floors: Record<number, Record<string, FloorPhase>> = {};
  const engines: Record<number, EngineRun> = {};
  try {
    for (const size of sizes) {
      process.stderr.write(`size ${size}: provider direct...\n`);
      direct.push(await runDirect(emu.url, size, parallel));
      process.stderr.write(`size ${size}: floor...\n`);
      floors[size] = await runFloor(emu.url, size, parallel);
      if (engineSizes.has(size)) {
        process.stderr.write(`size ${size}: engine stand-in...\n`);
        engines[size] = await runStandIn(emu.url, size, parallel);
      }
    }
  } finally {
    emu.stop();
  }

  const kinds = direct[0]?.kinds ?? [];
  const lines: string[] = [];
  lines.push(`Measured ${new Date().toISOString()} with \`npm run bench\` (${process.platform}, ${(await import("node:os")).cpus().length} CPUs, Node ${process.version}); emulator in its own process; concurrency ${parallel} (the stand-in's \`--parallel\` default).`);
  lines.push(`Stack: ${kinds.join(", ")}, round-robin (bench/stack.ts). The one-field update changes a description, name or label: one PATCH each, except kinds the API cannot update (event types, operational endpoints): a replacement, DELETE + POST.`);
  lines.push("");
  lines.push("### Provider operations (direct) against the floor");
  lines.push("");
  lines.push("| resources | phase | provider | API calls (writes) | floor | floor calls | provider / floor | errors |");
  lines.push("|---:|---|---:|---:|---:|---:|---:|---:|");
  for (const d of direct) {
    for (const p of d.phases) {
      const f = FLOOR_OF[p.phase] ? floors[d.size]![FLOOR_OF[p.phase]!] : undefined;
      lines.push(`| ${d.size} | ${p.phase} | ${fmtMs(p.ms)} | ${p.calls} (${p.writes}) | ${f ? fmtMs(f.ms) : "0 (no call needed)"} | ${f ? f.calls : 0} | ${f ? `${(p.ms / f.ms).toFixed(2)}×` : "—"} | ${p.errors}${p.firstError ? ` (${p.firstError.slice(0, 80)})` : ""} |`);
    }
  }
  lines.push("");
  lines.push("Peak RSS of the provider process (direct runs): " + direct.map((d) => `${d.size}: ${d.maxRssMb} MB`).join(", ") + ".");
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

  // Targets (reported, not asserted).
  lines.push("");
  lines.push("### Targets");
  lines.push("");
  const largest = direct[direct.length - 1]!;
  const phaseOf = (d: DirectResult, name: string) => d.phases.find((p) => p.phase === name)!;
  for (const name of ["up", "update", "refresh", "destroy"]) {
    const p = phaseOf(largest, name);
    const f = floors[largest.size]![name]!;
    const ratio = p.ms / f.ms;
    lines.push(`- ${name} at ${largest.size}: provider ${fmtMs(p.ms)} vs floor ${fmtMs(f.ms)} = ${ratio.toFixed(2)}× (target ≤ 1.2×): ${ratio <= 1.2 ? "met" : "NOT met"}`);
  }
  const noopWrites = [...direct.flatMap((d) => d.phases), ...Object.values(engines).flatMap((e) => e.phases)].filter((p) => p.phase.startsWith("no-op"));
  lines.push(`- no-op up and no-op preview make zero write calls: ${noopWrites.every((p) => p.writes === 0) ? "met" : "NOT met"} (${noopWrites.map((p) => p.writes).join(", ")} writes)`);
  for (const d of direct) {
    const r = phaseOf(d, "refresh");
    const before = phaseOf(d, "refresh (GET each, before)");
    const perKind = Math.ceil(d.size / Math.max(1, d.kinds.length));
    const bound = d.kinds.length * (Math.ceil(perKind / 200) + 3);
    lines.push(`- refresh of ${d.size} (${d.kinds.length} kinds, ≤ ${perKind} each): ${r.calls} calls, ${r.listPages} of them list pages (before batching: ${before.calls} calls, ${fmtMs(before.ms)} → ${fmtMs(r.ms)}); target ≤ ${bound} (ceil(N/200) + 3 per kind): ${r.calls <= bound ? "met" : "NOT met"}`);
    const pv = phaseOf(d, "preview");
    lines.push(`- preview of ${d.size}: ${pv.catalogListings} catalog listing(s) for 1 scope (target ≤ 1 per scope): ${pv.catalogListings <= 1 ? "met" : "NOT met"}`);
  }
  const table = lines.join("\n");
  process.stdout.write(`\n${table}\n`);

  const series: Series[] = [];
  const palette: Record<string, string> = { up: "#1f77b4", update: "#2ca02c", refresh: "#9467bd", destroy: "#d62728" };
  for (const name of ["up", "update", "refresh", "destroy"]) {
    series.push({ label: `${name} (provider)`, color: palette[name]!, points: direct.map((d) => ({ x: d.size, y: phaseOf(d, name).ms })) });
    series.push({ label: `${name} (floor)`, color: palette[name]!, dashed: true, points: direct.map((d) => ({ x: d.size, y: floors[d.size]![name]!.ms })) });
  }
  const eng = Object.entries(engines);
  if (eng.length) series.push({ label: "up (engine stand-in)", color: "#ff7f0e", points: eng.map(([s, e]) => ({ x: Number(s), y: e.phases.find((p) => p.phase === "up")!.ms })) });
  mkdirSync(join(root, "bench/results"), { recursive: true });
  writeFileSync(join(root, "bench/results/stack.svg"), lineChart("Wall time against stack size (log-log)", "resources in the stack", "wall time", series));
  writeFileSync(join(root, "bench/results/stack.md"), `# Stack benchmark\n\n${table}\n\n![time against stack size](stack.svg)\n`);
  process.stdout.write(`\nwrote bench/results/stack.md and bench/results/stack.svg\n`);
}

main().catch((err) => {
  process.stderr.write(`${(err as Error).stack}\n`);
  process.exit(1);
});
