/**
 * `npm run preview:ci` (examples/gitops/preview-ci.ts) as a CI job runs it, with each
 * engine it can run on (the real Pulumi CLI, the default where it is installed, and
 * the engine stand-in): a policy config (an unknown enforcement level, a value of the
 * wrong type for the pack's config schema, a name that is no policy of the pack, a
 * property its schema does not have, a file that does not exist) fails the gate before
 * anything runs, with a message naming the problem, and no policy-pack process outlives it.
 * Loads the pack from `policy/` as the script does: needs `npm run build` first.
 */
import { execFileSync, spawn } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cliRunner } from "../support/runner";
import { REPO_ROOT } from "./pack-build";

const SCRIPT = path.join(REPO_ROOT, "examples/gitops/preview-ci.ts");
/**
 * The gate runs as one process, node with tsx as its loader (as `npm run preview:ci` runs it): the tsx CLI is a parent
 * that relays a signal to its child and SIGKILLs it when it has not acknowledged within 60 ms, which a busy gate under
 * load missed, leaving the policy pack it had started running.
 */
const GATE = [process.execPath, "--import", "tsx"] as const;
const PACK_DIR = path.join(REPO_ROOT, "policy");
let dir: string;

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "svc-preview-ci-test-"));
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

function gate(args: string[], env: NodeJS.ProcessEnv = {}, started?: (pid: number) => void): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(GATE[0], [...GATE.slice(1), SCRIPT, ...args], { cwd: REPO_ROOT, env: { ...process.env, GITHUB_STEP_SUMMARY: "", ...env }, stdio: ["ignore", "pipe", "pipe"] });
    started?.(child.pid!);
    let output = "";
    child.stdout.on("data", (d) => (output += d));
    child.stderr.on("data", (d) => (output += d));
    child.once("error", reject);
    child.once("exit", (code) => resolve({ code, output }));
  });
}

/** Policy-pack processes running this repository's pack (`run-policy-pack <engine> <repo>/policy`), wherever re-parented. */
function packProcesses(): string[] {
  return execFileSync("ps", ["-eo", "pid=,ppid=,args="], { encoding: "utf8" })
    .split("\n")
    .filter((line) => line.includes("run-policy-pack") && line.trimEnd().endsWith(` ${PACK_DIR}`));
}

/**
 * What the gate says of each bad config, under either engine: it checks the config against
 * the pack before anything runs (the CLI alone lets the last two through, exit 0).
 */
const REFUSALS: [string, Record<string, unknown>, string][] = [
  ["an unknown enforcement level", { "endpoint-retry-bounds": "mandatry" }, 'endpoint-retry-bounds: enforcement level "mandatry" is not one of advisory, mandatory, disabled, remediate'],
  ["a value of the wrong type", { "endpoint-retry-bounds": { maxAttempts: "ten" } }, "endpoint-retry-bounds.maxAttempts must be"],
  ["an unknown policy name with config", { "endpoint-public-hosts": { allowedHosts: ["a.example"] } }, '"endpoint-public-hosts" is not a policy of svc-guardrails (did you mean "endpoint-public-host"?)'],
  ["an unknown policy name given only a level", { "endpoint-public-hots": "advisory" }, '"endpoint-public-hots" is not a policy of svc-guardrails (did you mean "endpoint-public-host"?)'],
  [
    "a misspelt property of a policy's config",
    { "endpoint-verify-in-production": { productionStack: ["pr"] } },
    'endpoint-verify-in-production: "productionStack" is not a property of its config (productionStacks) (did you mean "productionStacks"?)',
  ],
];

