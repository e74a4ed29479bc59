import { defineConfig } from "vitest/config";
import { testLoops } from "./test/support/loops.mjs";
import { BASE_TEST_OPTIONS } from "./test/support/vitest-base.mjs";

// The inner loop (`npm run test:fast`, `--project fast`) and the rest (`--project cli`), split by imports.
const loops = testLoops(import.meta.dirname);

export default defineConfig({
  test: {
    ...BASE_TEST_OPTIONS,
    // Three files at a time on CI's 2 cores: the real-CLI suites wait on processes,
    // latency and reconcile windows part of the time (open-question used 30 s of CPU in
    // 67 s), so a third worker fills the waits. Measured on six test/ownership files:
    // 493 s at two workers, 444 s at three, the same CPU time (issue 36).
    maxWorkers: 3,
    projects: [
      // The inner loop's files share each worker's loaded modules (no per-file module graph: the SDK, the provider and
      // the emulator load once per worker, not per file): 65-85 s instead of 131 s on 2 cores (issue 36). Each file
      // still starts its own emulator and restores what it changes in the environment.
      { extends: true, test: { name: "fast", include: loops.fast, isolate: false } },
      { extends: true, test: { name: "cli", include: loops.cli } },
    ],
  },
});
