/**
 * `npm run demo`: the quickstart against the emulator, end to end.
 *
 * 1. starts the emulator on a free port;
 * 2. runs `up` on examples/quickstart (the real Pulumi CLI through the Automation
 *    API when `pulumi` is on PATH, else our engine stand-in, test/engine);
 * 3. shows the outputs and what the emulator now holds;
 * 4. changes one argument (the description) and shows that `up` made one PATCH;
 * 5. destroys, and shows the emulator holds nothing.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startEmulator, type RunningEmulator } from "../emulator";
import { runEngine } from "../test/engine/engine";

const root = join(__dirname, "..");
const program = join(root, "examples/quickstart");
const stack = "demo";
/** A stand-in for a real team token: it travels as a Pulumi secret and must never be printed. */
const TEAM_TOKEN = "demo-team-token-kept-secret";

interface Runner {
  name: string;
  up(config: Record<string, string>): Promise<{ summary: string; outputs: Record<string, unknown> }>;
  destroy(): Promise<string>;
}

/** Our engine stand-in: real program runtime and real dynamic-provider plugin, no CLI. */
function standInRunner(emu: RunningEmulator, stateDir: string): Runner {
  const base = {
    cwd: program,
    stack,
    stateFile: join(stateDir, "demo.json"),
    secrets: { "svc:webhooksApiKey": emu.keys.webhooks.admin, "svc-quickstart:teamToken": TEAM_TOKEN },
  };
  const must = <T extends { ok: boolean; summary: string }>(r: T) => {
    if (!r.ok) throw new Error(`the run failed:\n${r.summary}`);
    return r;
  };
  return {
    name: "engine stand-in (test/engine; the Pulumi CLI is not on PATH)",
    async up(config) {
      const r = must(await runEngine({ ...base, verb: "up", config: { "svc:webhooksUrl": emu.webhooksUrl, ...config } }));
      return { summary: r.summary, outputs: r.outputs };
    },
    async destroy() {
      return must(await runEngine({ ...base, verb: "destroy", config: { "svc:webhooksUrl": emu.webhooksUrl } })).summary;
    },
  };
}

/** The real CLI through the Automation API, with a local file backend. */
async function cliRunner(emu: RunningEmulator, stateDir: string): Promise<Runner> {
  const { LocalWorkspace } = (await import("@pulumi/pulumi")).automation;
  const ws = await LocalWorkspace.create({
    workDir: program,
    envVars: { PULUMI_BACKEND_URL: `file://${stateDir}`, PULUMI_CONFIG_PASSPHRASE: "demo-passphrase" },
  });
  const s = await LocalWorkspace.createOrSelectStack({ stackName: stack, workDir: program }, { envVars: ws.envVars });
  await s.setConfig("svc:webhooksUrl", { value: emu.webhooksUrl });
  await s.setConfig("svc:webhooksApiKey", { value: emu.keys.webhooks.admin, secret: true });
  await s.setConfig("teamToken", { value: TEAM_TOKEN, secret: true });
  return {
    name: "Pulumi CLI (Automation API, local file backend)",
    async up(config) {
      for (const [k, v] of Object.entries(config)) await s.setConfig(k.replace(/^svc-quickstart:/, ""), { value: v });
      const r = await s.up();
      const outputs = Object.fromEntries(Object.entries(r.outputs).map(([k, o]) => [k, o.secret ? "[secret]" : o.value]));
      return { summary: r.stdout, outputs };
    },
    async destroy() {
      return (await s.destroy()).stdout;
    },
  };
}

function pulumiOnPath(): boolean {
  try {
    execFileSync("pulumi", ["version"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}

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
  try {
    const runner = pulumiOnPath() ? await cliRunner(emu, stateDir) : standInRunner(emu, stateDir);
    heading(`Emulator on ${emu.url}; running with the ${runner.name}`);

    heading("pulumi up: create the quickstart endpoint");
    let seq = await lastSeq(emu);
    const first = await runner.up({});
    process.stdout.write(`${first.summary}\n`);
    process.stdout.write(`outputs: ${JSON.stringify(first.outputs, null, 2)}\n`);
    process.stdout.write(`API calls: ${(await callsSince(emu, seq)).join(", ")}\n`);

    heading("What the emulator holds (header values are never returned by the service)");
    process.stdout.write(`${JSON.stringify(await emulatorHolds(emu), null, 2)}\n`);

    heading("Change one argument (description) and run up again");
    seq = await lastSeq(emu);
    const second = await runner.up({ "svc-quickstart:description": "Order events, routed to the new fulfilment service" });
    process.stdout.write(`${second.summary}\n`);
    process.stdout.write(`API calls: ${(await callsSince(emu, seq)).join(", ")}\n`);

    heading("pulumi destroy");
    process.stdout.write(`${await runner.destroy()}\n`);
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
