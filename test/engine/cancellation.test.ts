// SIGINT through the stand-in's command line, as pulumi/pulumi's CLI handles it
// (pkg/backend/cancellation_scope.go: the first signal cancels, the second terminates;
// pkg/cmd/pulumi/cmd/exit_codes.go: ExitCancelled = 8).

import { spawn } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { expect, test } from "vitest";
import { kvScenarios, KV_PROGRAM, errors, opsByName, type KvScenario, type KvSpec } from "./kv-scenario";

const scenario = kvScenarios();
const CLI = path.join(__dirname, "cli.ts");
const TSX = require.resolve("tsx/cli");

function startCli(s: KvScenario, resources: KvSpec[]) {
  const args = [TSX, CLI, "up", "--skip-preview", "--cwd", KV_PROGRAM, "--stack", s.stack, "--state", s.stateFile, "--config", `kvstore:dir=${s.dir}`, "--config", `kvtest:resources=${JSON.stringify(resources)}`];
  // Its own process group: whatever it starts can be found afterwards by that group.
  const child = spawn(process.execPath, args, { detached: true, stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  child.stdout.on("data", (d: Buffer) => (output += d.toString()));
  child.stderr.on("data", (d: Buffer) => (output += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  return { child, exited, output: () => output };
}

/** Processes still alive in a process group (Linux /proc). */
function processesInGroup(pgid: number): number[] {
  const out: number[] = [];
  for (const entry of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, "utf8");
      // Fields after the command (in parentheses): state, ppid, pgrp.
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      if (Number(fields[2]) === pgid && fields[0] !== "Z") out.push(Number(entry));
    } catch {
      // The process ended while we looked.
    }
  }
  return out;
}

async function until(cond: () => boolean): Promise<void> {
  // No deadline of its own: the test timeout bounds it.
  while (!cond()) await new Promise((r) => setTimeout(r, 100));
}

test.skipIf(process.platform !== "linux")("cancellation_scope.go: the first SIGINT cancels (in-flight create finishes, no new steps, state saved, exit 8), no process is left, and the next up completes without duplicates", async () => {
  const s = scenario();
  const spec: KvSpec[] = [
    { name: "a", props: { label: "a", gate: true } },
    { name: "b", props: { label: "b" }, dependsOn: ["a"] },
  ];
  const cli = startCli(s, spec);
  try {
    await until(() => s.calls().some((c) => c.op === "create-start"));
    process.kill(cli.child.pid!, "SIGINT");
    await until(() => cli.output().includes("cancelling"));
    fs.writeFileSync(path.join(s.dir, "release"), "");
    expect(await cli.exited).toBe(8);
  } finally {
    // Never leave the group running when the test fails half-way.
    try {
      process.kill(-cli.child.pid!, "SIGKILL");
    } catch {
      // Already gone, as it should be.
    }
  }
  expect(processesInGroup(cli.child.pid!)).toEqual([]);
  expect(cli.output()).toMatch(/cancelled/);

  // a's create finished and is in the state; b was never started; nothing is pending.
  const latest = s.checkpoint().checkpoint.latest;
  expect(latest.pending_operations).toEqual([]);
  expect(latest.resources.some((r) => r.urn.endsWith("::a") && r.id)).toBe(true);
  expect(Object.values(s.objects()).map((o) => o["label"])).toEqual(["a"]);

  const next = await s.run("up", spec.map((x) => ({ ...x, props: { ...x.props, gate: undefined } })));
  expect(next.ok, errors(next)).toBe(true);
  expect(opsByName(next.steps)).toMatchObject({ b: "create" });
  expect(Object.values(s.objects()).map((o) => o["label"]).sort()).toEqual(["a", "b"]);
});
