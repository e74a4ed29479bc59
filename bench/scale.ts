/**
 * The scale scenario: 1,000 resources against a remote, rate-limited service (the
 * emulator in its own process with `--latency`, then `PUT /_emulator/limits` with a
 * rate limit), the provider called directly at 64 in flight (the CLI's default on a
 * 16-core machine) and at 1,000 (a big stack's `--parallel`), and the engine stand-in
 * at `--parallel 64`.
 *
 *   npm run bench:scale [-- --size 1000 --engine-size 1000 --parallels 64,1000 --bound-only --record]
 *
 * 1. Latency 30 ms: up, one-field update, refresh, destroy; provider against the floor
 *    (the same calls sent with undici at the same concurrency, bench/floor.ts).
 *    Target: provider / floor <= 1.1 per phase.
 * 2. Rate limit 50 requests/s, burst 50, latency 30 ms: up and destroy of webhook
 *    endpoints (one key, so one bucket). Targets: wall <= 1.1 x (N - burst) / rate,
 *    429s <= 5% of the writes, 0 failed calls, 0 duplicate objects (counted in the
 *    emulator after the up).
 * 3. Both through the engine stand-in at --parallel 64; the program's own time
 *    (registering the resources: a preview, which calls no API) shown apart.
 * 4. Issue 14's bound: 120 endpoints through the stand-in at --parallel 64, 20 ms away,
 *    unlimited and then at 20 requests/s (burst 20). Target: the limited up takes at
 *    most the unlimited up + 1.5 x N / rate (9 s) and draws at most 12 answers of 429
 *    (10% of the writes). `--bound-only` runs just this one.
 *
 * Targets are printed, not asserted. Results go to a scratch folder, or with
 * `--record` to bench/results/scale.md.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { cpus, tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { startOperation, closeSharedDispatcher, providers } from "../dist/provider";
import { DEFINITIONS } from "../dist/provider/registry";
import { runEngine } from "../test/engine/engine";
import { lastSeq, logSince, type LoggedCall } from "./direct";
import { newWorkspace, startEmulatorProcess, svcConfig } from "./emulator-process";
import { Floor } from "./floor";
import { benchOutput, RECORD_OPTION } from "./output";
import { StackRunner, configureAll, type PhaseResult } from "./runner";
import { mixedStack, stackKinds, type Declared } from "./stack";

const LATENCY_MS = 30;
const RATE = 50;
const BURST = 50;
const RATE_KINDS = ["webhooks:Endpoint"];

interface Row {
  scenario: string;
  how: string;
  phase: string;
  ms: number;
  calls: number;
  writes: number;
  refused: number;
  failed: number;
  floorMs?: number;
  target: string;
  met: boolean | undefined;
  note?: string;
}

async function setLimits(url: string, body: Record<string, unknown>): Promise<void> {
  const res = await fetch(`${url}/_emulator/limits`, { method: "PUT", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  if (!res.ok) throw new Error(`PUT /_emulator/limits: ${res.status} ${await res.text()}`);
}

/** Seconds from the first write the service answered to the last: the part of a stand-in run the service's rate decides. */
function writeSpan(log: LoggedCall[]): string {
  const times = log.filter((c) => c.method !== "GET").map((c) => Date.parse(c.time));
  return times.length < 2 ? "" : `writes from first to last: ${((Math.max(...times) - Math.min(...times)) / 1000).toFixed(1)} s`;
}

const count = (log: LoggedCall[]) => ({ calls: log.length, writes: log.filter((c) => c.method !== "GET").length, refused: log.filter((c) => c.status === 429).length });

/** How many objects of the stack's kinds the workspace holds (duplicates show as more than N). */
async function objectsIn(url: string, key: string, kinds: string[]): Promise<number> {
  let total = 0;
  for (const kind of kinds) {
    const def = DEFINITIONS[kind as keyof typeof DEFINITIONS]!;
    // The bucket may be empty right after a run: wait for it like a client would.
    for (;;) {
      const res = await fetch(`${url}/${def.product}${def.paths.create}?limit=1`, { headers: { authorization: `Bearer ${key}` } });
      if (res.status === 429) {
        await new Promise((r) => setTimeout(r, 1_000));
        continue;
      }
      total += Number(((await res.json()) as { total?: number }).total ?? 0);
      break;
    }
  }
  return total;
}

async function connect(url: string, name: string) {
  const ws = await newWorkspace(url, name);
  startOperation();
  await configureAll(svcConfig(url, ws), providers);
  return ws;
}

