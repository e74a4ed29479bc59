// What our language hosts (language-host.ts for Node.js, python-host.ts for Python) share:
// the LanguageRuntime gRPC server on the SDK's generated stubs, the command line the CLI
// starts a host with, the answers to the calls a host of ours does not need to vary, the
// children it has started (stopped on Cancel and when the CLI goes away), and how a
// program's exit is reported (Pulumi's hosts: RunProgram in each main.go).

import { type ChildProcess } from "node:child_process";
import * as grpc from "@grpc/grpc-js";
import * as emptyproto from "google-protobuf/google/protobuf/empty_pb";
import * as langrpc from "@pulumi/pulumi/proto/language_grpc_pb";
import * as langproto from "@pulumi/pulumi/proto/language_pb";
import * as pluginproto from "@pulumi/pulumi/proto/plugin_pb";

/** A program runner's exit code after it has shown the user an actionable message (Pulumi's hosts: "bail"). */
const EXIT_AFTER_USER_MESSAGE = 32;

/** The processes a host has started and not yet seen exit. */
export class Children {
  private readonly live = new Set<ChildProcess>();

  track(child: ChildProcess): ChildProcess {
    this.live.add(child);
    child.once("exit", () => this.live.delete(child));
    return child;
  }

  /** Interrupts every one (the CLI's Cancel, or the host going away). */
  stop(signal: NodeJS.Signals): void {
    for (const child of this.live) child.kill(signal);
  }
}

/** The message a host's call fails with, from whatever was thrown. */
export const messageOf = (e: unknown) => (e instanceof Error ? e.message : String(e));

/**
 * A program's process run to its end, as Pulumi's hosts report it: its output goes through
 * unchanged (the CLI shows what the host writes), exit code 32 is a bail (the program has
 * said what went wrong), any other failure an error.
 */
export function programResult(child: ChildProcess): Promise<langproto.RunResponse> {
  const res = new langproto.RunResponse();
  child.stdout?.pipe(process.stdout, { end: false });
  child.stderr?.pipe(process.stderr, { end: false });
  return new Promise((resolve) => {
    child.once("error", (e) => {
      res.setError(`Problem executing program (could not run language executor): ${e.message}`);
      resolve(res);
    });
    child.once("close", (code, signal) => {
      if (code === EXIT_AFTER_USER_MESSAGE) res.setBail(true);
      else if (code !== 0) res.setError(code === null ? `Program exited unexpectedly: ${signal}` : `Program exited with non-zero exit code: ${code}`);
      resolve(res);
    });
  });
}

/** A unary call that fails with `e`'s message (gRPC status UNKNOWN, as a Go host's returned error). */
export function failCall<T>(cb: grpc.sendUnaryData<T>, e: unknown): void {
  cb({ code: grpc.status.UNKNOWN, details: messageOf(e) } as grpc.ServiceError, null);
}

/**
 * Ends a server-streaming call with `e` as its status (`code`, else UNKNOWN). Not `destroy`:
 * a destroyed stream never sends its status, and the CLI waits for it forever; grpc-js ends
 * the call with the status of an `error` event.
 */
export function failStream(call: grpc.ServerWritableStream<unknown, unknown>, e: unknown, code: grpc.status = grpc.status.UNKNOWN): void {
  call.emit("error", Object.assign(new Error(messageOf(e)), { code }));
}

type Handler = grpc.UntypedServiceImplementation[string];

/** A language's host: how it runs a program, given the engine's address and the children to track. */
export abstract class ProgramHost {
  constructor(
    protected readonly engineAddress: string,
    protected readonly children: Children,
  ) {}

  abstract run(req: langproto.RunRequest): Promise<langproto.RunResponse>;
}

/**
 * What each call this service may answer "not supported" to serves, named as the user meets
 * it: the one line such an answer reads. The code stays UNIMPLEMENTED, which the CLI knows
 * (it goes on without a Handshake, or a Template for `pulumi new`).
 */
const COMMANDS = {
  handshake: "the handshake of newer CLIs",
  template: "`pulumi new` with a template",
  about: "`pulumi about`",
  runPlugin: "running a plugin or policy pack",
  generateProgram: "`pulumi import`'s code (and --out)",
  generateProject: "`pulumi convert`",
  generatePackage: "`pulumi package gen-sdk`",
  pack: "`pulumi package pack-sdk`",
  link: "`pulumi package add`",
} as const;

/**
 * The LanguageRuntime service: Run by `host`, `own` (the other calls a language answers its
 * own way: Python lists its packages' plugins and installs dependencies) over the answers a
 * host of ours gives otherwise: no required plugins or packages (the engine loads a provider
 * when a resource first names it), no dependency installation, this version, Cancel
 * stopping the children, and for the rest (COMMANDS) that `language`'s host does not support the command.
 */
