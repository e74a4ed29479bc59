import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Reporter, TestCase, TestModule, TestSuite } from "vitest/node" with { "resolution-mode": "import" };
import { CLI_COMMANDS_DIR_ENV, readCliCommands } from "./cli-commands";

/**
 * Prints the ten slowest test files with their wall times (so the split of the suite's
 * time is measured, not guessed) and, beside each, the real Pulumi CLI commands it ran
 * (how many, and how many of each verb: test/support/cli-commands.ts), then one plain closing line, "N passed, N failed,
 * N skipped", that CI reads to know how many tests ran (vitest's own summary is not in
 * the list it parses). A test that never ran because a hook of its suite or file failed
 * (a `beforeAll` that threw) counts as failed: vitest marks it skipped. A file that failed
 * with no test failed in it (it did not load, or an `afterAll` threw) counts as one
 * failure, and is named; so does an error no test caught (vitest then fails the run).
 */
export default class SummaryReporter implements Reporter {
  /** Where the workers (which inherit the variable) record the commands they start. */
  private commandsDir: string | undefined;

  onInit(): void {
    // A reporter of a run inside a run (summary-reporter.test.ts) counts its own workers' commands, not its parent's.
    const dir = mkdtempSync(join(tmpdir(), "svc-cli-commands-"));
    this.commandsDir = dir;
    process.env[CLI_COMMANDS_DIR_ENV] = dir;
    process.once("exit", () => rmSync(dir, { recursive: true, force: true }));
  }

  onTestRunEnd(testModules: ReadonlyArray<TestModule>, unhandledErrors: ReadonlyArray<unknown>): void {
    // Read, then emptied for the next run of a watching vitest (its workers keep the directory's name).
    const commands = this.commandsDir ? readCliCommands(this.commandsDir, { clear: true }) : new Map<string, Map<string, number>>();
    const slowest = [...testModules].map((mod) => ({ file: mod.relativeModuleId, ms: mod.diagnostic().duration, commands: commands.get(mod.moduleId) })).sort((a, b) => b.ms - a.ms).slice(0, 10);
    const row = (s: (typeof slowest)[number]) => {
      const byVerb = [...(s.commands ?? new Map<string, number>())].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
      const total = byVerb.reduce((n, [, k]) => n + k, 0);
      return `${(s.ms / 1000).toFixed(1).padStart(8)} s ${String(total).padStart(4)} CLI  ${s.file}${total ? `  (${byVerb.map(([verb, k]) => `${verb} ${k}`).join(", ")})` : ""}`;
    };
    process.stdout.write(`\nSlowest test files (wall time, real Pulumi CLI commands run):\n${slowest.map(row).join("\n")}\n`);
    let passed = 0;
    let failed = 0;
    let skipped = 0;
    const brokenFiles: string[] = [];
    for (const mod of testModules) {
      const failedBefore = failed;
      for (const test of mod.children.allTests()) {
        const state = test.result().state;
        if (state === "passed") passed++;
        else if (state === "failed" || (test.options.mode === "run" && underFailedHook(test))) failed++;
        else skipped++;
      }
      if (mod.state() === "failed" && failed === failedBefore) brokenFiles.push(mod.relativeModuleId);
    }
    failed += brokenFiles.length + unhandledErrors.length;
    if (brokenFiles.length > 0) process.stdout.write(`\nFiles that failed outside their tests:\n${brokenFiles.map((f) => `  ${f}`).join("\n")}\n`);
    if (unhandledErrors.length > 0) process.stdout.write(`\nErrors no test caught (an uncaught exception or an unhandled rejection), each counted as a failure: ${unhandledErrors.length}\n`);
    process.stdout.write(`\n${passed} passed, ${failed} failed, ${skipped} skipped\n`);
  }
}

function underFailedHook(test: TestCase): boolean {
  for (let p: TestSuite | TestModule = test.parent; ; p = p.parent) {
    if (p.state() === "failed") return true;
    if (p.type === "module") return false;
  }
}
