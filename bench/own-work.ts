/**
 * `npm run bench:own-work [-- --size 1000 --passes 6]`
 *
 * How much of the benchmark's one-field update is the provider's own work (check,
 * diff, planning, turning answers into outputs), with the HTTP taken out:
 *   1. record: against an emulator started here, the benchmark's preview, up and
 *      update of the mixed stack, through the compiled provider, keeping every answer
 *      of the service by request (method, path, body);
 *   2. replay, in a fresh process: the same preview and up (so the process has run
 *      the same code as the benchmark's provider process before its update), then the
 *      update `--passes` times from the recorded state, every call answered from the
 *      recording at once.
 * Prints the first update's wall and CPU time (what the benchmark's update pays: its
 * JIT is as cold) and the median of the later ones (warm). CPU above wall is V8
 * compiling and collecting on its own threads.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { startOperation, closeSharedDispatcher, providers } from "../dist/provider";
import { SvcClient, type RequestOptions } from "../dist/provider/client";
import { DEFINITIONS } from "../dist/provider/registry";
import { newWorkspace, startEmulatorProcess } from "./emulator-process";
import { configureAll, StackRunner, type Held } from "./runner";
import { mixedStack, stackKinds } from "./stack";

interface Recording {
  config: Record<string, string>;
  /** The state after the up: where every update starts from. */
  state: [string, Held][];
  answers: Record<string, unknown>;
}

const requestKey = (o: RequestOptions) => `${o.method} ${o.path} ${o.body === undefined ? "" : JSON.stringify(o.body)}`;

function stacks(size: number) {
  const kinds = stackKinds(Object.keys(DEFINITIONS));
  return { v1: mixedStack(size, 1, kinds), v2: mixedStack(size, 2, kinds) };
}

async function record(size: number, file: string): Promise<void> {
  const emu = await startEmulatorProcess(["--plan", "enterprise"]);
  try {
    const ws = await newWorkspace(emu.url, `own-work-${size}`);
    const config: Record<string, string> = {};
    for (const product of ["webhooks", "inboxes", "infra"]) {
      config[`svc:${product}Url`] = `${emu.url}/${product}`;
      config[`svc:${product}ApiKey`] = ws[product]!.admin;
    }
    await configureAll(config, providers);
    const answers: Record<string, unknown> = {};
    const send = SvcClient.prototype.request;
    SvcClient.prototype.request = async function (this: SvcClient, o: RequestOptions) {
      const answer = await send.call(this, o);
      answers[requestKey(o)] = answer;
      return answer;
    } as typeof send;
    const { v1, v2 } = stacks(size);
    const runner = new StackRunner(16, providers);
    await runner.preview(v1);
    startOperation();
    await runner.up(v1);
    const state = structuredClone([...runner.state]);
    startOperation();
    await runner.up(v2);
    writeFileSync(file, JSON.stringify({ config, state, answers } satisfies Recording));
  } finally {
    await closeSharedDispatcher();
    emu.stop();
  }
}

async function replay(file: string, size: number, passes: number): Promise<void> {
  const { config, state, answers } = JSON.parse(readFileSync(file, "utf8")) as Recording;
  await configureAll(config, providers);
  SvcClient.prototype.request = async function (o: RequestOptions) {
    const answer = answers[requestKey(o)];
    if (!answer) throw new Error(`own-work: nothing recorded for ${requestKey(o)}`);
    return answer;
  } as typeof SvcClient.prototype.request;
  const { v1, v2 } = stacks(size);
  const runner = new StackRunner(16, providers);
  await runner.preview(v1);
  startOperation();
  await runner.up(v1);
  const runs: { ms: number; cpuMs: number }[] = [];
  for (let pass = 0; pass < passes; pass++) {
    runner.state.clear();
    for (const [name, held] of structuredClone(state)) runner.state.set(name, held);
    startOperation();
    const cpu = process.cpuUsage();
    const started = performance.now();
    const result = await runner.up(v2);
    const ms = performance.now() - started;
    const used = process.cpuUsage(cpu);
    if (result.errors.length) throw new Error(`own-work: ${result.errors[0]!.name}: ${result.errors[0]!.message}`);
    runs.push({ ms, cpuMs: (used.user + used.system) / 1000 });
  }
  const later = runs.slice(1).sort((a, b) => a.ms - b.ms);
  const warm = later[later.length >> 1] ?? runs[0]!;
  const fmt = (r: { ms: number; cpuMs: number }) => `${r.ms.toFixed(0)} ms (CPU ${r.cpuMs.toFixed(0)} ms)`;
  process.stdout.write(`update of ${size}, the provider's own work (HTTP answered from a recording): first ${fmt(runs[0]!)}, warm ${fmt(warm)} (median of ${later.length})\n`);
}

async function main() {
  const { values } = parseArgs({ options: { size: { type: "string", default: "1000" }, passes: { type: "string", default: "6" }, replay: { type: "string" } } });
  const size = Number(values.size);
  if (values.replay) return replay(values.replay, size, Number(values.passes));
  const dir = mkdtempSync(join(tmpdir(), "svc-own-work-"));
  try {
    const file = join(dir, "recording.json");
    await record(size, file);
    const child = spawnSync(process.execPath, ["--require", require.resolve("tsx/cjs"), __filename, "--replay", file, "--size", String(size), "--passes", values.passes!], { stdio: "inherit" });
    if (child.status !== 0) throw new Error(`own-work replay exited with ${child.status}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (require.main === module) {
  main().catch((err) => {
    process.stderr.write(`${(err as Error).stack}\n`);
    process.exit(1);
  });
}
