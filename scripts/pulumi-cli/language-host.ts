// pulumi-language-nodejs: the Node.js language host the Pulumi CLI starts to run a
// program or a policy pack.
//
// Why ours: Pulumi's own host is the Go module
// github.com/pulumi/pulumi/sdk/nodejs/cmd/pulumi-language-nodejs/v3, and the Go module
// proxy these machines reach refuses it (403 "This module version is not available",
// for every version and pseudo-version), while it serves the CLI itself
// (github.com/pulumi/pulumi/pkg/v3). The CLI, the engine, the SDK's program runner
// (@pulumi/pulumi/cmd/run), the dynamic-provider plugin and the policy-pack server stay
// the real ones; this host only starts node with the arguments and environment that
// Pulumi's host gives them (read from its main.go: constructArguments, constructConfig,
// execRuntime, RunPlugin), and streams their output back.
//
// Left out, because nothing here needs them: the `--sync` pipes for synchronous invokes,
// the monitor proxy in front of them, required-plugin discovery in node_modules (every
// plugin our programs use is bundled with the CLI), dependency installation, debuggers,
// the bun runtime and `pulumi new`/`convert`/`gen-sdk` code generation.
//
// pulumi:install bundles this file with esbuild into the CLI's bin directory, so it
// depends on no checkout of this repository at run time.

import { spawn, type ChildProcess } from "node:child_process";
import { createRequire } from "node:module";
import * as path from "node:path";
import * as grpc from "@grpc/grpc-js";
import * as langproto from "@pulumi/pulumi/proto/language_pb";
import { parse as shellSplit } from "shell-quote";
import { ProgramHost, failStream, messageOf, programResult, serveLanguageHost } from "./host-common";

interface NodeOptions {
  typescript: boolean;
  tsconfig?: string;
  nodeargs: string[];
}

function parseOptions(info: langproto.ProgramInfo | undefined): NodeOptions {
  const raw = (info?.getOptions()?.toJavaScript() ?? {}) as Record<string, unknown>;
  const typescript = raw["typescript"] ?? true;
  if (typeof typescript !== "boolean") throw new Error("typescript option must be a boolean");
  const tsconfig = raw["tsconfig"];
  if (tsconfig !== undefined && typeof tsconfig !== "string") throw new Error("tsconfigpath option must be a string");
  const nodeargs = raw["nodeargs"] ?? "";
  if (typeof nodeargs !== "string") throw new Error("nodeargs option must be a string");
  const words = shellSplit(nodeargs).map((w) => (typeof w === "string" ? w : String((w as { op?: string }).op ?? "")));
  return { typescript, ...(tsconfig ? { tsconfig } : {}), nodeargs: words };
}

function optionsEnv(opts: NodeOptions): Record<string, string> {
  return {
    ...(opts.typescript ? { PULUMI_NODEJS_TYPESCRIPT: "true" } : {}),
    ...(opts.tsconfig ? { PULUMI_NODEJS_TSCONFIG_PATH: opts.tsconfig } : {}),
  };
}

/** A module of the program's own @pulumi/pulumi, resolved from its directory as node would. */
function locateModule(mod: string, programDir: string): string {
  try {
    return createRequire(path.join(programDir, "index.js")).resolve(mod);
  } catch {
    throw new Error(`It looks like the Pulumi SDK has not been installed. Have you run npm install or yarn install? (${mod} not found from ${programDir})`);
  }
}

/** Program config as cmd/run reads it: `ns:config:name` keys (Pulumi's host: constructConfig). */
function programConfig(config: { forEach(fn: (value: string, key: string) => void): void }): string {
  const out: Record<string, string> = {};
  config.forEach((value, key) => {
    const i = key.indexOf(":");
    out[i < 0 ? key : `${key.slice(0, i)}:config:${key.slice(i + 1)}`] = value;
  });
  return JSON.stringify(out);
}