function languageService(language: string, version: string, children: Children, host: ProgramHost, own: Record<string, Handler>): grpc.UntypedServiceImplementation {
  const lacks = (method: keyof typeof COMMANDS) =>
    Object.assign(new Error(`${COMMANDS[method]} is not supported by pulumi-svc's ${language} language host`), { code: grpc.status.UNIMPLEMENTED });
  const unsupported =
    (method: keyof typeof COMMANDS) =>
    (_call: unknown, cb: grpc.sendUnaryData<unknown>) =>
      cb(lacks(method), null);
  const answer =
    <T>(make: () => T) =>
    (_call: unknown, cb: grpc.sendUnaryData<T>) =>
      cb(null, make());
  return {
    handshake: unsupported("handshake"),
    getRequiredPlugins: answer(() => new langproto.GetRequiredPluginsResponse()),
    getRequiredPackages: answer(() => new langproto.GetRequiredPackagesResponse()),
    run: (call: grpc.ServerUnaryCall<langproto.RunRequest, langproto.RunResponse>, cb: grpc.sendUnaryData<langproto.RunResponse>) => {
      void host.run(call.request).then((r) => cb(null, r));
    },
    getPluginInfo: answer(() => new pluginproto.PluginInfo().setVersion(version)),
    installDependencies: (call: grpc.ServerWritableStream<unknown, unknown>) => call.end(),
    runtimeOptionsPrompts: answer(() => new langproto.RuntimeOptionsResponse()),
    template: unsupported("template"),
    about: unsupported("about"),
    getProgramDependencies: answer(() => new langproto.GetProgramDependenciesResponse()),
    runPlugin: (call: grpc.ServerWritableStream<unknown, unknown>) => failStream(call, lacks("runPlugin"), grpc.status.UNIMPLEMENTED),
    generateProgram: unsupported("generateProgram"),
    generateProject: unsupported("generateProject"),
    generatePackage: unsupported("generatePackage"),
    pack: unsupported("pack"),
    link: unsupported("link"),
    cancel: (_call: unknown, cb: grpc.sendUnaryData<emptyproto.Empty>) => {
      children.stop("SIGINT");
      cb(null, new emptyproto.Empty());
    },
    ...own,
  };
}

/**
 * A host's main: `-version` prints the version; otherwise serve the LanguageRuntime service
 * (of `language`'s host, as its answers name it) of `makeHost(engineAddress, children)` and its `own` other calls on a free port of
 * 127.0.0.1 and print the port, the one line the CLI reads, until SIGINT or SIGTERM, or
 * until the CLI that started it is gone. pulumi:install's launcher sets
 * PULUMI_SVC_LANGUAGE_HOST_VERSION to the CLI's version.
 */
export function serveLanguageHost<H extends ProgramHost>(
  language: string,
  makeHost: (engineAddress: string, children: Children) => H,
  own: (host: H) => Record<string, Handler> = () => ({}),
): void {
  const children = new Children();
  const argv = process.argv.slice(2);
  const version = process.env["PULUMI_SVC_LANGUAGE_HOST_VERSION"] ?? "3.0.0";
  if (argv.includes("-version") || argv.includes("--version")) {
    console.log(version);
    return;
  }
  // Flags the CLI may pass (-tracing X, -runtime X, -flag=value), then the engine's address.
  const positional: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a.startsWith("-")) {
      if (!a.includes("=") && (a === "-tracing" || a === "--tracing" || a === "-runtime" || a === "--runtime")) i++;
      continue;
    }
    positional.push(a);
  }
  const server = new grpc.Server({ "grpc.max_receive_message_length": 400 * 1024 * 1024 });
  const host = makeHost(positional[0] ?? "", children);
  server.addService(langrpc.LanguageRuntimeService as unknown as grpc.ServiceDefinition, languageService(language, version, children, host, own(host)));
  server.bindAsync("127.0.0.1:0", grpc.ServerCredentials.createInsecure(), (err, port) => {
    if (err) {
      console.error(`could not start language host RPC server: ${err.message}`);
      process.exit(1);
    }
    process.stdout.write(`${port}\n`);
  });
  const stop = (signal: NodeJS.Signals) => {
    children.stop(signal);
    process.exit(0);
  };
  // The CLI closes a plugin with SIGINT and waits up to 5 s for it to exit before it kills
  // it (pkg/resource/plugin/plugin.go, kill); Pulumi's hosts exit on SIGINT, and so do ours.
  process.on("SIGINT", () => stop("SIGINT"));
  process.on("SIGTERM", () => stop("SIGTERM"));
  // A CLI killed with SIGKILL closes nothing: leave with it (Pulumi's hosts do the same
  // through a health check of the engine).
  const parent = process.ppid;
  setInterval(() => {
    if (process.ppid !== parent) stop("SIGKILL");
  }, 500).unref();
}
