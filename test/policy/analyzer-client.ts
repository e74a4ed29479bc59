/**
 * A small client for a policy pack's Analyzer gRPC server, doing what the Pulumi
 * engine does: start the pack with the policy runtime
 * (`node @pulumi/pulumi/cmd/run-policy-pack <engine-address> .`, cwd = the pack
 * directory, the port on the first stdout line), then GetAnalyzerInfo, Configure
 * with the schema defaults filled in (pkg/resource/analyzer/config.go:
 * createConfigWithDefaults, then applyConfig), ConfigureStack, Remediate, Analyze
 * and AnalyzeStack.
 *
 * @pulumi/policy 1.21 does not implement Handshake; the engine falls back to
 * the plain start-up above, and so do we.
 */
import { spawn, type ChildProcess } from "node:child_process";
import * as path from "node:path";
import * as readline from "node:readline";
import * as grpc from "@grpc/grpc-js";
import * as emptyproto from "google-protobuf/google/protobuf/empty_pb";
import * as structproto from "google-protobuf/google/protobuf/struct_pb";
import * as analyzerrpc from "@pulumi/pulumi/proto/analyzer_grpc_pb";
import * as analyzerproto from "@pulumi/pulumi/proto/analyzer_pb";

export type EnforcementLevel = "advisory" | "mandatory" | "remediate" | "disabled";

const LEVELS: Record<EnforcementLevel, analyzerproto.EnforcementLevel> = {
  advisory: analyzerproto.EnforcementLevel.ADVISORY,
  mandatory: analyzerproto.EnforcementLevel.MANDATORY,
  remediate: analyzerproto.EnforcementLevel.REMEDIATE,
  disabled: analyzerproto.EnforcementLevel.DISABLED,
};
const levelName = (l: analyzerproto.EnforcementLevel) => (Object.keys(LEVELS) as EnforcementLevel[]).find((k) => LEVELS[k] === l)!;

export interface PolicyInfo {
  name: string;
  description: string;
  enforcementLevel: EnforcementLevel;
  type: "resource" | "stack" | "unknown";
  remediationSteps: string;
  configSchema?: { properties: Record<string, Record<string, unknown>>; required: string[] };
}

export interface AnalyzerInfo {
  name: string;
  version: string;
  supportsConfig: boolean;
  description: string;
  policies: PolicyInfo[];
}

/** A policy's config as the engine sends it: the enforcement level plus properties. */
export interface PolicyConfig {
  enforcementLevel: EnforcementLevel;
  properties: Record<string, unknown>;
}

/** Config as a `--policy-pack-config` file gives it: a level, or an object with an optional level and properties. */
export type GivenConfig = Record<string, EnforcementLevel | ({ enforcementLevel?: EnforcementLevel } & Record<string, unknown>)>;

/** The engine's reconciliation: every policy's schema defaults and level, then `all`, then per-policy overrides. */
export function reconcileConfig(policies: PolicyInfo[], given: GivenConfig = {}): Record<string, PolicyConfig> {
  const result: Record<string, PolicyConfig> = {};
  for (const p of policies) {
    const properties: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(p.configSchema?.properties ?? {})) if ("default" in v) properties[k] = v["default"];
    result[p.name] = { enforcementLevel: p.enforcementLevel, properties };
  }
  const all = given["all"];
  const allLevel = typeof all === "string" ? all : all?.enforcementLevel;
  if (allLevel) for (const c of Object.values(result)) c.enforcementLevel = allLevel;
  for (const [name, value] of Object.entries(given)) {
    if (name === "all" || !result[name]) continue;
    if (typeof value === "string") result[name]!.enforcementLevel = value;
    else {
      const { enforcementLevel, ...properties } = value;
      if (enforcementLevel) result[name]!.enforcementLevel = enforcementLevel;
      Object.assign(result[name]!.properties, properties);
    }
  }
  return result;
}

