// pulumi-language-python: the Python language host the Pulumi CLI starts to run a Python
// program, and to generate a Python SDK (`pulumi package gen-sdk --language python`).
//
// Why ours: Pulumi's own host is the Go module
// github.com/pulumi/pulumi/sdk/python/cmd/pulumi-language-python/v3, which the Go module
// proxy these machines reach refuses (403), as it does the Node.js host's (see
// language-host.ts). The CLI, the engine and the Python SDK (the `pulumi` package from
// PyPI) stay the real ones. This host:
//
// - Run: starts the program's Python (the `virtualenv` runtime option, as Pulumi's host
//   reads it, else PULUMI_PYTHON_CMD, else python3) on our runner, python-exec.py
//   (installed beside this host as pulumi-language-python-exec: the PyPI package ships no
//   program runner, Pulumi's is a file of its host's module), with the arguments and
//   environment Pulumi's host gives its runner (read from its main.go: constructArguments,
//   constructConfig, constructConfigSecretKeys; toolchain.ActivateVirtualEnv).
// - GeneratePackage: hands the request to pulumi-svc-python-gen (pygen/main.go), Pulumi's
//   Python code generator built from the CLI's own module.
//
// Left out, because nothing here needs them: the poetry and uv toolchains, type checkers,
// debuggers, dependency installation (pulumi:install builds the virtualenv), Python
// plugins and policy packs (RunPlugin), required-plugin discovery from installed packages
// (the engine loads a provider when a resource first names it), and `pulumi new`/
// `convert` code generation.
//
// pulumi:install bundles this file with esbuild beside the runner and the generator, so it
// depends on no checkout of this repository at run time.

import { spawn } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import * as grpc from "@grpc/grpc-js";
import * as langproto from "@pulumi/pulumi/proto/language_pb";
import { ProgramHost, failCall, messageOf, programResult, serveLanguageHost } from "./host-common";

/** The runner and the generator, installed beside this host's bundle. */
const RUNNER = path.join(__dirname, "pulumi-language-python-exec");
const GENERATOR = path.join(__dirname, "pulumi-svc-python-gen");

/** The Python a program runs with, and the environment it gets. */
interface Interpreter {
  python: string;
  env: NodeJS.ProcessEnv;
}

/**
 * The runtime options of Pulumi.yaml this host reads. `virtualenv` is relative to the
 * project's root unless absolute; `toolchain: pip` (the default) is the only toolchain
 * and `typechecker` is not run, so either set otherwise is an error rather than ignored.
 */
function interpreter(info: langproto.ProgramInfo | undefined): Interpreter {
  const raw = (info?.getOptions()?.toJavaScript() ?? {}) as Record<string, unknown>;
  const toolchain = raw["toolchain"] ?? "pip";
  if (toolchain !== "pip") throw new Error(`runtime option toolchain: ${JSON.stringify(toolchain)} is not supported by this Python host (only "pip", with a virtualenv)`);
  if (raw["typechecker"] !== undefined) throw new Error("runtime option typechecker is not supported by this Python host: remove it from Pulumi.yaml");
  const venv = raw["virtualenv"];
  if (venv === undefined) return { python: process.env["PULUMI_PYTHON_CMD"] || "python3", env: process.env };
  if (typeof venv !== "string" || venv === "") throw new Error("runtime option virtualenv must be a non-empty string (a directory)");
  const dir = path.resolve(info?.getRootDirectory() || process.cwd(), venv);
  const bin = path.join(dir, "bin");
  const python = path.join(bin, "python");
  if (!fs.existsSync(python)) throw new Error(`runtime option virtualenv is ${venv}, but ${dir} is not a virtual environment (no bin/python): create it with \`python3 -m venv ${dir}\` and install the program's requirements into it`);
  // As an activated virtualenv (Pulumi's toolchain.ActivateVirtualEnv): its bin first on PATH, VIRTUAL_ENV set, PYTHONHOME unset.
  const { PYTHONHOME: _home, ...env } = process.env;
  return { python, env: { ...env, PATH: [bin, process.env["PATH"] ?? ""].join(path.delimiter), VIRTUAL_ENV: dir } };
}

class PythonHost extends ProgramHost {
  run(req: langproto.RunRequest): Promise<langproto.RunResponse> {
    const info = req.getInfo();
    let py: Interpreter;
    try {
      py = interpreter(info);
    } catch (e) {
      return Promise.resolve(new langproto.RunResponse().setError(messageOf(e)));
    }
    const arg = (name: string, value: string) => (value ? [`--${name}`, value] : []);
    const args = [
      RUNNER,
      ...arg("monitor", req.getMonitorAddress()),
      ...arg("engine", this.engineAddress),
      ...arg("project", req.getProject()),
      ...arg("root_directory", info?.getRootDirectory() ?? ""),
      ...arg("stack", req.getStack()),
      ...arg("pwd", req.getPwd()),
      ...arg("dry_run", String(req.getDryrun())),
      ...arg("parallel", String(req.getParallel())),
      ...arg("organization", req.getOrganization()),
      info?.getEntryPoint() || ".",
      ...req.getArgsList(),
    ];
    // Unlike Node's, Pulumi's Python host passes the config keys as the engine gives them (`ns:name`).
    const config: Record<string, string> = {};
    req.getConfigMap().forEach((value, key) => (config[key] = value));
    const env = {
      ...py.env,
      PULUMI_CONFIG: JSON.stringify(config),
      PULUMI_CONFIG_SECRET_KEYS: JSON.stringify(req.getConfigsecretkeysList()),
    };
    return programResult(this.children.track(spawn(py.python, args, { env, stdio: ["ignore", "pipe", "pipe"] })));
  }

  generatePackage(req: langproto.GeneratePackageRequest): Promise<langproto.GeneratePackageResponse> {
    const child = this.children.track(spawn(GENERATOR, [], { stdio: ["pipe", "pipe", "pipe"] }));
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout?.on("data", (b: Buffer) => out.push(b));
    child.stderr?.on("data", (b: Buffer) => err.push(b));
    child.stdin?.end(Buffer.from(req.serializeBinary()));
    return new Promise((resolve, reject) => {
      child.once("error", (e) => reject(new Error(`could not run ${GENERATOR}: ${e.message}`)));
      child.once("close", (code) => {
        if (code === 0) resolve(langproto.GeneratePackageResponse.deserializeBinary(new Uint8Array(Buffer.concat(out))));
        else reject(new Error(Buffer.concat(err).toString().trim() || `${GENERATOR} exited with code ${code}`));
      });
    });
  }
}

serveLanguageHost(
  (engineAddress, children) => new PythonHost(engineAddress, children),
  (host) => ({
    generatePackage: (call: grpc.ServerUnaryCall<langproto.GeneratePackageRequest, langproto.GeneratePackageResponse>, cb: grpc.sendUnaryData<langproto.GeneratePackageResponse>) => {
      host.generatePackage(call.request).then(
        (r) => cb(null, r),
        (e: unknown) => failCall(cb, e),
      );
    },
  }),
);
