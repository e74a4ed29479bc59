import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { defineConfig } from "vitest/config";

// The provider's create journal (provider/engine/create-journal.ts) lives in the user's home by
// default; a test run keeps its own, so no run adopts what another run's killed creates left.
const journalDir = mkdtempSync(join(tmpdir(), "svc-test-journal-"));

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // Suites start real servers and real Pulumi processes; generous limits, no timing assertions.
    testTimeout: 120_000,
    hookTimeout: 120_000,
    pool: "forks",
    // Two files at a time: most suites wait on real processes, latency and reconcile
    // windows rather than compute, so two workers shorten a run on CI's 2 cores.
    maxWorkers: 2,
    env: { SVC_JOURNAL_DIR: journalDir },
    reporters: ["default", "./test/support/summary-reporter.ts"],
  },
});
