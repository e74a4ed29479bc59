/**
 * `npm run bench:cli [-- --size 1000 --latency 30 --kinds inboxes:Inbox --record]`
 *
 * A stack of pulumi-svc resources under the real Pulumi CLI (`npm run pulumi:install`),
 * against the emulator in its own process `--latency` ms away, beside the runtime's
 * own floor in the same run: the same number of minimal dynamic resources
 * (bench/floor-program: three outputs, a provider that does nothing). Phases, each a
 * `pulumi` command as users run it (checkpoints on): preview (of the creates), up,
 * no-op up, update (every resource's one field), refresh, destroy; `up`, refresh and
 * destroy with `--skip-preview` so each phase is one engine pass. Per phase: wall time
 * of each side, the ratio, API calls from the emulator's log; and the state's bytes
 * per resource after the up. Target: within 1.2x of the floor in every phase.
 * Writes cli.md to bench/.scratch, or with `--record` to bench/results.
 *
 * `--skip-checkpoints`: the same with PULUMI_SKIP_CHECKPOINTS=true (the engine writes the
 * state once at the end instead of after every step), written as cli-no-checkpoints.md:
 * the difference between the two tables is the time the per-step state writes take.
 */
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { PULUMI_CLI_MISSING, runCli } from "../test/support/pulumi-cli";
import type { EngineOptions } from "../test/engine/types";
import { lastSeq, logSince } from "./direct";
import { newWorkspace, startEmulatorProcess, svcConfig } from "./emulator-process";
import { benchOutput, RECORD_OPTION } from "./output";

const PHASES = [
  ["preview", "preview", 1],
  ["up", "up", 1],
  ["no-op up", "up", 1],
  ["update", "up", 2],
  ["refresh", "refresh", 2],
  ["destroy", "destroy", 2],
] as const;

type Side = "svc" | "floor";

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      size: { type: "string", default: "1000" },
      latency: { type: "string", default: "30" },
      kinds: { type: "string", default: "inboxes:Inbox" },
      "skip-checkpoints": { type: "boolean", default: false },
      ...RECORD_OPTION,
    },
  });
  if (PULUMI_CLI_MISSING) throw new Error(PULUMI_CLI_MISSING);
  const size = Number(values.size);
  const kinds = values.kinds!.split(",");
  const skipCheckpoints = values["skip-checkpoints"] === true;
  const emu = await startEmulatorProcess(["--latency", values.latency!]);
  const dir = mkdtempSync(join(tmpdir(), "svc-bench-cli-"));
  const rows: { phase: string; ms: Record<Side, number>; calls: number }[] = [];
  const stateBytes: Partial<Record<Side, number>> = {};
  try {
    const ws = await newWorkspace(emu.url, `bench-cli-${size}`);
    const secrets = svcConfig(emu.url, ws);
    const options = (side: Side, verb: EngineOptions["verb"], variant: number): EngineOptions => ({ ...sideOptions(side, verb, variant), skipCheckpoints });
    const sideOptions = (side: Side, verb: EngineOptions["verb"], variant: number): EngineOptions =>
      side === "svc"
        ? {
            verb,
            cwd: join(__dirname, "program"),
            stack: `cli${size}`,
            stateFile: join(dir, "svc.json"),
            skipPreview: true,
            config: { "bench:count": String(size), "bench:variant": String(variant), "bench:kinds": JSON.stringify(kinds) },
            secrets,
            env: { SVC_WEBHOOKS_API_KEY: "", SVC_INBOXES_API_KEY: "", SVC_INFRA_API_KEY: "" },
          }
        : { verb, cwd: join(__dirname, "floor-program"), stack: `floor${size}`, stateFile: join(dir, "floor.json"), skipPreview: true, config: { "floor:count": String(size), "floor:variant": String(variant) } };
    for (const [phase, verb, variant] of PHASES) {
      const ms = {} as Record<Side, number>;
      let calls = 0;
      for (const side of ["svc", "floor"] as const) {
        const since = await lastSeq(emu.url);
        const started = performance.now();
        const r = await runCli(options(side, verb, variant));
        ms[side] = performance.now() - started;
        if (!r.ok) throw new Error(`${side} ${phase} failed:\n${r.summary.slice(-3000)}`);
        if (side === "svc") calls = (await logSince(emu.url, since)).length;
        if (phase === "up") stateBytes[side] = statSync(join(dir, `${side}.json`)).size;
        process.stderr.write(`${phase} ${side}: ${(ms[side] / 1000).toFixed(1)} s\n`);
      }
      rows.push({ phase, ms, calls });
    }
  } finally {
    emu.stop();
    rmSync(dir, { recursive: true, force: true });
  }
  const s = (ms: number) => (ms / 1000).toFixed(1);
  const table = [
    `# pulumi-svc under the real Pulumi CLI, beside the runtime's floor`,
    "",
    `${size} resources (${kinds.join(", ")}) against the emulator ${values.latency} ms away; the floor: ${size} minimal dynamic resources. ${skipCheckpoints ? "Checkpoints off (PULUMI_SKIP_CHECKPOINTS=true: the state written once, at the end). " : ""}${new Date().toISOString()}, ${process.version}.`,
    "",
    "| phase | svc (s) | floor (s) | svc / floor | within 1.2x | API calls |",
    "|---|---|---|---|---|---|",
    ...rows.map((r) => `| ${r.phase} | ${s(r.ms.svc)} | ${s(r.ms.floor)} | ${(r.ms.svc / r.ms.floor).toFixed(2)} | ${r.ms.svc / r.ms.floor <= 1.2 ? "yes" : "no"} | ${r.calls} |`),
    "",
    `State after the up: ${Math.round((stateBytes.svc ?? 0) / size)} bytes per resource (svc), ${Math.round((stateBytes.floor ?? 0) / size)} (floor).`,
    "",
  ].join("\n");
  const out = benchOutput(values.record);
  process.stdout.write(table);
  out.write(skipCheckpoints ? "cli-no-checkpoints.md" : "cli.md", table);
  process.stdout.write(out.report());
}

main().catch((e: unknown) => {
  process.stderr.write(`bench:cli failed: ${e instanceof Error ? e.message : String(e)}\n`);
  process.exit(1);
});
