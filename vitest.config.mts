import { defineConfig } from "vitest/config";

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
    reporters: ["default", "./test/support/summary-reporter.ts"],
  },
});
