// A client for the real dynamic-provider plugin (@pulumi/pulumi/cmd/dynamic-provider),
// started the way the engine starts `pulumi-resource-pulumi-nodejs`: a child process
// given the engine's address, printing its gRPC port as the first line of stdout.
//
// Every call strips secret wrappers first: the plugin answers Configure with
// acceptSecrets=false, so the engine must send plaintext.

import { spawn, type ChildProcess } from "node:child_process";
import * as readline from "node:readline";
import { trackChild } from "./children";
import { grpc, provrpc, provproto, statusproto, emptyproto, toStruct, fromStruct, unary } from "./proto";
import { unwrapMap, type PropertyMap } from "../support/values";

export interface DiffResult {
  changes: "none" | "some" | "unknown";
  replaces: string[];
  deleteBeforeReplace: boolean;
  /** Changed keys, when the provider reports them (the dynamic plugin never does). */
  diffs: string[];
}

/**
 * What the engine says of an ErrorResourceInitFailed: its reasons, as hashicorp/multierror
 * prints them; the status message is dropped (pkg/resource/plugin/provider_plugin.go, InitError).
 */
function initErrorText(reasons: string[]): string {
  if (reasons.length === 0) return "resource init failed";
  const n = reasons.length;
  return `${n} error${n === 1 ? "" : "s"} occurred:\n${reasons.map((r) => `\t* ${r}`).join("\n")}\n\n`;
}

/** A create/update that did part of its work (ErrorResourceInitFailed). */
export class InitFailedError extends Error {
  constructor(
    message: string,
    readonly id: string,
    readonly properties: PropertyMap,
    readonly reasons: string[],
  ) {
    super(message);
  }
}

export interface PluginOptions {
  cwd: string;
  engineAddress: string;
  env: NodeJS.ProcessEnv;
  /** Receives each line the plugin writes after its port line, and all of stderr. */
  onOutput: (line: string, stream: "stdout" | "stderr") => void;
}

export class DynamicProviderPlugin {
  private constructor(
    private readonly child: ChildProcess,
    private readonly client: provrpc.ResourceProviderClient,
  ) {}

  static async start(opts: PluginOptions): Promise<DynamicProviderPlugin> {
    const entry = require.resolve("@pulumi/pulumi/cmd/dynamic-provider/index.js");
    const child = trackChild(
      spawn(process.execPath, [entry, opts.engineAddress], {
        cwd: opts.cwd,
        env: opts.env,
        stdio: ["ignore", "pipe", "pipe"],
      }),
    );
    readline.createInterface({ input: child.stderr! }).on("line", (l) => opts.onOutput(l, "stderr"));
    const port = await new Promise<string>((resolve, reject) => {
      const rl = readline.createInterface({ input: child.stdout! });
      let first = true;
      rl.on("line", (line) => {
        if (first) {
          first = false;
          resolve(line.trim());
        } else {
          opts.onOutput(line, "stdout");
        }
      });
      child.once("exit", (code) => reject(new Error(`dynamic-provider plugin exited (code ${code}) before printing its port`)));
      child.once("error", reject);
    });
    if (!/^\d+$/.test(port)) {
      child.kill();
      throw new Error(`dynamic-provider plugin printed ${JSON.stringify(port)} instead of a port`);
    }
    const client = new provrpc.ResourceProviderClient(`127.0.0.1:${port}`, grpc.credentials.createInsecure());
    return new DynamicProviderPlugin(child, client);
  }

  /** CheckConfig is UNIMPLEMENTED in the plugin; like the engine we then keep the news. */
  async checkConfig(urn: string, olds: PropertyMap, news: PropertyMap): Promise<PropertyMap> {
    const req = new provproto.CheckRequest();
    req.setUrn(urn);
    req.setOlds(toStruct(unwrapMap(olds)));
    req.setNews(toStruct(unwrapMap(news)));
    try {
      const res = await unary<provproto.CheckResponse>((cb) => this.client.checkConfig(req, cb));
      return fromStruct(res.getInputs());
    } catch (e) {
      if ((e as grpc.ServiceError).code === grpc.status.UNIMPLEMENTED) return news;
      throw e;
    }
  }

  /** Configure with the whole stack config (namespaced keys, secrets as plaintext). */
  async configure(config: PropertyMap): Promise<{ acceptSecrets: boolean }> {
    const req = new provproto.ConfigureRequest();
    const plain = unwrapMap(config);
    const vars = req.getVariablesMap();
    for (const [k, v] of Object.entries(plain)) vars.set(k, typeof v === "string" ? v : JSON.stringify(v));
    req.setArgs(toStruct(plain));
    req.setAcceptsecrets(true);
    req.setAcceptresources(true);
    const res = await unary<provproto.ConfigureResponse>((cb) => this.client.configure(req, cb));
    return { acceptSecrets: res.getAcceptsecrets() };
  }

  async check(urn: string, olds: PropertyMap, news: PropertyMap): Promise<{ inputs: PropertyMap; failures: { property: string; reason: string }[] }> {
    const req = new provproto.CheckRequest();
    addressTo(req, urn);
    req.setOlds(toStruct(unwrapMap(olds)));
    req.setNews(toStruct(unwrapMap(news)));
    req.setRandomseed(Buffer.alloc(32).toString("base64"));
    const res = await unary<provproto.CheckResponse>((cb) => this.client.check(req, cb));
    return {
      inputs: fromStruct(res.getInputs()),
      failures: res.getFailuresList().map((f) => ({ property: f.getProperty(), reason: f.getReason() })),
    };
  }

