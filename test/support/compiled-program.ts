/**
 * A one-file TypeScript test program (its Pulumi.yaml runs `main: index.ts` through
 * `nodeargs: --require tsx/cjs`) compiled to JavaScript once, for the suites to run with
 * plain Node: a command that runs the program then loads no TypeScript loader. Measured on
 * the lifecycle program, 15 program runs (preview, up, refresh, destroy): 55-58 s of CPU
 * instead of 63 s, about 0.4 s a command (issue 36). The program as written stays what a
 * user, the stand-in and the docs run.
 */
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";

const ROOT = resolve(__dirname, "..", "..");
const OUT = join(ROOT, "test", ".program-js");

/**
 * The directory of `sourceDir`'s program compiled (esbuild, as tsx compiles it), with a
 * Pulumi.yaml of the same project (its name is in every URN) and no TypeScript loader:
 * `test/.program-js/<its path in the repository>-<hash of the sources>` (inside the repository, so that
 * `pulumi-svc` and `@pulumi/pulumi` resolve as from the source), made when missing (workers
 * racing to make it each rename a whole copy: the first stays, the same as the others').
 */
export function compiledProgram(sourceDir: string): string {
  const source = readFileSync(join(sourceDir, "index.ts"), "utf8");
  const project = readFileSync(join(sourceDir, "Pulumi.yaml"), "utf8");
  const hash = createHash("sha256").update(source).update("\0").update(project).digest("hex").slice(0, 16);
  // Checked every time, not only when compiled: the program as written must run as a user's does (through tsx, which
  // takes TypeScript-only syntax), or a page whose project lost its loader would pass here and fail for its users.
  const plain = project.replace(/^main: index\.ts$/m, "main: index.js").replace(/^\s*nodeargs: --require tsx\/cjs\n/m, "");
  if (!/^main: index\.ts$/m.test(project) || !/^\s*nodeargs: --require tsx\/cjs$/m.test(project) || /tsx|nodeargs/.test(plain) || !/^\s*typescript: false$/m.test(plain)) {
    throw new Error(`${sourceDir}/Pulumi.yaml is not \`main: index.ts\` run by \`nodeargs: --require tsx/cjs\` with \`typescript: false\`: as written, the program would not run as compiled here`);
  }
  // Only a one-file program whose imports are packages compiles to one file that runs the same.
  if (/^import .* from ["']\./m.test(source)) throw new Error(`${sourceDir}/index.ts imports a file of its own: compiledProgram compiles only one-file programs`);
  const dir = join(OUT, `${relative(ROOT, sourceDir).split(sep).join("-")}-${hash}`);
  if (existsSync(join(dir, "Pulumi.yaml"))) return dir;
  mkdirSync(dirname(dir), { recursive: true });
  const partial = mkdtempSync(`${dir}.partial-`);
  // Loaded only here: a worker that finds the program compiled loads no compiler.
  const { transformSync } = require("esbuild") as typeof import("esbuild");
  writeFileSync(join(partial, "index.js"), transformSync(source, { loader: "ts", format: "cjs", platform: "node", target: "node20", sourcefile: join(sourceDir, "index.ts") }).code);
  writeFileSync(join(partial, "Pulumi.yaml"), plain);
  try {
    renameSync(partial, dir);
  } catch {
    rmSync(partial, { recursive: true, force: true });
  }
  return dir;
}