/** A resource as the engine describes it to an analyzer. */
export interface AnalyzerResource {
  type: string;
  urn: string;
  name: string;
  /** Wire form: secrets as signature objects, unknowns as sentinel strings. */
  properties: Record<string, unknown>;
}

export interface Diagnostic {
  policyName: string;
  policyPackName: string;
  policyPackVersion: string;
  description: string;
  message: string;
  enforcementLevel: EnforcementLevel;
  urn: string;
}

export interface Remediation {
  policyName: string;
  description: string;
  /** Wire form; undefined when the remediation only produced a diagnostic. */
  properties?: Record<string, unknown>;
  diagnostic: string;
}

function unary<Res>(call: (cb: (err: grpc.ServiceError | null, res: Res) => void) => unknown): Promise<Res> {
  return new Promise((resolve, reject) => call((err, res) => (err ? reject(err) : resolve(res))));
}

const toStruct = (m: Record<string, unknown>) => structproto.Struct.fromJavaScript(m as Record<string, structproto.JavaScriptValue>);

/** A resource's type, URN, name, properties and options set on a request message (AnalyzeRequest and AnalyzerResource carry the same fields). */
function withResource<M extends analyzerproto.AnalyzeRequest | analyzerproto.AnalyzerResource>(msg: M, r: AnalyzerResource): M {
  msg.setType(r.type);
  msg.setUrn(r.urn);
  msg.setName(r.name);
  msg.setProperties(toStruct(r.properties));
  msg.setOptions(resourceOptions());
  return msg;
}

function resourceOptions(): analyzerproto.AnalyzerResourceOptions {
  const opts = new analyzerproto.AnalyzerResourceOptions();
  opts.setProtect(false);
  return opts;
}

export interface StartOptions {
  /** The pack directory (holds PulumiPolicy.yaml and package.json). */
  packDir: string;
  /** Stderr lines of the pack process, for diagnostics. */
  onStderr?: (line: string) => void;
}

export class AnalyzerClient {
  private constructor(
    private readonly child: ChildProcess,
    private readonly client: analyzerrpc.AnalyzerClient,
    readonly stderr: string[],
  ) {}

