/**
 * The real pack directory, as `pulumi preview --policy-pack policy` uses it:
 * PulumiPolicy.yaml for the nodejs runtime, and a package.json whose `main` is where
 * the repository build puts the compiled pack. When that build is current (as after
 * `npm run build`, which `npm test` runs first), the directory is started with the
 * real policy runtime to prove it loads.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { PACK_NAME } from "../../policy/pack";
import { AnalyzerClient } from "./analyzer-client";
import { PACK_DIR, REPO_ROOT } from "./pack-build";

const manifest = JSON.parse(fs.readFileSync(path.join(PACK_DIR, "package.json"), "utf8")) as { main: string; version: string };
const entry = path.resolve(PACK_DIR, manifest.main);

function newestSource(dir: string): number {
  return fs
    .readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name.endsWith(".ts"))
    .reduce((newest, e) => Math.max(newest, fs.statSync(path.join(e.parentPath, e.name)).mtimeMs), 0);
}

describe("policy/ as a pack directory", () => {
  it("declares the nodejs runtime and points main at the repository build's output for policy/index.ts", () => {
    expect(fs.readFileSync(path.join(PACK_DIR, "PulumiPolicy.yaml"), "utf8")).toMatch(/^runtime: nodejs$/m);
    // tsconfig.json: rootDir ".", outDir "dist" -> policy/index.ts compiles to dist/policy/index.js.
    expect(entry).toBe(path.join(REPO_ROOT, "dist/policy/index.js"));
    expect(manifest.version).toMatch(/^\d+\.\d+\.\d+$/);
    expect(fs.existsSync(path.join(PACK_DIR, "tsconfig.json")), "a tsconfig.json here would be handed to ts-node by the runtime").toBe(false);
  });

  it("loads with the real policy runtime from the current build", async (ctx) => {
    const built = fs.existsSync(entry) ? fs.statSync(entry).mtimeMs : 0;
    if (built < Math.max(newestSource(PACK_DIR), newestSource(path.join(REPO_ROOT, "rules")))) {
      const reason = "dist/policy is missing or older than its sources; run `npm run build` (npm test does) to check the real pack directory";
      process.stdout.write(`[skipped] ${ctx.task.name}: ${reason}\n`);
      ctx.skip(reason);
    }
    const analyzer = await AnalyzerClient.start({ packDir: PACK_DIR });
    try {
      const info = await analyzer.info();
      expect([info.name, info.version]).toEqual([PACK_NAME, manifest.version]);
    } finally {
      await analyzer.close();
    }
  });
});
