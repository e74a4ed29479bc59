// The engine's side of the Analyzer protocol, for one policy pack run through
// @pulumi/pulumi/cmd/run-policy-pack (what the CLI's pulumi-analyzer-policy plugin
// does): `node run-policy-pack/index.js <engineAddress> <packDir>`, port on the
// first stdout line. The config file is checked as the CLI checks it (reconcileConfig),
// and on any failure while starting the pack's process is stopped before the error
// goes up: a failed run leaves nothing behind.
//
// Order, as the engine: GetAnalyzerInfo and GetPluginInfo, Configure with the
// pack's config (the pack's initial config, then schema defaults, then the user's
// config file), ConfigureStack; per resource Remediate then Analyze on its checked
// inputs (`__provider` included); AnalyzeStack on every resource's outputs at the end.

import Ajv from "ajv";
import { closest, distance } from "fastest-levenshtein";
import { trackChild } from "./children";
import { spawn, type ChildProcess } from "node:child_process";
import * as fs from "node:fs";
import * as readline from "node:readline";
import type { PolicyHooks, PolicyResource } from "./deployment";
import { analyzerrpc, analyzerproto, emptyproto, grpc, pluginproto, structproto, toStruct, fromStruct, unary } from "./proto";
import type { ResourceState } from "../support/state";
import type { Diagnostic, PolicyViolation } from "../support/run-types";
import { isObject, remarkSecrets, unwrapMap, type Json } from "../support/values";

type Level = PolicyViolation["enforcementLevel"];
const E = analyzerproto.EnforcementLevel;
const LEVELS: Record<number, Level> = { [E.ADVISORY]: "advisory", [E.MANDATORY]: "mandatory", [E.DISABLED]: "disabled", [E.REMEDIATE]: "remediate" };
const LEVEL_NUMBERS: Record<Level, number> = { advisory: E.ADVISORY, mandatory: E.MANDATORY, disabled: E.DISABLED, remediate: E.REMEDIATE };

export interface PolicyPackOptions {
  dir: string;
  engineAddress: string;
  env: NodeJS.ProcessEnv;
  /** JSON: {"all"?: level, policyName: {enforcementLevel?, ...properties}}, like `--policy-config`. */
  configFile?: string;
  diagnostics: Diagnostic[];
  stack: { name: string; project: string; organization: string; dryRun: boolean };
}

export interface PolicyConfigEntry {
  enforcementLevel: Level;
  properties: Record<string, Json>;
}

export class PolicyPack {
  private constructor(
    private readonly child: ChildProcess,
    private readonly client: analyzerrpc.AnalyzerClient,
    readonly name: string,
    readonly version: string,
    readonly config: Record<string, PolicyConfigEntry>,
    private readonly diagnostics: Diagnostic[],
  ) {}

  static async start(opts: PolicyPackOptions): Promise<PolicyPack> {
    // Read before anything starts: a bad file starts nothing.
    const file = opts.configFile ? readPolicyConfigFile(opts.configFile) : {};
    const entry = require.resolve("@pulumi/pulumi/cmd/run-policy-pack/index.js");
    const child = trackChild(spawn(process.execPath, [entry, opts.engineAddress, opts.dir], { cwd: opts.dir, env: opts.env, stdio: ["ignore", "pipe", "pipe"] }));
    try {
      return await PolicyPack.connect(child, opts, file);
    } catch (e) {
      // Whatever failed (a config the pack refuses, a pack that does not answer), the
      // pack's process goes with it: nothing is left running.
      await stopChild(child);
      throw e;
    }
  }

