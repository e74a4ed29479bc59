/**
 * The real-CLI suites run some programs compiled once (test/support/compiled-program.ts) rather than through tsx: each
 * such program, as written, must still be one a user runs through tsx, or a page whose project lost its loader (and so
 * fails for its users on TypeScript-only syntax) would pass the suites.
 */
import { mkdtempSync, readdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { compiledProgram } from "../support/compiled-program";

const program = (project: string) => {
  const dir = mkdtempSync(join(tmpdir(), "svc-compiled-"));
  writeFileSync(join(dir, "Pulumi.yaml"), project);
  writeFileSync(join(dir, "index.ts"), `const n: number = 1;\nexport const out = n;\n`);
  return dir;
};

describe("compiledProgram", () => {
  it("refuses a program whose Pulumi.yaml does not run index.ts through tsx, as a user's run would fail on its TypeScript", () => {
    for (const project of [
      "name: p\nmain: index.ts\nruntime:\n  name: nodejs\n  options:\n    typescript: false\n",
      "name: p\nmain: index.js\nruntime:\n  name: nodejs\n  options:\n    typescript: false\n    nodeargs: --require tsx/cjs\n",
      "name: p\nmain: index.ts\nruntime:\n  name: nodejs\n  options:\n    nodeargs: --require tsx/cjs\n",
    ])
      expect(() => compiledProgram(program(project)), project).toThrow(/is not `main: index.ts` run by `nodeargs: --require tsx\/cjs` with `typescript: false`/);
  });

  it("the docs' example programs are each run as a user runs them (every one compiles here)", () => {
    const examples = join(__dirname, "..", "..", "docs", "examples");
    const pages = readdirSync(examples);
    expect(pages.length).toBeGreaterThan(0);
    for (const page of pages) expect(() => compiledProgram(join(examples, page)), page).not.toThrow();
  });
});
