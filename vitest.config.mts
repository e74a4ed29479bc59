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
    // Two files at a time: most suites wait on real processes, latency and reconcile
    // windows rather than compute, so two workers shorten a run on CI's 2 cores.
    maxWorkers: 2,
    reporters: ["default", "./test/support/summary-reporter.ts"],
    projects: [
      { extends: true, test: { name: "fast", include: loops.fast } },
      { extends: true, test: { name: "cli", include: loops.cli } },
    ],
  },
});