class NodeHost extends ProgramHost {
  run(req: langproto.RunRequest): Promise<langproto.RunResponse> {
    const info = req.getInfo();
    const programDir = info?.getProgramDirectory() || req.getPwd();
    let args: string[];
    let env: NodeJS.ProcessEnv;
    try {
      const opts = parseOptions(info);
      const arg = (name: string, value: string | number | undefined) => (value ? [`--${name}`, String(value)] : []);
      args = [
        ...opts.nodeargs,
        locateModule("@pulumi/pulumi/cmd/run", programDir),
        ...arg("monitor", req.getMonitorAddress()),
        ...arg("engine", this.engineAddress),
        ...arg("organization", req.getOrganization()),
        ...arg("project", req.getProject()),
        ...arg("root-directory", info?.getRootDirectory()),
        ...arg("stack", req.getStack()),
        ...arg("pwd", programDir),
        ...(req.getDryrun() ? ["--dry-run"] : []),
        ...arg("parallel", req.getParallel()),
        info?.getEntryPoint() || req.getProgram() || ".",
        ...req.getArgsList(),
      ];
      env = {
        ...process.env,
        PULUMI_CONFIG: programConfig(req.getConfigMap()),
        PULUMI_CONFIG_SECRET_KEYS: JSON.stringify(req.getConfigsecretkeysList()),
        ...optionsEnv(opts),
      };
    } catch (e) {
      return Promise.resolve(new langproto.RunResponse().setError(messageOf(e)));
    }
    return programResult(this.children.track(spawn(process.execPath, args, { cwd: req.getPwd() || programDir, env, stdio: ["ignore", "pipe", "pipe"] })));
  }

  /** Policy packs (kind "analyzer") and Node plugins: run, streaming stdout, stderr and the exit code. */
  runPlugin(call: grpc.ServerWritableStream<langproto.RunPluginRequest, langproto.RunPluginResponse>): void {
    const req = call.request;
    const info = req.getInfo();
    const programDir = info?.getProgramDirectory() || req.getPwd();
    const isPolicyPack = req.getKind() === "analyzer";
    let child: ChildProcess;
    try {
      const opts = parseOptions(info);
      const runPath = locateModule(isPolicyPack ? "@pulumi/pulumi/cmd/run-policy-pack" : "@pulumi/pulumi/cmd/run-plugin", programDir);
      // Pulumi's host: a policy pack gets its directory last and runs in it; other plugins get it first.
      const args = isPolicyPack
        ? [runPath, ...opts.nodeargs, ...req.getArgsList(), programDir]
        : [runPath, ...opts.nodeargs, programDir, ...req.getArgsList()];
      const env: NodeJS.ProcessEnv = { ...optionsEnv(opts) };
      for (const kv of req.getEnvList()) {
        const i = kv.indexOf("=");
        if (i > 0) env[kv.slice(0, i)] = kv.slice(i + 1);
      }
      child = this.children.track(spawn(process.execPath, args, { cwd: isPolicyPack ? programDir : req.getPwd(), env, stdio: ["ignore", "pipe", "pipe"] }));
    } catch (e) {
      failStream(call, e);
      return;
    }
    const send = (set: (r: langproto.RunPluginResponse) => void) => {
      const r = new langproto.RunPluginResponse();
      set(r);
      call.write(r);
    };
    child.stdout?.on("data", (b: Buffer) => send((r) => r.setStdout(b)));
    child.stderr?.on("data", (b: Buffer) => send((r) => r.setStderr(b)));
    child.once("error", (e) => failStream(call, e));
    child.once("close", (code) => {
      send((r) => r.setExitcode(code ?? 1));
      call.end();
    });
    // The engine closes the stream to stop the plugin.
    call.once("cancelled", () => child.kill("SIGKILL"));
  }
}

serveLanguageHost(
  "Node.js",
  (engineAddress, children) => new NodeHost(engineAddress, children),
  (host) => ({
    runPlugin: (call: grpc.ServerWritableStream<langproto.RunPluginRequest, langproto.RunPluginResponse>) => host.runPlugin(call),
    about: (_call: unknown, cb: grpc.sendUnaryData<langproto.AboutResponse>) =>
      cb(null, new langproto.AboutResponse().setExecutable(process.execPath).setVersion(process.version)),
  }),
);
