/**
 * The two test loops (README, "Tests"), decided by what a file imports, so the split
 * never rots into a hand list: a test file is in the inner loop (`npm run test:fast`)
 * unless it reaches, through its imports inside test/, a module that starts a Pulumi
 * CLI process or the engine stand-in, packs the package, or plays the model's runs.
 * Everything else runs in-process against the emulator (or is pure), and needs neither
 * Go nor the CLI.
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";

/** The modules whose users are in the outer loop (paths from the repository's root). */
const OUTER = [/^test\/support\/pulumi-cli\.ts$/, /^test\/engine\//, /^test\/package\/project\.ts$/, /^test\/model\/world\.ts$/];

function testFilesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return name === "fixtures" ? [] : testFilesUnder(path);
    return name.endsWith(".test.ts") ? [path] : [];
  });
}

/** The repository's test files, split into the inner loop and the rest (paths from `root`). */
export function testLoops(root: string): { fast: string[]; cli: string[] } {
  const testDir = join(root, "test");
  const outer = new Map<string, boolean>();
  const reachesOuter = (file: string, seen: Set<string>): boolean => {
    if (OUTER.some((re) => re.test(relative(root, file).split("\\").join("/")))) return true;
    const known = outer.get(file);
    if (known !== undefined) return known;
    if (seen.has(file)) return false;
    seen.add(file);
    let result = false;
    for (const [, spec] of readFileSync(file, "utf8").matchAll(/from\s+"(\.[^"]+)"/g)) {
      const base = resolve(dirname(file), spec!);
      const target = [`${base}.ts`, join(base, "index.ts")].find((p) => existsSync(p));
      if (target && target.startsWith(testDir) && reachesOuter(target, seen)) {
        result = true;
        break;
      }
    }
    outer.set(file, result);
    return result;
  };
  const fast: string[] = [];
  const cli: string[] = [];
  for (const file of testFilesUnder(testDir)) (reachesOuter(file, new Set()) ? cli : fast).push(relative(root, file).split("\\").join("/"));
  return { fast, cli };
}