  private static async connect(child: ChildProcess, opts: PolicyPackOptions, file: Record<string, unknown>): Promise<PolicyPack> {
    const out = (message: string) => opts.diagnostics.push({ severity: "info", message, source: "policy" });
    readline.createInterface({ input: child.stderr! }).on("line", out);
    const port = await new Promise<string>((resolve, reject) => {
      let first = true;
      readline.createInterface({ input: child.stdout! }).on("line", (line) => {
        if (first) {
          first = false;
          resolve(line.trim());
        } else out(line);
      });
      child.once("exit", (code) => reject(new Error(`policy pack ${opts.dir} exited (code ${code}) before printing its port`)));
      child.once("error", reject);
    });
    if (!/^\d+$/.test(port)) throw new Error(`policy pack ${opts.dir} printed ${JSON.stringify(port)} instead of a port`);
    const client = new analyzerrpc.AnalyzerClient(`127.0.0.1:${port}`, grpc.credentials.createInsecure());
    try {
      const info = await unary<analyzerproto.AnalyzerInfo>((cb) => client.getAnalyzerInfo(new emptyproto.Empty(), cb));
      await unary<pluginproto.PluginInfo>((cb) => client.getPluginInfo(new emptyproto.Empty(), cb));

      const config = reconcileConfig(describeAnalyzer(info), file, opts.configFile);
      const req = new analyzerproto.ConfigureAnalyzerRequest();
      const map = req.getPolicyconfigMap();
      for (const [name, c] of Object.entries(config)) {
        const pc = new analyzerproto.PolicyConfig();
        pc.setEnforcementlevel(LEVEL_NUMBERS[c.enforcementLevel] as analyzerproto.EnforcementLevel);
        pc.setProperties(structproto.Struct.fromJavaScript(c.properties as Record<string, structproto.JavaScriptValue>));
        map.set(name, pc);
      }
      await unary<emptyproto.Empty>((cb) => client.configure(req, cb));

      const stackReq = new analyzerproto.AnalyzerStackConfigureRequest();
      stackReq.setStack(opts.stack.name);
      stackReq.setProject(opts.stack.project);
      stackReq.setOrganization(opts.stack.organization);
      stackReq.setDryRun(opts.stack.dryRun);
      try {
        await unary<analyzerproto.AnalyzerStackConfigureResponse>((cb) => client.configureStack(stackReq, cb));
      } catch (e) {
        if ((e as grpc.ServiceError).code !== grpc.status.UNIMPLEMENTED) throw e;
      }
      return new PolicyPack(child, client, info.getName(), info.getVersion(), config, opts.diagnostics);
    } catch (e) {
      client.close();
      throw e;
    }
  }

  hooks(): PolicyHooks {
    return {
      remediate: async (r) => {
        const res = await unary<analyzerproto.RemediateResponse>((cb) => this.client.remediate(this.analyzeRequest(r), cb));
        let props = r.props;
        for (const rem of res.getRemediationsList()) {
          if (rem.getDiagnostic()) {
            this.diagnostics.push({ severity: "warning", urn: r.urn, source: "policy", message: `${rem.getPolicyname()}: ${rem.getDiagnostic()}` });
          }
          const p = rem.getProperties();
          if (p) {
            // The pack saw plaintext; keep secret what was secret.
            props = remarkSecrets(fromStruct(p), r.props);
            this.diagnostics.push({ severity: "info", urn: r.urn, source: "policy", message: `remediated by ${rem.getPolicypackname()}: ${rem.getPolicyname()}` });
          }
        }
        return props;
      },
      analyze: async (r) => {
        const res = await unary<analyzerproto.AnalyzeResponse>((cb) => this.client.analyze(this.analyzeRequest(r), cb));
        return this.violations(res, r.urn);
      },
    };
  }

  /** AnalyzeStack over the final state's resources (their outputs), providers excluded. */
  async analyzeStack(resources: ResourceState[]): Promise<PolicyViolation[]> {
    const req = new analyzerproto.AnalyzeStackRequest();
    req.setResourcesList(
      resources
        .filter((r) => !r.delete && !r.type.startsWith("pulumi:providers:"))
        .map((r) => {
          const ar = new analyzerproto.AnalyzerResource();
          ar.setType(r.type);
          ar.setUrn(r.urn);
          ar.setName(r.urn.split("::").slice(3).join("::"));
          ar.setProperties(toStruct(unwrapMap(r.outputs)));
          ar.setParent(r.parent ?? "");
          ar.setDependenciesList(r.dependencies);
          const o = new analyzerproto.AnalyzerResourceOptions();
          o.setProtect(r.protect === true);
          o.setAdditionalsecretoutputsList(r.additionalSecretOutputs ?? []);
          ar.setOptions(o);
          return ar;
        }),
    );
    const res = await unary<analyzerproto.AnalyzeResponse>((cb) => this.client.analyzeStack(req, cb));
    return this.violations(res);
  }

