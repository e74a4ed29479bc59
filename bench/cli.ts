/**
 * `npm run bench:cli [-- --resources 1000 --latency 30 --kinds inboxes:Inbox --skip-checkpoints --record]`
 *
 * A stack of pulumi-svc resources under the real Pulumi CLI (`npm run pulumi:install`),
 * against the emulator in its own process `--latency` ms away, through both front ends,
 * beside the runtime's own floor, in the same run:
 *
 * - dynamic: the TypeScript program bench/program (the SDK's dynamic resources);
 * - native: the same resources as a YAML program of `svc:*` types, written here, served
 *   by `pulumi-resource-svc` (dist/native, on PATH as the package's bin puts it);
 * - floor: the same number of minimal dynamic resources (bench/floor-program: three
 *   outputs, a provider that does nothing).
 *
 * Phases, each a `pulumi` command as users run it (checkpoints on): preview (of the
 * creates), up, no-op up, update (every resource's one field), refresh, destroy; `up`,
 * refresh and destroy with `--skip-preview` so each phase is one engine pass. The three
 * sides run one after the other within a phase, so drift of a shared machine hits
 * each. Per phase: wall time of each side, each front end against the floor, API calls
 * from the emulator's log; the state's bytes per resource after the up; the machine's
 * load average. Target: within 1.2x of the floor in every phase.
 * Writes cli.md to bench/.scratch, or with `--record` to bench/results.
 *
 * `--floor-properties N`: the floor's resources get N more string properties each (a floor
 * of a real resource's shape: the program's cost per resource grows with its properties).
 *
 * `--skip-checkpoints`: the same with PULUMI_SKIP_CHECKPOINTS=true (the engine writes the
 * state once at the end instead of after every step), written as cli-no-checkpoints.md:
 * the difference between the two tables is the time the per-step state writes take.
 *
 * Each side's CPU time is the whole run's: `pulumi`, its language host, the program and the
 * plugins, as this process counts its waited children (/proc). `--cpu-prof`: every node
 * process of every run also writes a V8 CPU profile (bench/cpu-prof-preload.cjs), summed by process and package below
 * the table (bench/cpu-profiles.ts), written as cli-...-profile.md; profiling slows the runs,
 * so its times are not the record's.
 */
import { mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { NATIVE_MISSING, nativePath } from "../test/support/native-plugin";
import { runCli } from "../test/support/pulumi-cli";
import type { EngineOptions } from "../test/support/run-types";
import { profileLines, summarizeProfiles } from "./cpu-profiles";
import { lastSeq, logSince } from "./direct";
import { cpuMsOf, newWorkspace, startEmulatorProcess, svcConfig } from "./emulator-process";
import { benchOutput, RECORD_OPTION } from "./output";
import { mixedStack, stackKinds } from "./stack";

const PHASES = [
  ["preview", "preview", 1],
  ["up", "up", 1],
  ["no-op up", "up", 1],
  ["update", "up", 2],
  ["refresh", "refresh", 2],
  ["destroy", "destroy", 2],
] as const;

const SIDES = ["dynamic", "native", "floor"] as const;
type Side = (typeof SIDES)[number];
const FRONT_ENDS = ["dynamic", "native"] as const;
const TARGET = 1.2;

/** The process environment with no svc key, so only the stack's config reaches the provider. */
const NO_ENV_KEYS = { SVC_WEBHOOKS_API_KEY: "", SVC_INBOXES_API_KEY: "", SVC_INFRA_API_KEY: "" };

/** The native side's program: bench/stack.ts's declarations as a YAML program, values written out (JSON is YAML). */
function writeNativeProgram(dir: string, size: number, variant: number, kinds: ReturnType<typeof stackKinds>): void {
  const resources = mixedStack(size, variant, kinds).map((d) => `  ${d.name}:\n    type: svc:${d.kind}\n    properties: ${JSON.stringify(d.inputs)}\n`);
  writeFileSync(join(dir, "Pulumi.yaml"), `name: svc-bench-native\nruntime: yaml\nresources:\n${resources.join("")}`);
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      resources: { type: "string", default: "1000" },
      latency: { type: "string", default: "30" },
      kinds: { type: "string", default: "inboxes:Inbox" },
      "skip-checkpoints": { type: "boolean", default: false },
      "cpu-prof": { type: "boolean", default: false },
      "floor-properties": { type: "string", default: "0" },
      ...RECORD_OPTION,
    },
  });
  if (NATIVE_MISSING) throw new Error(NATIVE_MISSING);
  const size = Number(values.resources);
  if (!Number.isInteger(size) || size < 1) throw new Error(`--resources must be a whole number of at least 1, got "${values.resources}"`);
  const kinds = values.kinds!.split(",");
  const skipCheckpoints = values["skip-checkpoints"] === true;
  const cpuProf = values["cpu-prof"] === true;
  const floorProperties = Number(values["floor-properties"]);
  if (!Number.isInteger(floorProperties) || floorProperties < 0) throw new Error(`--floor-properties must be a whole number, got "${values["floor-properties"]}"`);
  const loadBefore = loadavg();
  const emu = await startEmulatorProcess(["--latency", values.latency!]);
  const dir = mkdtempSync(join(tmpdir(), "svc-bench-cli-"));
  const nativeDir = join(dir, "native-program");
  mkdirSync(nativeDir);
  const rows: { phase: string; ms: Record<Side, number>; cpuMs: Record<Side, number>; calls: Record<Side, number> }[] = [];
  const profiles: string[] = [];
  const stateBytes: Partial<Record<Side, number>> = {};
  try {
    // One workspace per front end: each holds its own `size` objects, as two teams' stacks would.
    const secrets = { dynamic: svcConfig(emu.url, await newWorkspace(emu.url, `bench-cli-${size}`)), native: svcConfig(emu.url, await newWorkspace(emu.url, `bench-cli-native-${size}`)) };
    const benchConfig = (variant: number) => ({ "bench:count": String(size), "bench:variant": String(variant), "bench:kinds": JSON.stringify(kinds) });
    const sideOptions = (side: Side, verb: EngineOptions["verb"], variant: number): EngineOptions => {
      const common = { verb, stack: `${side}${size}`, stateFile: join(dir, `${side}.json`), skipPreview: true, skipCheckpoints };
      switch (side) {
        case "dynamic":
          return { ...common, cwd: join(__dirname, "program"), config: benchConfig(variant), secrets: secrets.dynamic, env: NO_ENV_KEYS };
        case "native":
          writeNativeProgram(nativeDir, size, variant, stackKinds(kinds));
          return { ...common, cwd: nativeDir, secrets: secrets.native, env: { ...NO_ENV_KEYS, PATH: nativePath() } };
        case "floor":
          return { ...common, cwd: join(__dirname, "floor-program"), config: { "floor:count": String(size), "floor:variant": String(variant), "floor:properties": String(floorProperties) } };
      }
    };
    for (const [phase, verb, variant] of PHASES) {
      const ms = {} as Record<Side, number>;
      const cpuMs = {} as Record<Side, number>;
      const calls = {} as Record<Side, number>;
      for (const side of SIDES) {
        const since = await lastSeq(emu.url);
        const options = sideOptions(side, verb, variant);
        const profileDir = join(dir, "profiles", `${phase}-${side}`);
        if (cpuProf) options.env = { ...options.env, NODE_OPTIONS: `--require ${join(__dirname, "cpu-prof-preload.cjs")}`, SVC_BENCH_CPU_PROF_DIR: profileDir };
        const cpuBefore = cpuMsOf(process.pid, "waited children") ?? 0;
        const started = performance.now();
        const r = await runCli(options);
        ms[side] = performance.now() - started;
        cpuMs[side] = (cpuMsOf(process.pid, "waited children") ?? 0) - cpuBefore;
        if (cpuProf) profiles.push(...profileLines(`${phase}, ${side}`, summarizeProfiles(profileDir)));
        if (!r.ok) throw new Error(`${side} ${phase} failed:\n${r.summary.slice(-3000)}`);
        calls[side] = (await logSince(emu.url, since)).length;
        if (phase === "up") stateBytes[side] = statSync(options.stateFile!).size;
        process.stderr.write(`${phase} ${side}: ${(ms[side] / 1000).toFixed(1)} s\n`);
      }
      rows.push({ phase, ms, cpuMs, calls });
    }
  } finally {
    emu.stop();
    rmSync(dir, { recursive: true, force: true });
  }
  const s = (ms: number) => (ms / 1000).toFixed(1);
  const load = (l: number[]) => l.map((x) => x.toFixed(1)).join(", ");
  const ratio = (r: (typeof rows)[number], side: Side) => r.ms[side] / r.ms.floor;
  const within = (r: (typeof rows)[number]) => FRONT_ENDS.filter((f) => ratio(r, f) <= TARGET).join(", ") || "neither";
  const table = [
    `# pulumi-svc under the real Pulumi CLI: both front ends beside the runtime's floor`,
    "",
    `${size} resources (${kinds.join(", ")}) against the emulator ${values.latency} ms away, through the dynamic front end (TypeScript program, dynamic resources) and the native one (YAML program, pulumi-resource-svc); the floor: ${size} minimal dynamic resources${floorProperties > 0 ? ` with ${floorProperties} more string properties each` : ""}. ${skipCheckpoints ? "Checkpoints off (PULUMI_SKIP_CHECKPOINTS=true: the state written once, at the end). " : ""}${new Date().toISOString()}, ${process.version}; load average (1, 5, 15 min) ${load(loadBefore)} at the start, ${load(loadavg())} at the end.`,
    "",
    `| phase | dynamic (s) | native (s) | floor (s) | dynamic / floor | native / floor | within ${TARGET}x | CPU s (dynamic, native, floor) | API calls (dynamic, native) |`,
    "|---|---|---|---|---|---|---|---|---|",
    ...rows.map((r) => `| ${r.phase} | ${s(r.ms.dynamic)} | ${s(r.ms.native)} | ${s(r.ms.floor)} | ${ratio(r, "dynamic").toFixed(2)} | ${ratio(r, "native").toFixed(2)} | ${within(r)} | ${SIDES.map((side) => s(r.cpuMs[side])).join(", ")} | ${r.calls.dynamic}, ${r.calls.native} |`),
    "",
    `State after the up, bytes per resource: ${SIDES.map((side) => `${Math.round((stateBytes[side] ?? 0) / size)} (${side})`).join(", ")}.`,
    "",
    ...(cpuProf ? ["CPU of each node process (V8 profiles; busy = every sample but idle), by package or source directory:", "", ...profiles, ""] : []),
  ].join("\n");
  const out = benchOutput(values.record);
  process.stdout.write(table);
  const variants = [floorProperties > 0 ? `floor-${floorProperties}-properties` : "", skipCheckpoints ? "no-checkpoints" : "", cpuProf ? "profile" : ""];
  out.write(`${["cli", ...variants.filter(Boolean)].join("-")}.md`, table);
  process.stdout.write(out.report());
}

main().catch((e: unknown) => {
  process.stderr.write(`bench:cli failed: ${e instanceof Error ? e.message : String(e)}\n`);
  process.exit(1);
});