for (const engine of ["cli", "stand-in"] as const) {
  const unavailable = engine === "cli" ? cliRunner.unavailable : undefined;
  if (unavailable) console.log(`preview:ci with the Pulumi CLI: skipped: ${unavailable}`);
  describe.skipIf(unavailable !== undefined)(`preview:ci (--engine ${engine}) refuses a policy config the CLI refuses, and leaves nothing running`, () => {
    it.each(REFUSALS)("%s: exit 1 with the problem named", async (_what, config, message) => {
      const file = path.join(dir, `${Object.keys(config)[0]}-${Math.random().toString(36).slice(2)}.json`);
      fs.writeFileSync(file, JSON.stringify(config));
      const r = await gate(["--engine", engine, "--policy-config", file]);
      expect(packProcesses()).toEqual([]);
      expect(r.output).toContain(message);
      expect(r.code, r.output).toBe(1);
    });

    it("a --policy-config file that does not exist: exit 1 naming the file, and no policy-pack process is left", async () => {
      const file = path.join(dir, "missing.json");
      const r = await gate(["--engine", engine, "--policy-config", file]);
      expect(packProcesses()).toEqual([]);
      expect(r.output).toContain(`invalid policy config ${file}:\n  - cannot read the file (ENOENT)`);
      expect(r.code, r.output).toBe(1);
    });
  });
}

// Issue 25, "What to build" 3: the gate runs the real Pulumi CLI when it is available (it validates policy config as users will see it).
it("with no --engine, preview:ci previews with the Pulumi CLI when it is installed, else with the stand-in saying why", async () => {
  // A program folder that does not exist: the run fails quickly, after the gate says which engine runs it.
  const r = await gate(["--program", path.join(dir, "no-such-program")]);
  expect(r.output).toContain(cliRunner.unavailable ? `with the engine stand-in (${cliRunner.unavailable})` : "with the Pulumi CLI");
  expect(packProcesses()).toEqual([]);
  expect(r.code, r.output).toBe(1);
});

/** Live processes whose environment holds `marker` (they inherited it from the gate), with their command lines. */
function markedProcesses(marker: string): string[] {
  const found: string[] = [];
  for (const entry of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      if (`\0${fs.readFileSync(`/proc/${entry}/environ`, "latin1")}\0`.includes(`\0${marker}\0`)) found.push(`${entry}: ${fs.readFileSync(`/proc/${entry}/cmdline`, "latin1").replace(/\0/g, " ")}`);
    } catch {
      // gone meanwhile, or not ours to read
    }
  }
  return found;
}

// A CI runner stopping the step signals the gate's process alone, not its group.
describe.skipIf(process.platform !== "linux")("preview:ci (--engine stand-in) stopped by a signal to its process alone", () => {
  // While the pack starts (the example program), and while a program that never ends runs with its dynamic provider.
  it.each([
    ["SIGINT", "run-policy-pack", 130, path.join(REPO_ROOT, "examples/gitops/program")],
    ["SIGTERM", "run-policy-pack", 143, path.join(REPO_ROOT, "examples/gitops/program")],
    ["SIGINT", "dynamic-provider", 130, path.join(__dirname, "fixtures/held")],
    ["SIGTERM", "dynamic-provider", 143, path.join(__dirname, "fixtures/held")],
  ] as const)("%s once %s runs: exit %i, no process of the run left, its temp dir removed", async (signal, running, exitCode, program) => {
    const marker = `SVC_PREVIEW_CI_TEST_RUN=${Math.random().toString(36).slice(2)}`;
    // The gate's own temp folder (the stack's backend and encrypted config) goes under TMPDIR.
    const tmp = fs.mkdtempSync(path.join(dir, "tmp-"));
    let pid = 0;
    const run = gate(["--engine", "stand-in", "--program", program], { [marker.split("=")[0]!]: marker.split("=")[1]!, TMPDIR: tmp }, (p) => (pid = p));
    // Wait until the run has started that process (no timing: polled until it is there).
    while (!markedProcesses(marker).some((p) => p.includes(running))) await new Promise((r) => setTimeout(r, 50));
    process.kill(pid, signal);
    const r = await run;
    expect(r.code, r.output).toBe(exitCode);
    expect(markedProcesses(marker)).toEqual([]);
    expect(fs.readdirSync(tmp).filter((d) => d.startsWith("svc-preview-ci-"))).toEqual([]);
  });
});