  private analyzeRequest(r: PolicyResource): analyzerproto.AnalyzeRequest {
    const req = new analyzerproto.AnalyzeRequest();
    req.setType(r.type);
    req.setUrn(r.urn);
    req.setName(r.name);
    req.setProperties(toStruct(unwrapMap(r.props)));
    const o = new analyzerproto.AnalyzerResourceOptions();
    o.setProtect(r.protect);
    o.setIgnorechangesList(r.ignoreChanges);
    o.setDeletebeforereplace(r.deleteBeforeReplace);
    o.setDeletebeforereplacedefined(r.deleteBeforeReplace);
    o.setAdditionalsecretoutputsList(r.additionalSecretOutputs);
    o.setParent(r.parent);
    req.setOptions(o);
    if (r.provider) {
      const p = new analyzerproto.AnalyzerProviderResource();
      p.setType(r.provider.type);
      p.setName(r.provider.name);
      p.setUrn(r.provider.urn);
      p.setProperties(toStruct(unwrapMap(r.provider.props)));
      req.setProvider(p);
    }
    return req;
  }

  private violations(res: analyzerproto.AnalyzeResponse, urn?: string): PolicyViolation[] {
    const out = res.getDiagnosticsList().map((d) => ({
      policyPack: `${d.getPolicypackname()}@v${d.getPolicypackversion()}`,
      policyName: d.getPolicyname(),
      description: d.getDescription(),
      message: d.getMessage(),
      enforcementLevel: LEVELS[d.getEnforcementlevel()] ?? "advisory",
      urn: d.getUrn() || urn,
    }));
    for (const v of out) {
      this.diagnostics.push({
        severity: v.enforcementLevel === "mandatory" ? "error" : "warning",
        urn: v.urn,
        source: "policy",
        message: `[${v.enforcementLevel}] ${v.policyPack}: ${v.policyName}: ${v.message || v.description}`,
      });
    }
    return out;
  }

  async close(): Promise<void> {
    this.client.close();
    await stopChild(this.child);
  }
}

/** SIGTERM the pack's process and wait until it has exited. */
async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((r) => child.once("exit", r));
  child.kill("SIGTERM");
  await exited;
}

/**
 * What checking a policy config needs to know of a pack: from a running pack's
 * GetAnalyzerInfo (describeAnalyzer), or from the pack's own module before anything runs
 * (preview:ci does that, whatever engine then runs).
 */
export interface PackDescription {
  name: string;
  policies: { name: string; enforcementLevel: Level; configSchema?: { properties: Record<string, unknown>; required?: string[] } }[];
  initialConfig: Record<string, PolicyConfigEntry>;
}

/** A policy config the CLI would refuse: every problem found, one per line. */
export class PolicyConfigError extends Error {
  constructor(
    readonly file: string | undefined,
    readonly problems: string[],
  ) {
    super(`invalid policy config${file ? ` ${file}` : ""}:\n${problems.map((p) => `  - ${p}`).join("\n")}`);
    this.name = "PolicyConfigError";
  }
}

