/**
 * The README's "run a program yourself" block, run as written with the real Pulumi CLI:
 * the emulator in the background, `pulumi login --local`, `stack init`, the config and
 * `up`, in a shell whose HOME is a temporary directory. What the test changes, and why:
 * the port (a free one), the key placeholder (the key the emulator hands out, read
 * with the same curl the block shows), a wait for the emulator before the first curl
 * (a person typing is slower than a script) and `up --yes` (no terminal to confirm on).
 * Then the endpoint must be in the emulator, and destroy takes it away.
 */
import { execFileSync, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { countCliCommand } from "../support/cli-commands";
import { PULUMI_CLI_MISSING, cliBinDir } from "../support/pulumi-cli";

const ROOT = resolve(__dirname, "../..");

/** The first sh block after the README's "To run a program yourself". */
function readmeBlock(): string {
  const readme = readFileSync(join(ROOT, "README.md"), "utf8");
  const from = readme.indexOf("To run a program yourself");
  const m = /```sh\n([\s\S]*?)```/.exec(readme.slice(from));
  if (from < 0 || !m) throw new Error("README.md has no sh block after 'To run a program yourself'");
  return m[1]!;
}

function freePort(): Promise<number> {
  return new Promise((ok) => {
    const srv = createServer().listen(0, "127.0.0.1", () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => ok(port));
    });
  });
}

if (PULUMI_CLI_MISSING) console.log(`README commands: skipped: ${PULUMI_CLI_MISSING}`);
describe.skipIf(PULUMI_CLI_MISSING !== undefined)("the README's commands, with the real Pulumi CLI", () => {
  it("start the emulator, init a stack, set config and up the quickstart; destroy removes the endpoint", async () => {
    const port = await freePort();
    const home = mkdtempSync(join(tmpdir(), "svc-readme-"));
    const keys = `http://127.0.0.1:${port}/_emulator/keys`;
    const block = readmeBlock();
    expect(block, "the block the README shows").toMatch(/pulumi stack init dev[\s\S]*pulumi up\s*$/);
    const script = block
      .replaceAll("4010", String(port))
      .replace(/^(npm run emulator.*&)$/m, `$1\nuntil curl -sf ${keys} >/dev/null; do sleep 0.2; done`)
      .replace("<webhooks admin key>", `"$(curl -s ${keys} | node -pe 'JSON.parse(require("fs").readFileSync(0, "utf8")).webhooks.admin')"`)
      .replace(/^pulumi up$/m, "pulumi up --yes");
    const env = {
      ...process.env,
      HOME: home,
      PATH: `${cliBinDir()}:${process.env["PATH"]}`,
      PULUMI_SKIP_UPDATE_CHECK: "true",
      PULUMI_HOME: "",
      PULUMI_BACKEND_URL: "",
      PULUMI_CONFIG_PASSPHRASE: "",
    };
    // Done when bash exits: the emulator it left in the background still holds its output open.
    const shell = (text: string) => {
      // Each `pulumi` line of the script is one command (for the summary's count).
      for (const line of text.split("\n")) if (/^\s*pulumi\s/.test(line)) countCliCommand(line.trim().split(/\s+/).slice(1));
      return new Promise<{ status: number | null; stdout: string; stderr: string }>((done) => {
        const bash = spawn("bash", ["-c", `set -euo pipefail\n${text}`], { cwd: ROOT, env, stdio: ["ignore", "pipe", "pipe"] });
        let stdout = "";
        let stderr = "";
        bash.stdout.on("data", (b: Buffer) => (stdout += b.toString()));
        bash.stderr.on("data", (b: Buffer) => (stderr += b.toString()));
        bash.once("exit", (status) => done({ status, stdout, stderr }));
      });
    };
    try {
      const up = await shell(`${script}\ncurl -s -H "authorization: Bearer $(curl -s ${keys} | node -pe 'JSON.parse(require("fs").readFileSync(0, "utf8")).webhooks.read')" http://127.0.0.1:${port}/webhooks/v1/endpoints > ${home}/held.json\npulumi destroy --yes\npulumi stack rm dev --yes`);
      expect(up.status, `${up.stdout}\n${up.stderr}`).toBe(0);
      expect(up.stdout).toMatch(/\+ 2 created/);
      expect(up.stdout).toMatch(/- 2 deleted/);
      const held = JSON.parse(readFileSync(join(home, "held.json"), "utf8")) as { data: { url: string }[] };
      expect(held.data.map((e) => e.url)).toEqual(["https://hooks.example.com/orders"]);
      expect(`${up.stdout}${up.stderr}`, "the team token never printed").not.toContain("anything");
    } finally {
      // The block's `pulumi stack init dev` wrote the stack's config file beside the program.
      rmSync(join(ROOT, "examples/quickstart/Pulumi.dev.yaml"), { force: true });
      try {
        execFileSync("pkill", ["-f", `cli.js --port ${port}`]);
      } catch {
        // not running
      }
      rmSync(home, { recursive: true, force: true });
    }
  }, 300_000);
});
