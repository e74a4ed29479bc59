// Where the Python side of the real CLI is: our Python language host (python-host.ts) with
// its runner and code generator, and a virtual environment holding the `pulumi` package
// from PyPI and the `pulumi_svc` SDK generated from schema.json. One answer for
// `npm run pulumi:install` (python-install.ts builds it) and the tests.
//
// It lives beside the CLI's builds, in a directory of its own keyed by what goes into it
// (so a change to the host or the schema builds a new one, and never rebuilds the CLI):
//
//   ~/.cache/pulumi-svc/pulumi-cli/python-<key>/bin/   pulumi-language-python, -exec, pulumi-svc-python-gen
//   ~/.cache/pulumi-svc/pulumi-cli/python-<key>/venv/  python-requirements.txt, pulumi_svc

import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import * as fs from "node:fs";
import * as path from "node:path";
import { GO_HOST_MODULE_DIR, SHARED_GO_SOURCES } from "./go-host/install";
import { CLI_MODULE_DIR, cliCacheRoot } from "./locate";

/** schema.json, which the SDK is generated from. */
export const SCHEMA_FILE = path.resolve(CLI_MODULE_DIR, "../../schema.json");

/** The Python host's Go half (pulumi-svc-python-gen), a package of the Go host's module. */
const PYTHON_GEN_MAIN = path.join(GO_HOST_MODULE_DIR, "pygen", "main.go");

/** The virtualenv's packages, pinned (the file says why `pulumi` is at its version). */
export const PYTHON_REQUIREMENTS = path.join(CLI_MODULE_DIR, "python-requirements.txt");

/** The python3 that builds the virtual environment: its path and version, or why there is none. */
export function systemPython(): { python: string; version: string } | { missing: string } {
  const python = process.env["PULUMI_SVC_PYTHON"] || "python3";
  // `venv` makes the environment, `ensurepip` puts pip in it: Debian splits the latter into python3-venv.
  const r = spawnSync(python, ["-c", "import sys, venv, ensurepip; print(sys.executable); print(sys.version.split()[0])"], { encoding: "utf8" });
  if (r.error || r.status !== 0) {
    const why = r.error ? `${python} is not installed` : `${python} has no venv/ensurepip module`;
    return { missing: `${why}: the Python suites need python3 >= 3.9 with venv (Debian/Ubuntu: apt-get install python3 python3-venv; PULUMI_SVC_PYTHON names another python)` };
  }
  const [executable = python, version = ""] = r.stdout.trim().split("\n");
  return { python: executable, version };
}

/** The cache directory for this build of the Python side, for the given python3. */
export function pythonCacheDir(py: { python: string; version: string }): string {
  const hash = createHash("sha256");
  const ours = ["python-host.ts", "host-common.ts", "bundle-host.ts", "python-exec.py", "python-requirements.txt"].map((f) => path.join(CLI_MODULE_DIR, f));
  for (const f of [...ours, PYTHON_GEN_MAIN, ...SHARED_GO_SOURCES]) hash.update(fs.readFileSync(f));
  hash.update(fs.readFileSync(SCHEMA_FILE));
  hash.update(`${py.python} ${py.version}`);
  return path.join(cliCacheRoot(), `python-${hash.digest("hex").slice(0, 12)}`);
}

export type PythonLocation = { binDir: string; venv: string } | { missing: string };

/** The Python host's directory (for PATH) and the virtual environment, as pulumi:install built them. */
export function locatePython(): PythonLocation {
  const py = systemPython();
  if ("missing" in py) return py;
  const dir = pythonCacheDir(py);
  const venv = path.join(dir, "venv");
  if (!fs.existsSync(path.join(venv, "bin", "python")) || !fs.existsSync(path.join(dir, "bin", "pulumi-language-python"))) {
    return { missing: `the Python language host and SDK are not built for this checkout: run \`npm run pulumi:install\` (it builds them into ${dir})` };
  }
  return { binDir: path.join(dir, "bin"), venv };
}
