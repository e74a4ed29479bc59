/**
 * The traceback our Python runner (scripts/pulumi-cli/python-exec.py) shows for an exception
 * of the program: from the program's first frame on, as Pulumi's own runner shows it, without
 * the frames of runpy above it. Since Python 3.11 those are "<frozen runpy>", a name that
 * os.path.abspath puts in the current directory, which is the program's (issue 37, F1).
 * In-process: the runner's function on a plain `raise`, with a stand-in `pulumi` package.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { expect, it } from "vitest";

const RUNNER = resolve(__dirname, "../../scripts/pulumi-cli/python-exec.py");

it("a program's exception is shown from the program's frame on, without runpy's frames", () => {
  const dir = mkdtempSync(join(tmpdir(), "py-traceback-"));
  const stub = join(dir, "stub", "pulumi");
  mkdirSync(stub, { recursive: true });
  writeFileSync(join(stub, "__init__.py"), "");
  writeFileSync(join(stub, "runtime.py"), "");
  const program = join(dir, "program");
  mkdirSync(program);
  writeFileSync(join(program, "__main__.py"), 'def check(n):\n    raise ValueError(f"bad {n}")\n\ncheck(5)\n');
  const harness = [
    "import importlib.util, runpy, sys",
    `spec = importlib.util.spec_from_file_location("runner", ${JSON.stringify(RUNNER)})`,
    "runner = importlib.util.module_from_spec(spec); spec.loader.exec_module(runner)",
    "try:",
    "    runpy.run_path(sys.argv[1], run_name='__main__')",
    "except Exception:",
    "    print(runner.program_traceback(sys.argv[1]), end='')",
  ].join("\n");
  // The runner runs with the program's directory as the current one, as Pulumi's host starts it.
  const shown = execFileSync("python3", ["-c", harness, program], { cwd: program, env: { ...process.env, PYTHONPATH: join(dir, "stub"), PYTHONDONTWRITEBYTECODE: "1" }, encoding: "utf8" });
  expect(shown).not.toContain("runpy");
  expect(shown.split("\n")).toEqual([
    "Traceback (most recent call last):",
    `  File "${join(program, "__main__.py")}", line 4, in <module>`,
    "    check(5)",
    `  File "${join(program, "__main__.py")}", line 2, in check`,
    '    raise ValueError(f"bad {n}")',
    "ValueError: bad 5",
    "",
  ]);
});
