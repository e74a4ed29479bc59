/**
 * A benchmark run writes to the committed bench/results only with `--record`
 * (bench/output.ts): `npm run bench -- --sizes 10` must not overwrite the results.
 */
import { existsSync, readFileSync, rmSync } from "node:fs";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { afterEach, describe, expect, it } from "vitest";
import { benchOutput, RECORD_OPTION } from "../../bench/output";

const ROOT = resolve(__dirname, "../..");
const NAME = "output-test.md";
afterEach(() => {
  for (const dir of ["bench/.scratch", "bench/results"]) rmSync(join(ROOT, dir, NAME), { force: true });
});

const record = (args: string[]) => parseArgs({ args, options: RECORD_OPTION }).values.record;

describe("bench output", () => {
  it("goes to the gitignored bench/.scratch without --record, and says how to record", () => {
    const out = benchOutput(record([]));
    expect(out.write(NAME, "x")).toBe(join("bench/.scratch", NAME));
    expect(existsSync(join(ROOT, "bench/results", NAME))).toBe(false);
    expect(out.report()).toContain("--record");
    expect(readFileSync(join(ROOT, ".gitignore"), "utf8")).toMatch(/^bench\/\.scratch\/$/m);
  });

  it("goes to bench/results with --record", () => {
    expect(benchOutput(record(["--record"])).write(NAME, "x")).toBe(join("bench/results", NAME));
    expect(readFileSync(join(ROOT, "bench/results", NAME), "utf8")).toBe("x");
  });
});
