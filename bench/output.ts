/**
 * Where a benchmark writes its results: the committed bench/results only when asked
 * with `--record`; otherwise the gitignored bench/.scratch, so a quick run (e.g.
 * `npm run bench -- --sizes 10`) never overwrites the committed numbers.
 *
 *   const { values } = parseArgs({ options: { ...RECORD_OPTION, ... } });
 *   const out = benchOutput(values.record);
 *   out.write("stack.md", text);          // prints where it went at the end with out.report()
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";

const ROOT = join(__dirname, "..");

/** The `--record` flag, for a bench script's parseArgs options. */
export const RECORD_OPTION = { record: { type: "boolean", default: false } } as const;

export interface BenchOutput {
  /** The folder written to: bench/results with `--record`, else bench/.scratch. */
  dir: string;
  /** Write one result file; returns its path relative to the repository. */
  write(name: string, content: string): string;
  /** A line saying what was written and where (and how to record, for a scratch run). */
  report(): string;
}

export function benchOutput(record: boolean | undefined): BenchOutput {
  const dir = join(ROOT, "bench", record ? "results" : ".scratch");
  const written: string[] = [];
  return {
    dir,
    write(name, content) {
      mkdirSync(dir, { recursive: true });
      writeFileSync(join(dir, name), content);
      const path = relative(ROOT, join(dir, name));
      written.push(path);
      return path;
    },
    report() {
      const what = written.length ? `wrote ${written.join(", ")}` : "wrote nothing";
      return record ? `${what}\n` : `${what} (a scratch run: add --record to update the committed bench/results)\n`;
    },
  };
}
