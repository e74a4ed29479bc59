/**
 * Requests per second the emulator serves, for a GET and a POST at a few
 * concurrencies. The emulator runs in its own process (one core, as users run it);
 * autocannon loads it from this one. Prints a markdown table and writes it to
 * bench/results/emulator.md. Target: over 3,000 GET/s, so the emulator is never
 * the bottleneck of provider benchmarks.
 *
 * Then the long run (issue 16), as a shared CI emulator lives: throughput and RSS
 * fresh, after 100,000 and after 200,000 requests (the request log full and wrapping),
 * and writes with `--state-file` fresh and at 1,000 objects. Target: throughput within
 * 20% of the fresh emulator's, RSS flat within 50 MB.
 *
 *   npm run bench:emulator [-- --seconds 5] [-- --only long-run]
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import autocannon from "autocannon";
import { mkdtempSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { cpuClock, startEmulatorProcess } from "./emulator-process";
import { benchOutput, RECORD_OPTION, type BenchOutput } from "./output";


interface Row {
  scenario: string;
  connections: number;
  requestsPerSecond: number;
  p50: number;
  p99: number;
  errors: number;
}

async function measure(scenario: string, opts: autocannon.Options, connections: number, seconds: number): Promise<Row> {
  const result = await autocannon({ ...opts, connections, duration: seconds });
  // A row of refusals would measure the wrong thing: fail loudly instead.
  if (result.non2xx > 0) throw new Error(`${scenario}: ${result.non2xx} answers were not 2xx; the scenario is broken`);
  return {
    scenario,
    connections,
    requestsPerSecond: Math.round(result.requests.average),
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.errors,
  };
}

/** Resident memory of a process in MB, from /proc (Linux). */
function rssMbOf(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  return m ? Math.round(Number(m[1]) / 1024) : NaN;
}

interface Checkpoint {
  label: string;
  requestsPerSecond: number;
  /** Emulator CPU time per request (µs): what the emulator spends, much less swayed by other load than requests/s. */
  cpuUsPerRequest: number;
  rssMb: number;
}

/** Measure one checkpoint: requests/s, and the emulator's CPU per request over the same window. */
async function checkpoint(label: string, pid: number, opts: autocannon.Options, seconds: number): Promise<Checkpoint & { total: number }> {
  const spent = cpuClock(pid);
  const result = await autocannon({ ...opts, connections: 10, duration: seconds });
  if (result.non2xx > 0) throw new Error(`${label}: ${result.non2xx} answers were not 2xx; the scenario is broken`);
  const cpuMs = spent().emulatorCpuMs ?? NaN;
  return { label, requestsPerSecond: Math.round(result.requests.average), cpuUsPerRequest: Math.round((cpuMs * 1000) / result.requests.total), rssMb: rssMbOf(pid), total: result.requests.total };
}

/** Send `amount` requests as fast as 50 connections can; refusals break the scenario, client timeouts (a loaded machine) are counted. */
async function drive(opts: autocannon.Options, amount: number): Promise<number> {
  const result = await autocannon({ ...opts, connections: 50, amount, timeout: 30 });
  if (result.non2xx > 0) throw new Error(`driving ${opts.url}: ${result.non2xx} answers were not 2xx`);
  return result.errors;
}

/** Judged on CPU per request (the throughput the emulator would reach on an idle core); requests/s shown as measured. */
function judge(rows: Checkpoint[]): string {
  const fresh = rows[0]!;
  const worstCpu = Math.max(...rows.map((r) => r.cpuUsPerRequest));
  const rssGrowth = Math.max(...rows.map((r) => r.rssMb)) - fresh.rssMb;
  const slower = Math.round((1 - fresh.cpuUsPerRequest / worstCpu) * 100);
  return `costliest checkpoint: throughput per CPU ${slower}% below fresh (target: within 20%); RSS grew ${rssGrowth} MB (target: within 50 MB): ${slower <= 20 && rssGrowth <= 50 ? "within target" : "MISSES target"}`;
}

const checkpointTable = (rows: Checkpoint[]) =>
  [
    "| checkpoint | requests/s | emulator CPU µs/request | RSS MB |",
    "|---|---:|---:|---:|",
    ...rows.map((r) => `| ${r.label} | ${r.requestsPerSecond} | ${r.cpuUsPerRequest} | ${r.rssMb} |`),
  ].join("\n");

/** Throughput and RSS fresh, after 100,000 and 200,000 requests; the log keeps its default size (full and wrapping). */
async function longRunRequestLog(seconds: number): Promise<string> {
  const emu = await startEmulatorProcess();
  try {
    const keys = (await (await fetch(`${emu.url}/_emulator/keys`)).json()) as { webhooks: { admin: string } };
    const get: autocannon.Options = { url: `${emu.url}/webhooks/v1/auth/me`, headers: { authorization: `Bearer ${keys.webhooks.admin}` } };
    const rows: Checkpoint[] = [];
    // Warm the JIT first, so "fresh" measures a fresh state, not cold code.
    let sent = 2_000;
    let clientErrors = await drive(get, sent);
    for (const at of [0, 100_000, 200_000]) {
      if (at > sent) clientErrors += await drive(get, at - sent);
      const row = await checkpoint(`after ${at.toLocaleString("en-US")} requests`, emu.pid, get, seconds);
      sent = at + row.total;
      rows.push(row);
    }
    const log = (await (await fetch(`${emu.url}/_emulator/requests?since=999999999`)).json()) as { last_seq: number; capacity: number };
    return `### Request log (GET /webhooks/v1/auth/me, 10 connections, ${seconds} s per checkpoint; log capacity ${log.capacity}, ${log.last_seq} requests logged, ${clientErrors} client timeouts while driving)\n\n${checkpointTable(rows)}\n\n${judge(rows)}\n`;
  } finally {
    emu.stop();
  }
}

