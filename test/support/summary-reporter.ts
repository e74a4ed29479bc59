import type { Reporter, TestModule } from "vitest/node" with { "resolution-mode": "import" };

/**
 * Prints one plain closing line, "N passed, N failed, N skipped", that CI reads
 * to know how many tests ran (vitest's own summary is not in the list it parses).
 */
export default class SummaryReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    let passed = 0;
    let failed = 0;
    let skipped = 0;
    for (const mod of testModules) {
      for (const test of mod.children.allTests()) {
        const state = test.result().state;
        if (state === "passed") passed++;
        else if (state === "failed") failed++;
        else skipped++;
      }
    }
    process.stdout.write(`\n${passed} passed, ${failed} failed, ${skipped} skipped\n`);
  }
}
