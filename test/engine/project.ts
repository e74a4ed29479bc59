// Pulumi.yaml, read the way the CLI and the Node.js language host read it: the
// project name, `main` (which decides the program directory and entry point) and
// the nodejs runtime options `nodeargs` and `typescript`.

import * as fs from "node:fs";
import * as path from "node:path";

export interface Project {
  name: string;
  /** The directory holding Pulumi.yaml (--root-directory). */
  root: string;
  /** The program directory (--pwd) and the entry point given to cmd/run. */
  programDir: string;
  entryPoint: string;
  nodeArgs: string[];
  /** Warnings about how the real CLI would treat this project. */
  warnings: string[];
}

interface PulumiYaml {
  name?: string;
  main?: string;
  runtime?: string | { name?: string; options?: { nodeargs?: string; typescript?: boolean } };
}

export function readProject(dir: string): Project {
  const root = path.resolve(dir);
  const file = ["Pulumi.yaml", "Pulumi.yml"].map((f) => path.join(root, f)).find((f) => fs.existsSync(f));
  if (!file) throw new Error(`no Pulumi.yaml in ${root}`);
  // js-yaml comes with @pulumi/pulumi (a dependency of ours); it is untyped here.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const yaml = require("js-yaml") as { load(s: string): unknown };
  const doc = (yaml.load(fs.readFileSync(file, "utf8")) ?? {}) as PulumiYaml;
  if (!doc.name) throw new Error(`${file} has no name`);
  const options = typeof doc.runtime === "object" ? (doc.runtime.options ?? {}) : {};
  const warnings: string[] = [];

  // The language host: a `main` that is a file gives (its directory, its name); a
  // directory or nothing gives (that directory, "."). cmd/run resolves "." through
  // the nearest package.json's exports/main, even one far above the program.
  let programDir = root;
  let entryPoint = ".";
  if (doc.main) {
    const m = path.resolve(root, doc.main);
    if (fs.existsSync(m) && fs.statSync(m).isDirectory()) programDir = m;
    else {
      programDir = path.dirname(m);
      entryPoint = path.basename(m);
    }
  } else {
    const hijack = enclosingPackageEntry(root);
    if (hijack) {
      warnings.push(
        `${file} has no 'main', so the Node.js runtime would run ${hijack} (from the enclosing package.json's exports/main) instead of the program; add 'main: index.ts' to Pulumi.yaml`,
      );
    }
  }
  if (options.typescript !== false) {
    warnings.push(
      `${file} does not set runtime.options.typescript: false; the real CLI would then register ts-node (the vendored ts-node 7.0.1 here, with this repo's TypeScript) over the nodeargs loader`,
    );
  }
  const nodeArgs = options.nodeargs ? options.nodeargs.split(/\s+/).filter(Boolean) : [];
  return { name: doc.name, root, programDir, entryPoint, nodeArgs, warnings };
}

/** The file cmd/run would load for entry point "." if a package.json above says so. */
function enclosingPackageEntry(dir: string): string | undefined {
  for (let d = dir; ; d = path.dirname(d)) {
    const pj = path.join(d, "package.json");
    if (fs.existsSync(pj)) {
      const pkg = JSON.parse(fs.readFileSync(pj, "utf8")) as { exports?: unknown; main?: string };
      const exp = pkg.exports;
      let entry: string | undefined;
      if (typeof exp === "string") entry = exp;
      else if (exp && typeof exp === "object") {
        const dot = (exp as Record<string, unknown>)["."];
        if (typeof dot === "string") entry = dot;
        else if (dot && typeof dot === "object") {
          const o = dot as Record<string, string | undefined>;
          entry = o["default"] ?? o["require"] ?? o["import"];
        }
      } else entry = pkg.main;
      if (!entry) return undefined;
      const abs = path.resolve(d, entry);
      return path.dirname(abs) === dir ? undefined : abs;
    }
    if (path.dirname(d) === d) return undefined;
  }
}