/** `--policy-config`'s file: a JSON object, or a PolicyConfigError saying why not. */
export function readPolicyConfigFile(file: string): Record<string, unknown> {
  let text: string;
  try {
    text = fs.readFileSync(file, "utf8");
  } catch (e) {
    throw new PolicyConfigError(file, [`cannot read the file (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`]);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (e) {
    throw new PolicyConfigError(file, [`not valid JSON (${(e as Error).message})`]);
  }
  if (!isObject(parsed)) throw new PolicyConfigError(file, ["the file must hold a JSON object: policy name -> enforcement level or {enforcementLevel, ...properties}"]);
  return parsed;
}

const LEVEL_NAMES = Object.keys(LEVEL_NUMBERS) as Level[];
const isLevel = (v: unknown): v is Level => typeof v === "string" && (LEVEL_NAMES as string[]).includes(v);
const levelProblem = (where: string, v: unknown) => `${where}: enforcement level ${JSON.stringify(v)} is not one of ${LEVEL_NAMES.join(", ")}`;

/** The one ajv setup for the packs' config schemas: every error, draft-7 annotations (`description`, `default`) ignored. */
const ajv = new Ajv({ allErrors: true, strict: false, logger: false });

/**
 * The policy config the engine sends with Configure: the pack's initial config,
 * then the config file ("all" sets every policy's level), then each policy's
 * schema defaults for properties still unset; required properties must be set.
 *
 * Validated as the Pulumi CLI validates it before any policy runs: an enforcement
 * level that is not advisory, mandatory, remediate or disabled, a name that is no
 * policy of the pack, or properties that do not satisfy the policy's config schema
 * (type, bounds, required), or a property name its schema does not have, refuse the
 * whole config with a PolicyConfigError listing every problem. (The CLI v3.274.1 lets an
 * unknown name given only a level, and a misspelt property, through: both would leave a
 * policy silently unconfigured, so they are refused here, on either engine.)
 */
export function reconcileConfig(pack: PackDescription, file: Record<string, unknown>, fileName?: string): Record<string, PolicyConfigEntry> {
  const problems: string[] = [];
  const out: Record<string, PolicyConfigEntry> = {};
  const names = pack.policies.map((p) => p.name);
  const nearest = (key: string, among: string[]) => {
    const near = among.length ? closest(key, among) : undefined;
    return near !== undefined && distance(key, near) <= 3 ? ` (did you mean ${JSON.stringify(near)}?)` : "";
  };
  for (const key of Object.keys(file)) {
    if (key !== "all" && !names.includes(key)) problems.push(`${JSON.stringify(key)} is not a policy of ${pack.name}${nearest(key, names)}`);
  }
  const allValue = file["all"];
  const allLevel = isObject(allValue) ? allValue["enforcementLevel"] : allValue;
  if (allValue !== undefined && !isLevel(allLevel)) problems.push(levelProblem("all", allLevel));
  const all = isLevel(allLevel) ? allLevel : undefined;
  for (const p of pack.policies) {
    const name = p.name;
    const init = pack.initialConfig[name];
    const entry: PolicyConfigEntry = { enforcementLevel: init?.enforcementLevel ?? p.enforcementLevel, properties: { ...init?.properties } };
    if (all) entry.enforcementLevel = all;
    const user = file[name];
    const schemaProps = p.configSchema?.properties ?? {};
    if (typeof user === "string" || (user !== undefined && !isObject(user))) {
      if (isLevel(user)) entry.enforcementLevel = user;
      else problems.push(levelProblem(name, user));
    } else if (isObject(user)) {
      for (const [k, v] of Object.entries(user)) {
        if (k === "enforcementLevel") {
          if (isLevel(v)) entry.enforcementLevel = v;
          else problems.push(levelProblem(name, v));
        } else if (!(k in schemaProps)) {
          const known = Object.keys(schemaProps);
          problems.push(`${name}: ${JSON.stringify(k)} is not a property of its config${known.length ? ` (${known.join(", ")})` : " (it takes none)"}${nearest(k, known)}`);
        } else entry.properties[k] = v as Json;
      }
    }
    if (p.configSchema) {
      for (const [k, s] of Object.entries(schemaProps)) {
        if (!(k in entry.properties) && s && typeof s === "object" && "default" in s) entry.properties[k] = (s as { default: Json }).default;
      }
      const validate = ajv.compile({ type: "object", properties: schemaProps, required: p.configSchema.required ?? [] });
      if (!validate(entry.properties)) {
        for (const err of validate.errors ?? []) {
          const where = err.instancePath ? `${name}${err.instancePath.replace(/\//g, ".")}` : name;
          const required = err.keyword === "required" ? ` (set it in the policy config file)` : "";
          problems.push(`${where} ${err.message ?? "is invalid"}${required}`);
        }
      }
    }
    out[name] = entry;
  }
  if (problems.length) throw new PolicyConfigError(fileName, problems);
  return out;
}

/** A running pack's description, from its GetAnalyzerInfo answer. */
export function describeAnalyzer(info: analyzerproto.AnalyzerInfo): PackDescription {
  const initialConfig: Record<string, PolicyConfigEntry> = {};
  for (const [name, c] of info.getInitialconfigMap().entries()) {
    initialConfig[name] = { enforcementLevel: LEVELS[c.getEnforcementlevel()] ?? "advisory", properties: (c.getProperties()?.toJavaScript() ?? {}) as Record<string, Json> };
  }
  return {
    name: info.getName(),
    initialConfig,
    policies: info.getPoliciesList().map((p) => {
      const schema = p.getConfigschema();
      return {
        name: p.getName(),
        enforcementLevel: LEVELS[p.getEnforcementlevel()] ?? "advisory",
        ...(schema ? { configSchema: { properties: (schema.getProperties()?.toJavaScript() ?? {}) as Record<string, unknown>, required: schema.getRequiredList() } } : {}),
      };
    }),
  };
}
