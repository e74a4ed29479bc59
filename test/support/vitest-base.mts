/**
 * The test options every run of this repository's tests shares (vitest.config.mts), and the
 * scratch suites of test/loops/summary-reporter.test.ts use to hold them.
 */
import { join } from "node:path";

export const BASE_TEST_OPTIONS = {
  // Suites start real servers and real Pulumi processes; generous limits, no timing assertions.
  testTimeout: 120_000,
  hookTimeout: 120_000,
  pool: "forks" as const,
  // A `.only` left in a file would skip the rest of it and still pass; vitest refuses it only where CI is set.
  allowOnly: false,
  reporters: ["default", join(import.meta.dirname, "summary-reporter.ts")],
};
