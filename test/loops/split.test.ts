/**
 * The split of the two loops (test/support/loops.mts) on a scratch repository: a test file
 * reaching the CLI helpers by a relative import is in the outer loop, and only such a file:
 * a static import with either quote or a `.js` extension, a dynamic `import()`,
 * `vi.importActual`, through a module outside test/, through an import cycle. An import by
 * a computed path is refused, naming the file. (The scratch files sit where their imports
 * resolve to nothing from this file, so this file stays in the inner loop.)
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, expect, it } from "vitest";

const root = mkdtempSync(join(tmpdir(), "svc-loops-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

function write(files: Record<string, string>): void {
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
}

it("a file reaching the CLI helpers by any import is in the outer loop; the others are in the inner one", async () => {
  // An ES module (vitest.config.mts imports it too), from this CommonJS-typed test.
  const { testLoops } = await import("../support/loops.mjs");
  write({
    "test/support/pulumi-cli.ts": `export const runCli = () => 0;\n`,
    "test/pure.test.ts": `import { it } from "vitest";\nit("x", () => {});\n`,
    "test/double.test.ts": `import { runCli } from "./support/pulumi-cli";\n`,
    "test/single.test.ts": `import { runCli } from './support/pulumi-cli';\n`,
    "test/dynamic.test.ts": `const cli = await import("./support/pulumi-cli");\n`,
    "test/side-effect.test.ts": `import "./support/pulumi-cli";\n`,
    "scripts/helper.ts": `export { runCli } from "../test/support/pulumi-cli";\n`,
    "test/outside.test.ts": `import { runCli } from "../scripts/helper";\n`,
    "test/js-extension.test.ts": `import { runCli } from "./support/pulumi-cli.js";\n`,
    "test/import-actual.test.ts": `const cli = await vi.importActual<object>("./support/pulumi-cli");\n`,
    "test/cycle-a.ts": `import { b } from "./cycle-b";\nimport { runCli } from "./support/pulumi-cli";\nexport const a = 1;\n`,
    "test/cycle-b.ts": `import { a } from "./cycle-a";\nexport const b = 2;\n`,
    "test/cycle-only-b.test.ts": `import { b } from "./cycle-b";\n`,
    "test/cycle-a-first.test.ts": `import { a } from "./cycle-a";\nimport { b } from "./cycle-b";\n`,
  });
  const loops = testLoops(root);
  expect(loops.fast).toEqual(["test/pure.test.ts"]);
  expect([...loops.cli].sort()).toEqual(
    ["test/cycle-a-first.test.ts", "test/cycle-only-b.test.ts", "test/double.test.ts", "test/dynamic.test.ts", "test/import-actual.test.ts", "test/js-extension.test.ts", "test/outside.test.ts", "test/side-effect.test.ts", "test/single.test.ts"].sort(),
  );

  // (Spelt so that this file's own text holds no computed import.)
  for (const computed of [`await import(\`./support/\${"pulumi-cli"}\`)`, `await ${"import"}("./support/" + "pulumi-cli")`, `await ${"import"}(where)`]) {
    write({ "test/computed.test.ts": `const where = "./support/pulumi-cli";\nconst cli = ${computed};\n` });
    expect(() => testLoops(root), computed).toThrow("test/computed.test.ts imports a module by a computed path");
  }
});

it("this file is in the inner loop", async () => {
  const { testLoops } = await import("../support/loops.mjs");
  expect(testLoops(join(__dirname, "../..")).fast).toContain("test/loops/split.test.ts");
});
