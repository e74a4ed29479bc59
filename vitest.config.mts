import { defineConfig } from "vitest/config";
import { testLoops } from "./test/support/loops.mts";

// The inner loop (`npm run test:fast`, `--project fast`) and the rest (`--project cli`), split by imports.
const loops = testLoops(import.meta.dirname);

export default defineConfig({
  test: {
    // Suites start real servers and real Pulumi processes; generous limits, no timing assertions.
    testTimeout: 120_000,
    hookTimeout: 120_000,
    pool: "forks",
    // Three files at a time on CI's 2 cores: the real-CLI suites wait on processes,
    // latency and reconcile windows part of the time (open-question used 30 s of CPU in
    // 67 s), so a third worker fills the waits. Measured on six test/ownership files:
    // 493 s at two workers, 444 s at three, the same CPU time (issue 36).
    maxWorkers: 3,
    reporters: ["default", "./test/support/summary-reporter.ts"],
    projects: [
      { extends: true, test: { name: "fast", include: loops.fast } },
      { extends: true, test: { name: "cli", include: loops.cli } },
    ],
  },
});
