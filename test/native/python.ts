/**
 * Python programs of native resources under the real CLI: our Python host, which the Python
 * side of `npm run pulumi:install` built (with a virtualenv of the pinned `pulumi`), found
 * apart from support.ts so that only the Python suite asks python3 about itself.
 */
import { locatePython } from "../../scripts/pulumi-cli/python";
import { PULUMI_CLI_MISSING } from "../support/pulumi-cli";
import { PLUGIN_MISSING, type ProgramFiles } from "./support";

const python = locatePython();

/**
 * Why the Python programs cannot run here, or undefined: the CLI, the build, and the Python
 * side of `npm run pulumi:install` are needed. CI sets PULUMI_SVC_REQUIRE_CLI=1: missing is then a
 * failure of the suites that ask (`requirePython`), not a skip.
 */
export const PYTHON_MISSING: string | undefined =
  PULUMI_CLI_MISSING ?? PLUGIN_MISSING ?? ("missing" in python ? python.missing : undefined);

export function requirePython(): void {
  if (PYTHON_MISSING && process.env["PULUMI_SVC_REQUIRE_CLI"] === "1") throw new Error(`PULUMI_SVC_REQUIRE_CLI=1 but ${PYTHON_MISSING}`);
}

/**
 * A Python program, `__main__.py`, run with the virtualenv `venv` (the `virtualenv` runtime option, as a user
 * sets it): the one a user makes by `pip install` of the released wheel (test/release/artifacts.ts, part "venv").
 */
export function pythonProgram(main: string, venv: string): ProgramFiles {
  if ("missing" in python) throw new Error(python.missing);
  return {
    project: `runtime:\n  name: python\n  options:\n    virtualenv: ${JSON.stringify(venv)}\n`,
    files: { "__main__.py": main },
    binDirs: [python.binDir],
  };
}
