/**
 * Requests per second the emulator serves, for a GET and a POST at a few
 * concurrencies. The emulator runs in its own process (one core, as users run it);
 * autocannon loads it from this one. Prints a markdown table and writes it to
 * bench/results/emulator.md. Target: over 3,000 GET/s, so the emulator is never
 * the bottleneck of provider benchmarks.
 *
 *   npm run bench:emulator [-- --seconds 5]
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import autocannon from "autocannon";
import { startEmulatorProcess } from "./emulator-process";

const root = join(__dirname, "..");

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

async function main() {
  const { values } = parseArgs({ options: { seconds: { type: "string", default: "5" } } });
  const seconds = Number(values.seconds);
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
    mkdirSync(join(root, "bench/results"), { recursive: true });
    writeFileSync(join(root, "bench/results/emulator.md"), `# Emulator throughput\n\nMeasured ${new Date().toISOString()} with \`npm run bench:emulator\`.\n\n${table}\n`);
  } finally {
    emu.stop();
  }
}

main().catch((err) => {
  process.stderr.write(`${(err as Error).stack}\n`);
  process.exit(1);
});