  static async start(opts: StartOptions): Promise<AnalyzerClient> {
    const runPolicyPack = require.resolve("@pulumi/pulumi/cmd/run-policy-pack/index.js");
    // The engine address is required by the command line but unused by a nodejs pack.
    const child = spawn(process.execPath, [runPolicyPack, "127.0.0.1:1", "."], {
      cwd: path.resolve(opts.packDir),
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env },
    });
    const stderr: string[] = [];
    readline.createInterface({ input: child.stderr! }).on("line", (line) => {
      stderr.push(line);
      opts.onStderr?.(line);
    });
    const port = await new Promise<number>((resolve, reject) => {
      const lines = readline.createInterface({ input: child.stdout! });
      lines.once("line", (line) => {
        const port = Number(line.trim());
        if (Number.isInteger(port) && port > 0) resolve(port);
        else reject(new Error(`policy pack printed ${JSON.stringify(line)} instead of its port; stderr:\n${stderr.join("\n")}`));
      });
      child.once("exit", (code) => reject(new Error(`policy pack exited with ${code} before printing its port; stderr:\n${stderr.join("\n")}`)));
    });
    const client = new analyzerrpc.AnalyzerClient(`127.0.0.1:${port}`, grpc.credentials.createInsecure());
    return new AnalyzerClient(child, client, stderr);
  }

  async info(): Promise<AnalyzerInfo> {
    const res = await unary<analyzerproto.AnalyzerInfo>((cb) => this.client.getAnalyzerInfo(new emptyproto.Empty(), cb));
    const typeName = (t: analyzerproto.PolicyType) =>
      t === analyzerproto.PolicyType.POLICY_TYPE_RESOURCE ? "resource" : t === analyzerproto.PolicyType.POLICY_TYPE_STACK ? "stack" : "unknown";
    return {
      name: res.getName(),
      version: res.getVersion(),
      supportsConfig: res.getSupportsconfig(),
      description: res.getDescription(),
      policies: res.getPoliciesList().map((p) => {
        const schema = p.getConfigschema();
        return {
          name: p.getName(),
          description: p.getDescription(),
          enforcementLevel: levelName(p.getEnforcementlevel()),
          type: typeName(p.getPolicyType()),
          remediationSteps: p.getRemediationSteps(),
          ...(schema
            ? { configSchema: { properties: (schema.getProperties()?.toJavaScript() ?? {}) as Record<string, Record<string, unknown>>, required: schema.getRequiredList() } }
            : {}),
        };
      }),
    };
  }

  /** Configure as the engine does: reconcile `given` with the pack's defaults and send every policy's config. */
  async configure(given: GivenConfig = {}): Promise<Record<string, PolicyConfig>> {
    const config = reconcileConfig((await this.info()).policies, given);
    const req = new analyzerproto.ConfigureAnalyzerRequest();
    for (const [name, c] of Object.entries(config)) {
      const pc = new analyzerproto.PolicyConfig();
      pc.setEnforcementlevel(LEVELS[c.enforcementLevel]);
      pc.setProperties(toStruct(c.properties));
      req.getPolicyconfigMap().set(name, pc);
    }
    await unary((cb) => this.client.configure(req, cb));
    return config;
  }

  async configureStack(stack: { stack: string; project: string; organization: string; dryRun: boolean }): Promise<void> {
    const req = new analyzerproto.AnalyzerStackConfigureRequest();
    req.setStack(stack.stack);
    req.setProject(stack.project);
    req.setOrganization(stack.organization);
    req.setDryRun(stack.dryRun);
    await unary((cb) => this.client.configureStack(req, cb));
  }

  async remediate(r: AnalyzerResource): Promise<Remediation[]> {
    const req = withResource(new analyzerproto.AnalyzeRequest(), r);
    const res = await unary<analyzerproto.RemediateResponse>((cb) => this.client.remediate(req, cb));
    return res.getRemediationsList().map((m) => {
      const props = m.getProperties();
      return {
        policyName: m.getPolicyname(),
        description: m.getDescription(),
        ...(props ? { properties: props.toJavaScript() as Record<string, unknown> } : {}),
        diagnostic: m.getDiagnostic(),
      };
    });
  }

  async analyze(r: AnalyzerResource): Promise<Diagnostic[]> {
    const req = withResource(new analyzerproto.AnalyzeRequest(), r);
    const res = await unary<analyzerproto.AnalyzeResponse>((cb) => this.client.analyze(req, cb));
    return res.getDiagnosticsList().map(diagnostic);
  }

  async analyzeStack(resources: AnalyzerResource[]): Promise<Diagnostic[]> {
    const req = new analyzerproto.AnalyzeStackRequest();
    req.setResourcesList(
      resources.map((r) => withResource(new analyzerproto.AnalyzerResource(), r)),
    );
    const res = await unary<analyzerproto.AnalyzeResponse>((cb) => this.client.analyzeStack(req, cb));
    return res.getDiagnosticsList().map(diagnostic);
  }

  /** Close the connection and stop the pack process (only the one this client started). */
  async close(): Promise<void> {
    this.client.close();
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => this.child.once("exit", () => resolve()));
    this.child.kill("SIGTERM");
    await exited;
  }
}

function diagnostic(d: analyzerproto.AnalyzeDiagnostic): Diagnostic {
  return {
    policyName: d.getPolicyname(),
    policyPackName: d.getPolicypackname(),
    policyPackVersion: d.getPolicypackversion(),
    description: d.getDescription(),
    message: d.getMessage(),
    enforcementLevel: levelName(d.getEnforcementlevel()),
    urn: d.getUrn(),
  };
}