/** Writes (PUT the workspace's event type policy, one state change each) with --state-file, fresh and at 1,000 objects. */
async function longRunStateFile(seconds: number): Promise<string> {
  const stateFile = join(mkdtempSync(join(tmpdir(), "svc-bench-")), "state.json");
  const emu = await startEmulatorProcess(["--state-file", stateFile]);
  try {
    const keys = (await (await fetch(`${emu.url}/_emulator/keys`)).json()) as { webhooks: { admin: string } };
    const headers = { authorization: `Bearer ${keys.webhooks.admin}`, "content-type": "application/json" };
    const put: autocannon.Options = { url: `${emu.url}/webhooks/v1/event-types/policy`, method: "PUT", headers, body: JSON.stringify({ policy: "lenient" }) };
    const rows: Checkpoint[] = [];
    await drive(put, 2_000); // warm-up
    rows.push(await checkpoint("state file, no objects", emu.pid, put, seconds));
    for (let i = 0; i < 1_000; i++) {
      const res = await fetch(`${emu.url}/webhooks/v1/event-types`, { method: "POST", headers, body: JSON.stringify({ name: `bench.type.${i}`, description: "x".repeat(200), payload_schema: { type: "object", properties: { id: { type: "string" } } } }) });
      if (res.status !== 201) throw new Error(`creating object ${i}: ${res.status}`);
    }
    rows.push(await checkpoint("state file, 1,000 objects", emu.pid, put, seconds));
    return `### --state-file (PUT /webhooks/v1/event-types/policy, 10 connections, ${seconds} s per checkpoint)\n\n${checkpointTable(rows)}\n\n${judge(rows)}\n`;
  } finally {
    emu.stop();
  }
}

async function main() {
  const { values } = parseArgs({ options: { seconds: { type: "string", default: "5" }, only: { type: "string" }, ...RECORD_OPTION } });
  const seconds = Number(values.seconds);
  const out = benchOutput(values.record);
  if (values.only === "long-run") return writeLongRun(seconds, out);
  const emu = await startEmulatorProcess();
  try {
    const keys = (await (await fetch(`${emu.url}/_emulator/keys`)).json()) as { webhooks: { admin: string; publish: string } };
    const scenarios: [string, autocannon.Options][] = [
      ["GET /webhooks/v1/auth/me", { url: `${emu.url}/webhooks/v1/auth/me`, headers: { authorization: `Bearer ${keys.webhooks.admin}` } }],
      [
        "POST /webhooks/v1/events",
        {
          url: `${emu.url}/webhooks/v1/events`,
          method: "POST",
          headers: { authorization: `Bearer ${keys.webhooks.publish}`, "content-type": "application/json" },
          body: JSON.stringify({ event_type: "bench.ping", payload: { n: 1 } }),
        },
      ],
    ];
    const rows: Row[] = [];
    for (const [name, opts] of scenarios) {
      for (const connections of [1, 10, 50]) rows.push(await measure(name, opts, connections, seconds));
    }
    const table = [
      "| scenario | connections | requests/s | p50 ms | p99 ms | errors |",
      "|---|---:|---:|---:|---:|---:|",
      ...rows.map((r) => `| ${r.scenario} | ${r.connections} | ${r.requestsPerSecond} | ${r.p50} | ${r.p99} | ${r.errors} |`),
    ].join("\n");
    process.stdout.write(`\nEmulator throughput (${seconds} s per row, emulator in its own process)\n\n${table}\n`);
    out.write("emulator.md", `# Emulator throughput\n\nMeasured ${new Date().toISOString()} with \`npm run bench:emulator\`.\n\n${table}\n`);
  } finally {
    emu.stop();
  }
  await writeLongRun(seconds, out);
}

async function writeLongRun(seconds: number, out: BenchOutput): Promise<void> {
  const sections = [await longRunRequestLog(seconds), await longRunStateFile(seconds)];
  const load = loadavg().map((l) => l.toFixed(1)).join(", ");
  const text = `# Emulator long run\n\nMeasured ${new Date().toISOString()} with \`npm run bench:emulator\`, emulator in its own process, on ${cpus().length} cores with load average ${load} at the end (other work on the machine skews the numbers).\n\n${sections.join("\n")}`;
  process.stdout.write(`\n${text}`);
  out.write("emulator-long-run.md", text);
  process.stdout.write(`${out.report()}\n`);
}

main().catch((err) => {
  process.stderr.write(`${(err as Error).stack}\n`);
  process.exit(1);
});