async function timedPhase(url: string, f: () => Promise<PhaseResult | { ms: number }>) {
  const since = await lastSeq(url);
  const started = performance.now();
  const result = await f();
  const ms = performance.now() - started;
  return { ms, result, log: await logSince(url, since) };
}

async function latencyDirect(url: string, size: number, parallel: number, rows: Row[]): Promise<void> {
  const kinds = stackKinds(Object.keys(DEFINITIONS));
  const v1 = mixedStack(size, 1, kinds);
  const v2 = mixedStack(size, 2, kinds);
  await connect(url, `scale-provider-${parallel}`);
  const runner = new StackRunner(parallel, providers);
  const provider: Record<string, { ms: number; log: LoggedCall[]; failed: number }> = {};
  for (const [phase, f] of [
    ["up", () => runner.up(v1)],
    ["update", () => runner.up(v2)],
    ["refresh", () => runner.refresh()],
    ["destroy", () => runner.destroy()],
  ] as [string, () => Promise<PhaseResult>][]) {
    startOperation();
    const m = await timedPhase(url, f);
    provider[phase] = { ms: m.ms, log: m.log, failed: (m.result as PhaseResult).errors.length };
  }
  const ws = await newWorkspace(url, `scale-floor-${parallel}`);
  const floor = new Floor(Object.fromEntries(["webhooks", "inboxes", "infra"].map((p) => [p, { baseUrl: `${url}/${p}`, key: ws[p]!.admin }])), parallel);
  const floorMs: Record<string, number> = {
    up: (await floor.create(v1)).ms,
    update: (await floor.update(v1, v2)).ms,
    refresh: (await floor.refresh(v2)).ms,
    destroy: (await floor.destroy(v2)).ms,
  };
  await floor.close();
  for (const phase of Object.keys(provider)) {
    const p = provider[phase]!;
    const ratio = p.ms / floorMs[phase]!;
    rows.push({ scenario: `latency ${LATENCY_MS} ms`, how: `direct, ${parallel} in flight`, phase, ms: p.ms, ...count(p.log), failed: p.failed, floorMs: floorMs[phase], target: "provider / floor <= 1.1", met: ratio <= 1.1 });
  }
}

async function rateLimitedDirect(url: string, size: number, parallel: number, rows: Row[]): Promise<void> {
  const decls: Declared[] = mixedStack(size, 1, RATE_KINDS as never);
  const ws = await connect(url, `scale-limited-${parallel}`);
  const runner = new StackRunner(parallel, providers);
  const ideal = ((size - BURST) / RATE) * 1000;
  for (const [phase, f] of [
    ["up", () => runner.up(decls)],
    ["destroy", () => runner.destroy()],
  ] as [string, () => Promise<PhaseResult>][]) {
    // A quiet second between phases: the key's bucket is full again, as after a pause of the user.
    await new Promise((r) => setTimeout(r, 1_100));
    const m = await timedPhase(url, f);
    const c = count(m.log);
    const failed = (m.result as PhaseResult).errors.length;
    const objects = phase === "up" ? await objectsIn(url, ws.webhooks!.admin, RATE_KINDS) : undefined;
    const met = m.ms <= 1.1 * ideal && c.refused <= 0.05 * c.writes && failed === 0 && (objects === undefined || objects === size);
    rows.push({
      scenario: `rate ${RATE}/s burst ${BURST}, latency ${LATENCY_MS} ms`,
      how: `direct, ${parallel} in flight`,
      phase,
      ms: m.ms,
      ...c,
      failed,
      target: `wall <= ${((1.1 * ideal) / 1000).toFixed(1)} s, 429s <= 5% of writes, 0 failed, 0 duplicates`,
      met,
      note: objects === undefined ? undefined : `${objects} objects after the up (${objects - size} duplicates)`,
    });
  }
}

