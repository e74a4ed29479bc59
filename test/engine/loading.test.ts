// How programs are found and loaded: Pulumi.yaml's main and runtime options,
// tsx as the TypeScript loader, and the package's self-reference.

import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterEach, expect, test } from "vitest";
import { runEngine } from "./engine";
import { readProject } from "./project";

const tmpDirs: string[] = [];
afterEach(() => tmpDirs.splice(0).forEach((d) => fs.rmSync(d, { recursive: true, force: true })));

test("a program under the repository imports the package by its own name", async () => {
  const dir = path.join(__dirname, "fixtures", "selfref");
  const state = fs.mkdtempSync(path.join(os.tmpdir(), "engine-selfref-"));
  tmpDirs.push(state);
  const r = await runEngine({ verb: "up", cwd: dir, stack: "dev", stateFile: path.join(state, "dev.json") });
  expect(r.ok, r.diagnostics.map((d) => d.message).join("\n")).toBe(true);
  expect(r.outputs["packageName"]).toBe("pulumi-svc");
  expect(r.diagnostics.filter((d) => d.severity === "warning")).toEqual([]);
});

test("Pulumi.yaml without main under the repository: warned, because cmd/run would run the package's entry point", () => {
  // Inside the repository, so that the enclosing package.json (with exports) is found.
  const dir = fs.mkdtempSync(path.join(__dirname, ".tmp-nomain-"));
  tmpDirs.push(dir);
  fs.writeFileSync(path.join(dir, "Pulumi.yaml"), "name: nomain\nruntime: nodejs\n");
  const p = readProject(dir);
  expect(p.entryPoint).toBe(".");
  expect(p.warnings.join("\n")).toMatch(/no 'main'.*dist\/sdk\/index\.js.*add 'main: index\.ts'/s);
  expect(p.warnings.join("\n")).toMatch(/typescript: false/);

  fs.writeFileSync(path.join(dir, "Pulumi.yaml"), "name: withmain\nmain: index.ts\nruntime:\n  name: nodejs\n  options:\n    typescript: false\n    nodeargs: --require tsx/cjs\n");
  const q = readProject(dir);
  expect(q).toMatchObject({ programDir: dir, entryPoint: "index.ts", nodeArgs: ["--require", "tsx/cjs"], warnings: [] });
});
