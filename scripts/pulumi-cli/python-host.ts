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
// - GeneratePackage (`pulumi package gen-sdk`), GenerateProgram (`pulumi import`'s code),
//   GenerateProject (`pulumi convert`), Link (`pulumi package add`) and InstallDependencies
//   (`pulumi install`): handed to pulumi-svc-python-gen (go-host/pygen/main.go), which
//   answers them as Pulumi's host does, with Pulumi's Python code generator and pip
//   toolchain from the modules the Go module proxy serves.
//
// - GetRequiredPackages: the resource plugins of the packages installed in the program's
//   Python, each from its `pulumi-plugin.json` (name, version, `server`), as Pulumi's host
//   lists them: the CLI installs a missing plugin from its `server` before a run or an
//   import (`pulumi import` runs no program, so this is how it learns where the plugin is).
//
// Left out, because nothing here needs them: the poetry and uv toolchains, type checkers,
// debuggers, Python plugins and policy packs (RunPlugin), `pulumi package pack-sdk` (Pack)
// and `pulumi new` templates; each answers that it is not supported, naming the command
// (host-common.ts).
//
// pulumi:install bundles this file with esbuild beside the runner and the generator, so it
// depends on no checkout of this repository at run time.

import { spawn } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import * as grpc from "@grpc/grpc-js";
import * as langproto from "@pulumi/pulumi/proto/language_pb";
import * as pluginproto from "@pulumi/pulumi/proto/plugin_pb";
import { ProgramHost, failCall, failStream, messageOf, programResult, serveLanguageHost } from "./host-common";

/** The runner and the Go half (pygen), installed beside this host's bundle. */
const RUNNER = path.join(__dirname, "pulumi-language-python-exec");
const GENERATOR_NAME = "pulumi-svc-python-gen";
const GENERATOR = path.join(__dirname, GENERATOR_NAME);

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

  /**
   * The resource plugins the program's Python has installed packages of: each distribution's top-level
   * `pulumi-plugin.json` with `"resource": true`, its name and version defaulting to the package's
   * (Pulumi's host: determinePluginDependency), the version with a leading `v`.
   */
  async requiredPackages(req: langproto.GetRequiredPackagesRequest): Promise<langproto.GetRequiredPackagesResponse> {
    const py = interpreter(req.getInfo());
    const child = this.children.track(spawn(py.python, ["-c", LIST_PLUGINS], { env: py.env, stdio: ["ignore", "pipe", "pipe"] }));
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout?.on("data", (b: Buffer) => out.push(b));
    child.stderr?.on("data", (b: Buffer) => err.push(b));
    const code = await new Promise<number | null>((resolve, reject) => {
      child.once("error", (e) => reject(new Error(`could not run ${py.python}: ${e.message}`)));
      child.once("close", resolve);
    });
    if (code !== 0) throw new Error(`listing the installed packages' plugins with ${py.python} failed: ${Buffer.concat(err).toString().trim()}`);
    const plugins = JSON.parse(Buffer.concat(out).toString()) as { name: string; version: string; server?: string }[];
    return new langproto.GetRequiredPackagesResponse().setPackagesList(
      plugins.map((p) =>
        new pluginproto.PackageDependency()
          .setKind("resource")
          .setName(p.name)
          .setVersion(p.version.startsWith("v") ? p.version : `v${p.version}`)
          .setServer(p.server ?? ""),
      ),
    );
  }

  /** The Go half's answer to `call`: the request goes in serialized, the response comes out serialized (pygen/main.go). */
  private generator(call: GeneratorCall, request: Uint8Array): Promise<Uint8Array> {
    const child = this.children.track(spawn(GENERATOR, [call], { stdio: ["pipe", "pipe", "pipe"] }));
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout?.on("data", (b: Buffer) => out.push(b));
    child.stderr?.on("data", (b: Buffer) => err.push(b));
    child.stdin?.end(Buffer.from(request));
    return new Promise((resolve, reject) => {
      child.once("error", (e) => reject(new Error(`could not run ${GENERATOR}: ${e.message}`)));
      child.once("close", (code) => {
        if (code === 0) resolve(new Uint8Array(Buffer.concat(out)));
        else reject(new Error(Buffer.concat(err).toString().trim() || `${GENERATOR} ${call} exited with code ${code}`));
      });
    });
  }

  /** A unary call the Go half answers. */
  unary<Req extends { serializeBinary(): Uint8Array }, Res>(call: GeneratorCall, decode: (bytes: Uint8Array) => Res) {
    return (rpc: grpc.ServerUnaryCall<Req, Res>, cb: grpc.sendUnaryData<Res>) => {
      this.generator(call, rpc.request.serializeBinary()).then(
        (bytes) => cb(null, decode(bytes)),
        (e: unknown) => failCall(cb, e),
      );
    };
  }

  /**
   * `pulumi install` (and the end of `pulumi package add`): the Go half runs pip's
   * InstallDependencies, as Pulumi's host does; its output goes to the CLI line by line as it
   * comes. A failure is the Go half's line `pulumi-svc-python-gen: <error>`: the call fails with
   * that error's first line (what follows repeats pip's output, already shown).
   */
  installDependencies(rpc: grpc.ServerWritableStream<langproto.InstallDependenciesRequest, langproto.InstallDependenciesResponse>): void {
    const child = this.children.track(spawn(GENERATOR, ["install"], { stdio: ["pipe", "pipe", "pipe"] }));
    const send = (set: (r: langproto.InstallDependenciesResponse) => void) => {
      const r = new langproto.InstallDependenciesResponse();
      set(r);
      rpc.write(r);
    };
    child.stdout?.on("data", (b: Buffer) => send((r) => r.setStdout(b)));
    let failure: string | undefined;
    let partial = "";
    const stderrLine = (line: string) => {
      if (failure !== undefined) return;
      if (line.startsWith(`${GENERATOR_NAME}: `)) failure = line.slice(GENERATOR_NAME.length + 2);
      else send((r) => r.setStderr(Buffer.from(`${line}\n`)));
    };
    child.stderr?.on("data", (b: Buffer) => {
      const lines = (partial + b.toString()).split("\n");
      partial = lines.pop()!;
      lines.forEach(stderrLine);
    });
    child.stdin?.end(Buffer.from(rpc.request.serializeBinary()));
    const fail = (message: string) => failStream(rpc, message);
    child.once("error", (e) => fail(`could not run ${GENERATOR}: ${e.message}`));
    child.once("close", (code) => {
      if (partial) stderrLine(partial);
      if (code === 0) rpc.end();
      else fail(failure ?? `${GENERATOR} install exited with code ${code}`);
    });
  }
}

