/**
 * What a developer reads at the end of every run (README, "Testing with the real Pulumi CLI"): the slowest files
 * with their times and the real Pulumi CLI commands each ran, and one closing line "N passed, N failed, N skipped" that counts a
 * file that could not load, or whose `beforeAll` threw, and an error no test caught, as
 * failed; and a failure fails the command, as does a `.only` left in a file. Run on a scratch suite with vitest
 * itself and the repository's shared options (test/support/vitest-base.mts), as `npm test` runs it, with no CI variable.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, expect, it } from "vitest";

const root = resolve(__dirname, "..", "..");
const scratch = mkdtempSync(join(tmpdir(), "svc-reporter-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

function runVitest(files: Record<string, string>): { status: number | null; out: string } {
  const dir = mkdtempSync(join(scratch, "suite-"));
  symlinkSync(join(root, "node_modules"), join(dir, "node_modules"));
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  // The repository's shared options (reporters, `.only` refused), on a developer's machine: no CI variable.
  writeFileSync(join(dir, "vitest.config.mts"), `import { BASE_TEST_OPTIONS } from ${JSON.stringify(join(root, "test", "support", "vitest-base.mts"))};\nexport default { test: BASE_TEST_OPTIONS };\n`);
  const { CI: _ci, ...env } = process.env;
  const r = spawnSync(process.execPath, [join(root, "node_modules", "vitest", "vitest.mjs"), "run", "--root", dir], { encoding: "utf8", env: { ...env, FORCE_COLOR: "0" } });
  return { status: r.status, out: `${r.stdout}${r.stderr}` };
}

it("a passing run: the slowest files and the closing line, exit 0", () => {
  const r = runVitest({ "a.test.ts": `import { it } from "vitest"; it("one", () => {}); it.skip("two", () => {});` });
  expect(r.out).toMatch(/Slowest test files \(wall time, real Pulumi CLI commands run\):\n\s+\d+\.\d s +0 CLI {2}a\.test\.ts\n/);
  expect(r.out).toContain("1 passed, 0 failed, 1 skipped");
  expect(r.status).toBe(0);
}, 60_000);

it("beside each file's time, the real CLI commands it ran (in its hooks too), with how many of each verb, and of those run with --skip-preview", () => {
  const counting = `import { countCliCommand } from ${JSON.stringify(join(root, "test", "support", "cli-commands.ts"))};`;
  const r = runVitest({
    "cli.test.ts": `import { beforeAll, it } from "vitest"; ${counting}
      beforeAll(() => { countCliCommand(["stack", "init", "dev", "--non-interactive"]); countCliCommand(["config", "set-all", "--stack", "dev", "--plaintext", "a=b"]); });
      it("runs", () => { countCliCommand(["up", "--stack", "dev", "--yes"]); countCliCommand(["up", "--skip-preview", "--stack", "dev"]); countCliCommand(["destroy", "--yes"]); });`,
    "other.test.ts": `import { it } from "vitest"; ${counting} it("previews", () => { countCliCommand(["preview", "--stack", "dev"]); });`,
    "none.test.ts": `import { it } from "vitest"; it("pure", () => {});`,
  });
  expect(r.status, r.out).toBe(0);
  expect(r.out).toMatch(/\n\s+\d+\.\d s +5 CLI {2}cli\.test\.ts {2}\(config set-all 1, destroy 1, stack init 1, up 1, up --skip-preview 1\)\n/);
  expect(r.out).toMatch(/\n\s+\d+\.\d s +1 CLI {2}other\.test\.ts {2}\(preview 1\)\n/);
  expect(r.out).toMatch(/\n\s+\d+\.\d s +0 CLI {2}none\.test\.ts\n/);
  expect(r.out).toContain("3 passed, 0 failed, 0 skipped");
}, 60_000);

it("a file that does not load and a failing beforeAll count as failures, named; the command fails", () => {
  const r = runVitest({
    "ok.test.ts": `import { it } from "vitest"; it("fine", () => {});`,
    "broken.test.ts": `import { it } from "vitest"; import "./missing-module"; it("never", () => {});`,
    "hook.test.ts": `import { beforeAll, it } from "vitest"; beforeAll(() => { throw new Error("setup failed"); }); it("a", () => {}); it("b", () => {});`,
  });
  expect(r.out).toMatch(/Files that failed outside their tests:\n\s+broken\.test\.ts/);
  expect(r.out).toContain("1 passed, 3 failed, 0 skipped");
  expect(r.status).toBe(1);
}, 60_000);

it("a passing test that leaks an unhandled rejection counts as a failure; the command fails", () => {
  const r = runVitest({ "leak.test.ts": `import { it } from "vitest"; it("passes", async () => { void Promise.reject(new Error("leaked")); await new Promise((r) => setTimeout(r, 50)); });` });
  expect(r.out).toContain("Errors no test caught");
  expect(r.out).toContain("1 passed, 1 failed, 0 skipped");
  expect(r.status).toBe(1);
}, 60_000);

it("a `.only` left in a file fails the command, with no CI variable set, rather than skip the rest", () => {
  const r = runVitest({ "only.test.ts": `import { it } from "vitest"; it.only("focused", () => {}); it("the rest", () => { throw new Error("never run"); });` });
  expect(r.out).toContain("only");
  expect(r.status).not.toBe(0);
}, 60_000);

it("the repository's own config (vitest.config.mts) runs with those shared options, none overridden", async () => {
  const [{ default: config }, { BASE_TEST_OPTIONS }] = await Promise.all([import("../../vitest.config.mjs"), import("../support/vitest-base.mjs")]);
  expect(config.test).toMatchObject(BASE_TEST_OPTIONS);
  for (const project of config.test?.projects ?? []) for (const key of Object.keys(BASE_TEST_OPTIONS)) expect(project).not.toHaveProperty(`test.${key}`);
});
