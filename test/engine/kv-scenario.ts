// Test helper: one stack of the kv fixture program (fixtures/kv) with its own
// temp directory for the state file and for the fixture provider's "service"
// (objects/*.json) and call log (calls.jsonl).

import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterEach } from "vitest";
import type { StackRunner } from "../support/runner";
import { standInRunner } from "./runner";
import type { Checkpoint } from "../support/state";
import type { EngineOptions, EngineResult, Step, Verb } from "../support/run-types";

export const KV_PROGRAM = path.join(__dirname, "fixtures", "kv");

export interface KvSpec {
  name: string;
  props?: Record<string, unknown>;
  dependsOn?: string[];
  protect?: boolean;
  retainOnDelete?: boolean;
  deleteBeforeReplace?: boolean;
  deletedWith?: string;
  aliases?: string[];
  ignoreChanges?: string[];
  replaceOnChanges?: string[];
  additionalSecretOutputs?: string[];
  get?: string;
  plain?: boolean;
}

export interface Call {
  op: string;
  id?: string;
  olds?: Record<string, unknown>;
  news?: Record<string, unknown>;
  inputs?: Record<string, unknown>;
  props?: Record<string, unknown>;
  apiKey?: string | null;
}

export interface RunExtra {
  secrets?: Record<string, string>;
  config?: Record<string, string>;
  policyPack?: string;
  policyConfig?: string;
  skipCheckpoints?: boolean;
  /**
   * `up` previews first, as the CLI does, unless this is true. Default true here, as CI
   * pipelines often run `up --skip-preview`: a preview runs the program a second time,
   * and only tests about the preview need it. Pass false to get the CLI's default.
   */
  skipPreview?: boolean;
  parallel?: number;
  expectNoChanges?: boolean;
  refresh?: boolean;
  clearPendingCreates?: boolean;
  env?: Record<string, string>;
  signal?: AbortSignal;
}

export class KvScenario {
  readonly dir: string;
  readonly stateFile: string;

  constructor(
    readonly stack = "dev",
    readonly runner: StackRunner = standInRunner,
  ) {
    this.dir = fs.mkdtempSync(path.join(os.tmpdir(), "engine-kv-"));
    this.stateFile = path.join(this.dir, "state", `${stack}.json`);
  }

  options(verb: Verb, resources: KvSpec[], extra: RunExtra = {}): EngineOptions {
    return {
      verb,
      cwd: KV_PROGRAM,
      stack: this.stack,
      stateFile: this.stateFile,
      config: { "kvstore:dir": this.dir, "kvtest:resources": JSON.stringify(resources), ...extra.config },
      secrets: extra.secrets,
      policyPack: extra.policyPack,
      policyConfig: extra.policyConfig,
      skipCheckpoints: extra.skipCheckpoints,
      skipPreview: extra.skipPreview ?? true,
      parallel: extra.parallel,
      expectNoChanges: extra.expectNoChanges,
      refresh: extra.refresh,
      clearPendingCreates: extra.clearPendingCreates,
      env: extra.env,
      signal: extra.signal,
    };
  }

  run(verb: Verb, resources: KvSpec[] = [], extra: RunExtra = {}): Promise<EngineResult> {
    return this.runner.run(this.options(verb, resources, extra));
  }

  calls(): Call[] {
    const f = path.join(this.dir, "calls.jsonl");
    if (!fs.existsSync(f)) return [];
    return fs.readFileSync(f, "utf8").trim().split("\n").filter(Boolean).map((l) => JSON.parse(l) as Call);
  }

  clearCalls(): void {
    fs.rmSync(path.join(this.dir, "calls.jsonl"), { force: true });
  }

  /** The fixture "service": object id -> stored data. */
  objects(): Record<string, Record<string, unknown>> {
    const d = path.join(this.dir, "objects");
    if (!fs.existsSync(d)) return {};
    return Object.fromEntries(
      fs.readdirSync(d).map((f) => [f.replace(/\.json$/, ""), JSON.parse(fs.readFileSync(path.join(d, f), "utf8")) as Record<string, unknown>]),
    );
  }

  writeObject(id: string, data: Record<string, unknown>): void {
    fs.writeFileSync(path.join(this.dir, "objects", `${id}.json`), JSON.stringify(data));
  }

  deleteObject(id: string): void {
    fs.rmSync(path.join(this.dir, "objects", `${id}.json`));
  }

  stateText(): string {
    return fs.existsSync(this.stateFile) ? fs.readFileSync(this.stateFile, "utf8") : "";
  }

  checkpoint(): Checkpoint {
    return JSON.parse(this.stateText()) as Checkpoint;
  }

  /** The id of a resource in the state file by name. */
  idOf(name: string): string {
    const r = this.checkpoint().checkpoint.latest.resources.find((x) => x.urn.endsWith(`::${name}`) && !x.delete);
    if (!r?.id) throw new Error(`no id for ${name} in state`);
    return r.id;
  }

  cleanup(): void {
    fs.rmSync(this.dir, { recursive: true, force: true });
  }
}

/** A maker of scenarios for one test file: each is deleted after the test that made it. */
export function kvScenarios(): (stack?: string, runner?: StackRunner) => KvScenario {
  const made: KvScenario[] = [];
  afterEach(() => made.splice(0).forEach((s) => s.cleanup()));
  return (stack, runner) => {
    const s = new KvScenario(stack, runner);
    made.push(s);
    return s;
  };
}

/** Steps by resource name -> op, ignoring the stack. */
export function opsByName(steps: Step[]): Record<string, string> {
  return Object.fromEntries(steps.filter((s) => s.type !== "pulumi:pulumi:Stack").map((s) => [s.name, s.op]));
}

export function stepOf(steps: Step[], name: string): Step {
  const s = steps.find((x) => x.name === name);
  if (!s) throw new Error(`no step for ${name}: ${JSON.stringify(steps.map((x) => x.name))}`);
  return s;
}

export function errors(r: EngineResult): string {
  return r.diagnostics.filter((d) => d.severity === "error").map((d) => d.message).join("\n");
}
