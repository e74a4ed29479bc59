/**
 * `npm run demo`: the quickstart against the emulator, end to end.
 *
 * 1. starts the emulator on a free port;
 * 2. runs `up` on examples/quickstart with the real Pulumi CLI when it is installed
 *    (`npm run pulumi:install`, or `pulumi` on PATH), else with our engine stand-in
 *    (test/engine), saying so;
 * 3. shows the outputs and what the emulator now holds;
 * 4. changes one argument (the description) and shows that `up` made one PATCH;
 * 5. destroys, and shows the emulator holds nothing.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startEmulator, type RunningEmulator } from "../emulator";
import { standInRunner } from "../test/engine/runner";
import { cliRunner } from "../test/support/runner";
import type { EngineOptions, EngineResult } from "../test/support/run-types";

const program = join(__dirname, "..", "examples/quickstart");
/** A stand-in for a real team token: it travels as a Pulumi secret and must never be printed. */
const TEAM_TOKEN = "demo-team-token-kept-secret";

async function emulatorHolds(emu: RunningEmulator): Promise<unknown[]> {
  const res = await fetch(`${emu.webhooksUrl}/v1/endpoints`, { headers: { authorization: `Bearer ${emu.keys.webhooks.read}` } });
  const { data } = (await res.json()) as { data: Record<string, unknown>[] };
  return data.map((e) => ({ id: e.id, url: e.url, description: e.description, subscriptions: e.subscriptions, custom_header_names: e.custom_header_names, max_attempts: e.max_attempts }));
}

async function callsSince(emu: RunningEmulator, since: number): Promise<string[]> {
  const res = await fetch(`${emu.url}/_emulator/requests?since=${since}`);
  const { requests } = (await res.json()) as { requests: { method: string; path: string; status: number }[] };
  return requests.map((r) => `${r.method} ${r.path} -> ${r.status}`);
}

async function lastSeq(emu: RunningEmulator): Promise<number> {
  const res = await fetch(`${emu.url}/_emulator/requests?since=999999999`);
  return ((await res.json()) as { last_seq: number }).last_seq;
}

function heading(text: string) {
  process.stdout.write(`\n=== ${text}\n`);
}

async function main() {
  const emu = await startEmulator({ port: 0 });
  const stateDir = mkdtempSync(join(tmpdir(), "svc-demo-"));
  const runner = cliRunner.unavailable ? standInRunner : cliRunner;
  const run = async (verb: EngineOptions["verb"], config: Record<string, string> = {}): Promise<EngineResult> => {
    const r = await runner.run({
      verb,
      cwd: program,
      stack: "demo",
      stateFile: join(stateDir, "demo.json"),
      config: { "svc:webhooksUrl": emu.webhooksUrl, ...config },
      secrets: { "svc:webhooksApiKey": emu.keys.webhooks.admin, "svc-quickstart:teamToken": TEAM_TOKEN },
    });
    if (!r.ok) throw new Error(`pulumi ${verb} failed:\n${r.summary}`);
    return r;
  };
  try {
    heading(`Emulator on ${emu.url}; running with ${runner === cliRunner ? "the Pulumi CLI" : `the engine stand-in (${cliRunner.unavailable})`}`);

    heading("pulumi up: create the quickstart endpoint");
    let seq = await lastSeq(emu);
    const first = await run("up");
    process.stdout.write(`${first.summary}\n`);
    process.stdout.write(`outputs: ${JSON.stringify(first.outputs, null, 2)}\n`);
    process.stdout.write(`API calls: ${(await callsSince(emu, seq)).join(", ")}\n`);

    heading("What the emulator holds (header values are never returned by the service)");
    process.stdout.write(`${JSON.stringify(await emulatorHolds(emu), null, 2)}\n`);

    heading("Change one argument (description) and run up again");
    seq = await lastSeq(emu);
    const second = await run("up", { "svc-quickstart:description": "Order events, routed to the new fulfilment service" });
    process.stdout.write(`${second.summary}\n`);
    process.stdout.write(`API calls: ${(await callsSince(emu, seq)).join(", ")}\n`);

    heading("pulumi destroy");
    process.stdout.write(`${(await run("destroy")).summary}\n`);
    process.stdout.write(`The emulator now holds ${(await emulatorHolds(emu)).length} endpoints.\n`);
  } finally {
    await emu.close();
    rmSync(stateDir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  process.stderr.write(`demo failed: ${(err as Error).message}\n`);
  process.exit(1);
});