  async diff(urn: string, id: string, oldOutputs: PropertyMap, news: PropertyMap, oldInputs: PropertyMap, ignoreChanges: string[]): Promise<DiffResult> {
    const req = new provproto.DiffRequest();
    addressTo(req, urn);
    req.setId(id);
    req.setOlds(toStruct(unwrapMap(oldOutputs)));
    req.setNews(toStruct(unwrapMap(news)));
    req.setOldInputs(toStruct(unwrapMap(oldInputs)));
    req.setIgnorechangesList(ignoreChanges);
    const res = await unary<provproto.DiffResponse>((cb) => this.client.diff(req, cb));
    const C = provproto.DiffResponse.DiffChanges;
    const c = res.getChanges();
    return {
      changes: c === C.DIFF_NONE ? "none" : c === C.DIFF_SOME ? "some" : "unknown",
      replaces: res.getReplacesList(),
      deleteBeforeReplace: res.getDeletebeforereplace(),
      diffs: res.getDiffsList(),
    };
  }

  async create(urn: string, inputs: PropertyMap): Promise<{ id: string; outputs: PropertyMap }> {
    const req = new provproto.CreateRequest();
    addressTo(req, urn);
    req.setProperties(toStruct(unwrapMap(inputs)));
    req.setPreview(false);
    try {
      const res = await unary<provproto.CreateResponse>((cb) => this.client.create(req, cb));
      return { id: res.getId(), outputs: fromStruct(res.getProperties()) };
    } catch (e) {
      throw initFailed(e);
    }
  }

  async update(urn: string, id: string, oldOutputs: PropertyMap, news: PropertyMap, oldInputs: PropertyMap): Promise<PropertyMap> {
    const req = new provproto.UpdateRequest();
    addressTo(req, urn);
    req.setId(id);
    req.setOlds(toStruct(unwrapMap(oldOutputs)));
    req.setNews(toStruct(unwrapMap(news)));
    req.setOldInputs(toStruct(unwrapMap(oldInputs)));
    req.setPreview(false);
    try {
      const res = await unary<provproto.UpdateResponse>((cb) => this.client.update(req, cb));
      return fromStruct(res.getProperties());
    } catch (e) {
      throw initFailed(e);
    }
  }

  async delete(urn: string, id: string, outputs: PropertyMap, inputs: PropertyMap): Promise<void> {
    const req = new provproto.DeleteRequest();
    addressTo(req, urn);
    req.setId(id);
    req.setProperties(toStruct(unwrapMap(outputs)));
    req.setOldInputs(toStruct(unwrapMap(inputs)));
    await unary<emptyproto.Empty>((cb) => this.client.delete(req, cb));
  }

  /** Read for refresh and `Resource.get`; id "" back means the object is gone. */
  async read(urn: string, id: string, props: PropertyMap, inputs: PropertyMap): Promise<{ id: string; outputs: PropertyMap; inputs?: PropertyMap }> {
    const req = new provproto.ReadRequest();
    addressTo(req, urn);
    req.setId(id);
    req.setProperties(toStruct(unwrapMap(props)));
    req.setInputs(toStruct(unwrapMap(inputs)));
    const res = await unary<provproto.ReadResponse>((cb) => this.client.read(req, cb));
    return {
      id: res.getId(),
      outputs: fromStruct(res.getProperties()),
      inputs: res.hasInputs() ? fromStruct(res.getInputs()) : undefined,
    };
  }

  async close(): Promise<void> {
    try {
      await unary<emptyproto.Empty>((cb) => this.client.cancel(new emptyproto.Empty(), cb));
    } catch {
      // The plugin may already be gone; closing is best effort.
    }
    this.client.close();
    if (this.child.exitCode === null && this.child.signalCode === null) {
      const exited = new Promise((r) => this.child.once("exit", r));
      this.child.kill("SIGTERM");
      await exited;
    }
  }
}

/** Turns a gRPC error carrying an ErrorResourceInitFailed status detail into InitFailedError. */
function initFailed(e: unknown): Error {
  const err = e as grpc.ServiceError;
  const bins = err.metadata?.get("grpc-status-details-bin") ?? [];
  for (const bin of bins) {
    const status = statusproto.Status.deserializeBinary(new Uint8Array(bin as Buffer));
    for (const any of status.getDetailsList()) {
      if (any.getTypeName() === "pulumirpc.ErrorResourceInitFailed") {
        const d = provproto.ErrorResourceInitFailed.deserializeBinary(any.getValue_asU8());
        return new InitFailedError(initErrorText(d.getReasonsList()), d.getId(), fromStruct(d.getProperties()), d.getReasonsList());
      }
    }
  }
  return new Error(err.details || err.message);
}

/** Every provider request names its resource three ways: URN, name and type. */
function addressTo(req: { setUrn(v: string): unknown; setName(v: string): unknown; setType(v: string): unknown }, urn: string): void {
  req.setUrn(urn);
  req.setName(urnName(urn));
  req.setType(urnType(urn));
}

export function urnName(urn: string): string {
  return urn.split("::").slice(3).join("::");
}

export function urnType(urn: string): string {
  const qualified = urn.split("::")[2] ?? "";
  return qualified.split("$").pop() ?? qualified;
}
