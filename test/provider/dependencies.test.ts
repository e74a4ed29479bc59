/**
 * The provider's import graph, read with the TypeScript compiler (type-only imports
 * count: a newcomer follows them too). provider/ never imports from the SDK, the
 * policy pack, scripts or tests (the SDK sits on top of it), and no file of provider/
 * reaches itself again through its imports.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import ts from "typescript";
import { expect, it } from "vitest";

const ROOT = path.resolve(__dirname, "../..");
const PROVIDER = path.join(ROOT, "provider");

function tsFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    return e.isDirectory() ? tsFiles(p) : p.endsWith(".ts") ? [p] : [];
  });
}

/** file → the files of the repository it imports (relative specifiers only: packages are no arrow of ours). */
function importGraph(files: string[]): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const imported = ts.preProcessFile(fs.readFileSync(file, "utf8"), true, true).importedFiles.map((i) => i.fileName);
    const targets = imported
      .filter((name) => name.startsWith("."))
      .map((name) => {
        const base = path.resolve(path.dirname(file), name);
        return fs.existsSync(`${base}.ts`) ? `${base}.ts` : path.join(base, "index.ts");
      });
    graph.set(file, targets);
  }
  return graph;
}

/** The strongly connected components of more than one file (Tarjan): each is a circle. */
function circles(graph: Map<string, string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string) => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!graph.has(w)) continue;
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const component: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      component.push(path.relative(ROOT, w));
    } while (w !== v);
    if (component.length > 1) found.push(component.sort());
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return found;
}

const graph = importGraph(tsFiles(PROVIDER));

it("provider/ imports nothing from the SDK, the policy pack, scripts or tests", () => {
  const upward = [...graph].flatMap(([file, targets]) =>
    targets.filter((t) => !t.startsWith(PROVIDER + path.sep) && !t.startsWith(path.join(ROOT, "rules") + path.sep)).map((t) => `${path.relative(ROOT, file)} → ${path.relative(ROOT, t)}`),
  );
  expect(upward).toEqual([]);
});

it("no circle of imports among the files of provider/", () => {
  expect(circles(graph)).toEqual([]);
});