/** Prints, as JSON, the resource plugin of each installed distribution with a top-level pulumi-plugin.json (PythonHost.requiredPackages). */
const LIST_PLUGINS = `
import importlib.metadata as md, json, re
found = []
for dist in md.distributions():
    for f in dist.files or ():
        if f.name != "pulumi-plugin.json" or len(f.parts) != 2:
            continue
        plugin = json.loads(f.read_text())
        if plugin.get("resource"):
            found.append({"name": plugin.get("name") or re.sub(r"^pulumi[-_]", "", dist.metadata["Name"]), "version": plugin.get("version") or dist.version, "server": plugin.get("server")})
print(json.dumps(found))
`;

/** The calls pulumi-svc-python-gen answers (pygen/main.go). */
type GeneratorCall = "package" | "program" | "project" | "link";

serveLanguageHost("Python", (engineAddress, children) => new PythonHost(engineAddress, children), (host) => ({
  generatePackage: host.unary("package", (b) => langproto.GeneratePackageResponse.deserializeBinary(b)),
  generateProgram: host.unary("program", (b) => langproto.GenerateProgramResponse.deserializeBinary(b)),
  generateProject: host.unary("project", (b) => langproto.GenerateProjectResponse.deserializeBinary(b)),
  link: host.unary("link", (b) => langproto.LinkResponse.deserializeBinary(b)),
  getRequiredPackages: (rpc: grpc.ServerUnaryCall<langproto.GetRequiredPackagesRequest, langproto.GetRequiredPackagesResponse>, cb: grpc.sendUnaryData<langproto.GetRequiredPackagesResponse>) =>
    void host.requiredPackages(rpc.request).then((r) => cb(null, r), (e: unknown) => failCall(cb, e)),
  installDependencies: (rpc: grpc.ServerWritableStream<langproto.InstallDependenciesRequest, langproto.InstallDependenciesResponse>) => host.installDependencies(rpc),
}));
