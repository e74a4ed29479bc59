/**
 * The emulator's command line (dist/emulator/cli.js, the `pulumi-svc-emulator` bin):
 * flags validated at start (an unknown flag or plan is refused with what is accepted,
 * exit 2), `--help` lists every flag and the exit codes, and SIGTERM stops it with the
 * state file flushed (nothing lost on a clean stop). Runs the built CLI: `npm run build` first.
 */
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { FLAGS } from "../../emulator/cli-options";

const cli = join(__dirname, "../../dist/emulator/cli.js");
const run = (...args: string[]) => spawnSync(process.execPath, [cli, ...args], { encoding: "utf8", timeout: 30_000 });

/** The built CLI on a free port with `--state-file`, once it prints its URL. */
async function startCli(stateFile: string) {
  const child = spawn(process.execPath, [cli, "--port", "0", "--state-file", stateFile], { stdio: ["ignore", "pipe", "pipe"] });
  const url = await new Promise<string>((resolve) => {
    child.stdout.setEncoding("utf8");
    child.stdout.on("data", (chunk: string) => {
      const m = /listening on (http:\/\/\S+)/.exec(chunk);
      if (m) resolve(m[1]!);
    });
  });
  return { child, url };
}

/** Registers an event type with the default workspace's admin key (a write the state file must keep). */
async function createEventType(url: string, name: string): Promise<Response> {
  const keys = (await (await fetch(`${url}/_emulator/keys`)).json()) as { webhooks: { admin: string } };
  return fetch(`${url}/webhooks/v1/event-types`, {
    method: "POST",
    headers: { authorization: `Bearer ${keys.webhooks.admin}`, "content-type": "application/json" },
    body: JSON.stringify({ name }),
  });
}

describe("pulumi-svc-emulator command line", () => {
  it("is a node script (shebang) so it works as a package bin", () => {
    expect(readFileSync(cli, "utf8").split("\n")[0]).toBe("#!/usr/bin/env node");
  });

  it("--help lists every flag and the exit codes, exit 0", () => {
    const res = run("--help");
    expect(res.status).toBe(0);
    for (const flag of FLAGS) expect(res.stdout).toContain(`--${flag.name}`);
    expect(res.stdout).toMatch(/Exit codes:[\s\S]*0 [\s\S]*1 [\s\S]*2 /);
  });

  it("an unknown --plan: exit 2, the message lists the plans and the flags; no server starts", () => {
    const res = run("--port", "0", "--plan", "gold");
    expect(res.status).toBe(2);
    expect(res.stderr).toContain('--plan must be one of free, pro, enterprise, got "gold"');
    expect(res.stderr).toContain("accepted flags: --port PORT");
    expect(res.stdout).toBe("");
  });

  it("an unknown option, a bad port or log size, a stray argument: exit 2 naming it", () => {
    for (const [args, says] of [
      [["--bogus"], "--bogus"],
      [["--port", "99999"], "--port must be a whole number from 0 to 65535"],
      [["--request-log-size", "0"], "--request-log-size must be a whole number from 1"],
      [["--bin-public-url", "bins"], "--bin-public-url must be an http(s) URL"],
      [["extra"], "extra"],
    ] as [string[], string][]) {
      const res = run(...args);
      expect(res.status, args.join(" ")).toBe(2);
      expect(res.stderr).toContain(says);
    }
  });

  it("SIGTERM flushes --state-file: what was written just before the stop is there", async () => {
    const stateFile = join(mkdtempSync(join(tmpdir(), "svc-cli-")), "state.json");
    const { child, url } = await startCli(stateFile);
    expect((await createEventType(url, "written.last")).status).toBe(201);
    const exit = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
    child.kill("SIGTERM");
    expect(await exit).toBe(0);
    expect(readFileSync(stateFile, "utf8")).toContain("written.last");
  });

  it("--state-file in a folder that does not exist: exit 1 at start, naming the file; nothing listens", () => {
    const stateFile = join(mkdtempSync(join(tmpdir(), "svc-cli-")), "no-such-folder", "state.json");
    const res = spawnSync(process.execPath, [cli, "--port", "0", "--state-file", stateFile], { encoding: "utf8", timeout: 10_000 });
    expect(res.stdout).not.toContain("listening");
    expect(res.stderr).toContain(`emulator failed to start: cannot write the state file ${stateFile}: its folder does not exist`);
    expect(res.status).toBe(1);
  });

  it.each([
    ["a regular file", () => {
      const folder = mkdtempSync(join(tmpdir(), "svc-cli-"));
      writeFileSync(join(folder, "afile"), "");
      return join(folder, "afile", "state.json");
    }],
    // /proc passes a W_OK access check as root, yet no file can be created in it.
    ["/proc", () => "/proc/svc-state.json"],
  ])("--state-file whose folder is %s: exit 1 at start, naming the file; nothing listens", (_what, stateFileIn) => {
    const stateFile = stateFileIn();
    const res = spawnSync(process.execPath, [cli, "--port", "0", "--state-file", stateFile], { encoding: "utf8", timeout: 10_000 });
    expect(res.stdout).not.toContain("listening");
    expect(res.stderr).toContain(`emulator failed to start: cannot write the state file ${stateFile}: its folder`);
    expect(res.status).toBe(1);
  });

  it("a state file's folder removed while running: the write fails loudly, the emulator keeps answering", async () => {
    const folder = mkdtempSync(join(tmpdir(), "svc-cli-"));
    const { child, url } = await startCli(join(folder, "state.json"));
    try {
      rmSync(folder, { recursive: true, force: true });
      expect((await createEventType(url, "unwritten")).status).toBe(201);
      // The write behind fails: the emulator says so on stderr (or, before, died of it).
      const outcome = await new Promise<string>((resolve) => {
        let stderr = "";
        child.stderr.setEncoding("utf8");
        child.stderr.on("data", (chunk: string) => {
          stderr += chunk;
          if (stderr.includes("could not write the state file")) resolve("reported");
        });
        child.once("exit", (code) => resolve(`exited with code ${code}`));
      });
      expect(outcome).toBe("reported");
      expect((await createEventType(url, "still.answering")).status).toBe(201);
    } finally {
      child.kill("SIGKILL");
    }
  });
});
