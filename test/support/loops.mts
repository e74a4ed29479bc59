/**
 * The two test loops (README, "Testing with the real Pulumi CLI"), decided by what a file imports, so the split
 * never rots into a hand list: a test file is in the inner loop (`npm run test:fast`)
 * unless it reaches, through its relative imports (static or dynamic, anywhere in the
 * repository), a module that starts a Pulumi CLI process or the engine stand-in, packs
 * the package, or plays the model's runs. Everything else runs in-process against the
 * emulator (or is pure), and needs neither Go nor the CLI.
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";

/** The modules whose users are in the outer loop (paths from the repository's root). */
const OUTER = [/^test\/support\/pulumi-cli\.ts$/, /^test\/engine\//, /^test\/package\/project\.ts$/, /^test\/model\/world\.ts$/];

/**
 * A module's relative imports: `from "./x"`, `import "./x"`, `import("./x")`, `vi.importActual("./x")`,
 * `vi.mock("./x")`, either quote.
 */
const IMPORT = /(?:\bfrom\s+|\bimport\s*\(\s*|\bimport\s+|\bvi\.(?:importActual|importMock|mock|doMock)\s*(?:<[^>]*>)?\(\s*)(["'])(\.{1,2}\/[^"']+)\1/g;

/** An import whose path is computed (a template literal, a string joined to another, a variable): the split cannot follow it. */
const COMPUTED_IMPORT = /\b(?:import|vi\.(?:importActual|importMock|mock|doMock)\s*(?:<[^>]*>)?)\(\s*(?:`|(["'])[^"'\n]*\1\s*\+|[A-Za-z_$])/;

function testFilesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return name === "fixtures" ? [] : testFilesUnder(path);
    return name.endsWith(".test.ts") ? [path] : [];
  });
}

/** The file a relative import names (TypeScript's resolution of the forms this repository uses). */
function resolveImport(from: string, spec: string): string | undefined {
  const base = resolve(dirname(from), spec);
  // Under node16 resolution `./x.js` names `./x.ts` (and `./x.mjs`, `./x.mts`).
  const emitted = base.replace(/\.(m?)js$/, ".$1ts");
  return [base, emitted, `${base}.ts`, `${base}.mts`, join(base, "index.ts")].find((p) => /\.m?ts$/.test(p) && existsSync(p));
}

/** The repository's test files, split into the inner loop and the rest (paths from `root`). */
export function testLoops(root: string): { fast: string[]; cli: string[] } {
  const rel = (file: string) => relative(root, file).split("\\").join("/");
  // The import graph from the test files, walked once; then which modules reach an outer one (cycles are fine: a
  // module is outer when any path from it leads to an OUTER module).
  const imports = new Map<string, string[]>();
  const files = testFilesUnder(join(root, "test"));
  const pending = [...files];
  while (pending.length > 0) {
    const file = pending.pop()!;
    if (imports.has(file)) continue;
    const text = readFileSync(file, "utf8");
    if (COMPUTED_IMPORT.test(text)) throw new Error(`${rel(file)} imports a module by a computed path (a template literal, a joined string or a variable): the loops' split (test/support/loops.mts) cannot tell whether it reaches the Pulumi CLI. Import it by a string literal.`);
    const targets = [...text.matchAll(IMPORT)].flatMap(([, , spec]) => resolveImport(file, spec!) ?? []).filter((t) => !t.includes("node_modules"));
    imports.set(file, targets);
    pending.push(...targets);
  }
  const outer = new Set([...imports.keys()].filter((f) => OUTER.some((re) => re.test(rel(f)))));
  for (let grew = true; grew; ) {
    grew = false;
    for (const [file, targets] of imports)
      if (!outer.has(file) && targets.some((t) => outer.has(t))) {
        outer.add(file);
        grew = true;
      }
  }
  const fast: string[] = [];
  const cli: string[] = [];
  for (const file of files) (outer.has(file) ? cli : fast).push(rel(file));
  return { fast, cli };
}