async function engine(url: string, size: number, limited: boolean, rows: Row[]): Promise<void> {
  const ws = await newWorkspace(url, `scale-engine-${limited ? "limited" : "latency"}`);
  const dir = mkdtempSync(join(tmpdir(), "svc-scale-"));
  const kinds = limited ? RATE_KINDS : stackKinds(Object.keys(DEFINITIONS));
  const scenario = limited ? `rate ${RATE}/s burst ${BURST}, latency ${LATENCY_MS} ms` : `latency ${LATENCY_MS} ms`;
  const run = (verb: "preview" | "up" | "refresh" | "destroy", variant: number) =>
    runEngine({
      verb,
      cwd: join(__dirname, "program"),
      stack: "scale",
      stateFile: join(dir, "state.json"),
      parallel: 64,
      skipCheckpoints: true,
      config: { "bench:count": String(size), "bench:variant": String(variant), "bench:kinds": JSON.stringify(kinds), "svc:webhooksUrl": `${url}/webhooks`, "svc:inboxesUrl": `${url}/inboxes`, "svc:infraUrl": `${url}/infra` },
      secrets: { "svc:webhooksApiKey": ws.webhooks!.admin, "svc:inboxesApiKey": ws.inboxes!.admin, "svc:infraApiKey": ws.infra!.admin },
      env: { SVC_WEBHOOKS_API_KEY: "", SVC_INBOXES_API_KEY: "", SVC_INFRA_API_KEY: "" },
    });
  try {
    // The program's own time: a preview registers every resource and calls check, no API write.
    const preview = await timedPhase(url, () => run("preview", 1).then(() => ({ ms: 0 })));
    const phases: [string, "up" | "refresh" | "destroy", number][] = limited
      ? [["up", "up", 1], ["destroy", "destroy", 1]]
      : [["up", "up", 1], ["update", "up", 2], ["refresh", "refresh", 2], ["destroy", "destroy", 2]];
    for (const [phase, verb, variant] of phases) {
      if (limited) await new Promise((r) => setTimeout(r, 1_100));
      let failed = 0;
      const m = await timedPhase(url, async () => {
        const r = await run(verb, variant);
        failed = r.steps.filter((s) => s.failed).length + (r.ok ? 0 : 1);
        return { ms: 0 };
      });
      rows.push({
        scenario,
        how: "engine stand-in, --parallel 64",
        phase,
        ms: m.ms,
        ...count(m.log),
        failed,
        target: "recorded",
        met: undefined,
        note: [verb === "up" || verb === "destroy" ? `program alone (preview): ${(preview.ms / 1000).toFixed(1)} s` : "", writeSpan(m.log)].filter(Boolean).join("; ") || undefined,
      });
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const BOUND = { size: 120, rate: 20, burst: 20, latencyMs: 20 };

/** Scenario 4: the same up of 120 endpoints against an unlimited and a limited service. */
async function engineBound(url: string, rows: Row[]): Promise<void> {
  const scenario = `${BOUND.size} endpoints, ${BOUND.latencyMs} ms`;
  let unlimitedMs = 0;
  // Unmeasured: the first run of the program in a process pays for loading and compiling it.
  await runEngine({ verb: "preview", cwd: join(__dirname, "program"), stack: "bound-warm-up", stateFile: join(mkdtempSync(join(tmpdir(), "svc-warm-up-")), "state.json"), config: { "bench:count": "1", "bench:kinds": JSON.stringify(RATE_KINDS), "svc:webhooksUrl": `${url}/webhooks`, "svc:skipRemoteChecks": "true" }, secrets: { "svc:webhooksApiKey": "warm-up" }, env: { SVC_WEBHOOKS_API_KEY: "" } });
  for (const limited of [false, true]) {
    await setLimits(url, limited ? { rate_limit: BOUND.rate, burst: BOUND.burst, latency_ms: BOUND.latencyMs } : { latency_ms: BOUND.latencyMs });
    const ws = await newWorkspace(url, `scale-bound-${limited ? "limited" : "unlimited"}`);
    const dir = mkdtempSync(join(tmpdir(), "svc-bound-"));
    try {
      let failed = 0;
      const m = await timedPhase(url, async () => {
        const r = await runEngine({
          verb: "up",
          cwd: join(__dirname, "program"),
          stack: "bound",
          stateFile: join(dir, "state.json"),
          parallel: 64,
          skipCheckpoints: true,
          config: { "bench:count": String(BOUND.size), "bench:kinds": JSON.stringify(RATE_KINDS), "svc:webhooksUrl": `${url}/webhooks` },
          secrets: { "svc:webhooksApiKey": ws.webhooks!.admin },
          env: { SVC_WEBHOOKS_API_KEY: "" },
        });
        failed = r.steps.filter((s) => s.failed).length + (r.ok ? 0 : 1);
        return { ms: 0 };
      });
      const c = count(m.log);
      const objects = await objectsIn(url, ws.webhooks!.admin, RATE_KINDS);
      if (!limited) unlimitedMs = m.ms;
      const boundMs = unlimitedMs + ((1.5 * BOUND.size) / BOUND.rate) * 1000;
      rows.push({
        scenario: limited ? `${scenario}, rate ${BOUND.rate}/s burst ${BOUND.burst}` : `${scenario}, unlimited`,
        how: "engine stand-in, --parallel 64 (preview included)",
        phase: "up",
        ms: m.ms,
        ...c,
        failed,
        target: limited ? `wall <= unlimited + 1.5 x N / rate = ${(boundMs / 1000).toFixed(1)} s, 429s <= ${Math.floor(BOUND.size / 10)}, 0 failed, 0 duplicates` : "recorded (the bound's base)",
        met: limited ? m.ms <= boundMs && c.refused <= Math.floor(BOUND.size / 10) && failed === 0 && objects === BOUND.size : undefined,
        note: [`${objects} objects after the up`, writeSpan(m.log)].filter(Boolean).join("; "),
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
}

function table(rows: Row[]): string {
  const lines = [
    "| scenario | how | phase | wall | API calls (writes) | 429s | failed | floor | provider / floor | target | met | note |",
    "|---|---|---|---:|---:|---:|---:|---:|---:|---|---|---|",
  ];
  for (const r of rows) {
    const floor = r.floorMs === undefined ? "—" : `${(r.floorMs / 1000).toFixed(2)} s`;
    const ratio = r.floorMs === undefined ? "—" : `${(r.ms / r.floorMs).toFixed(2)}×`;
    const met = r.met === undefined ? "—" : r.met ? "yes" : "no";
    lines.push(`| ${r.scenario} | ${r.how} | ${r.phase} | ${(r.ms / 1000).toFixed(2)} s | ${r.calls} (${r.writes}) | ${r.refused} | ${r.failed} | ${floor} | ${ratio} | ${r.target} | ${met} | ${r.note ?? ""} |`);
  }
  return lines.join("\n");
}

async function main() {
  const { values } = parseArgs({
    options: {
      size: { type: "string", default: "1000" },
      "engine-size": { type: "string" },
      parallels: { type: "string", default: "64,1000" },
      "skip-engine": { type: "boolean", default: false },
      "bound-only": { type: "boolean", default: false },
      ...RECORD_OPTION,
    },
  });
  const size = Number(values.size);
  const engineSize = Number(values["engine-size"] ?? size);
  const parallels = values.parallels!.split(",").map(Number);
  const emu = await startEmulatorProcess(["--latency", String(LATENCY_MS)]);
  const rows: Row[] = [];
  const started = new Date();
  const out = benchOutput(values.record);
  // Written after every scenario, so a long run that is stopped keeps what it measured.
  const save = () => void out.write("scale.md", report(rows, started, values["bound-only"] ? undefined : { size, engineSize }));
  try {
    await engineBound(emu.url, rows).then(save);
    if (!values["bound-only"]) {
      await setLimits(emu.url, { latency_ms: LATENCY_MS });
      for (const p of parallels) await latencyDirect(emu.url, size, p, rows).then(save);
      await setLimits(emu.url, { rate_limit: RATE, burst: BURST, latency_ms: LATENCY_MS });
      for (const p of parallels) await rateLimitedDirect(emu.url, size, p, rows).then(save);
      if (!values["skip-engine"]) {
        await setLimits(emu.url, { latency_ms: LATENCY_MS });
        await engine(emu.url, engineSize, false, rows).then(save);
        await setLimits(emu.url, { rate_limit: RATE, burst: BURST, latency_ms: LATENCY_MS });
        await engine(emu.url, engineSize, true, rows).then(save);
      }
    }
  } finally {
    await closeSharedDispatcher();
    emu.stop();
  }
  process.stdout.write(`${report(rows, started, values["bound-only"] ? undefined : { size, engineSize })}\n`);
  process.stdout.write(`${out.report()}\n`);
}

function report(rows: Row[], started: Date, sizes: { size: number; engineSize: number } | undefined): string {
  return [
    "# Scale scenario: a remote, rate-limited service",
    "",
    `Measured ${started.toISOString()} with \`npm run bench:scale${process.argv.length > 2 ? ` -- ${process.argv.slice(2).join(" ")}` : ""}\` (${process.platform}, ${cpus().length} CPUs, Node ${process.version}); emulator in its own process with \`--latency ${LATENCY_MS}\`, then \`PUT /_emulator/limits\` rate ${RATE}/s, burst ${BURST}.`,
    `Issue 14's bound: ${BOUND.size} endpoints through the stand-in at --parallel 64 with \`latency_ms\` ${BOUND.latencyMs}, unlimited then rate ${BOUND.rate}/s, burst ${BOUND.burst}.` +
      (sizes
        ? ` Provider direct: ${sizes.size} resources (latency: the mixed stack of bench/stack.ts; rate limit: webhook endpoints, one key). Engine stand-in: ${sizes.engineSize} resources at --parallel 64.`
        : "") +
      " Single runs, provider then floor in one process; targets printed, not asserted.",
    "",
    table(rows),
    "",
  ].join("\n");
}

main().catch((err) => {
  process.stderr.write(`${(err as Error).stack}\n`);
  process.exit(1);
});
