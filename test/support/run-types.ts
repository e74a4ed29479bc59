// Shapes shared by the engine stand-in's modules and its callers.

import type { Json, PropertyMap } from "./values";

export type Verb = "preview" | "up" | "refresh" | "destroy";

export type StepOp = "create" | "update" | "replace" | "delete" | "same" | "read";

export interface Step {
  urn: string;
  type: string;
  name: string;
  op: StepOp;
  /** Changed top-level keys: inputs for update/replace, outputs (drift) for refresh. */
  diffs: string[];
  /** Keys that forced a replacement. */
  replaces?: string[];
  /** For replace: true when the old object was deleted before the new one was created. */
  deleteBeforeReplace?: boolean;
  /** True when the step failed (its error is in diagnostics). */
  failed?: boolean;
}

export type Severity = "debug" | "info" | "warning" | "error";

export interface Diagnostic {
  severity: Severity;
  message: string;
  urn?: string;
  /** Where the text came from: the engine itself, the program, the plugin or a policy pack. */
  source: "engine" | "program" | "provider" | "policy";
}

export interface PolicyViolation {
  policyPack: string;
  policyName: string;
  description: string;
  message: string;
  enforcementLevel: "advisory" | "mandatory" | "remediate" | "disabled";
  urn?: string;
}

export interface PendingOperationReport {
  urn: string;
  type: string;
  op: "creating" | "updating" | "deleting" | "reading";
  id?: string;
}

export interface EngineResult {
  ok: boolean;
  verb: Verb;
  steps: Step[];
  /** Stack outputs; secrets appear as "[secret]", unknowns (preview) as "[unknown]". */
  outputs: Record<string, unknown>;
  diagnostics: Diagnostic[];
  /** Operations a previous, interrupted run left in the state (reported, kept until refresh). */
  pendingOperations: PendingOperationReport[];
  policyViolations: PolicyViolation[];
  /** The human summary printed by the CLI. */
  summary: string;
  stateFile: string;
  /** The CLI's exit code for this result: 0, 1 (failure), 7 (changes where none were expected), 8 (cancelled). */
  exitCode?: 0 | 1 | 7 | 8;
  /** True when the run was cancelled (`signal` aborted, the first SIGINT). */
  cancelled?: boolean;
  /** The preview an `up` ran first (absent with skipPreview). */
  preview?: EngineResult;
}

export interface EngineOptions {
  verb: Verb;
  /** The program directory (holds Pulumi.yaml). */
  cwd: string;
  stack: string;
  /** Defaults to <cwd>/.pulumi-state/<stack>.json. */
  stateFile?: string;
  /** Plain config, "ns:key" -> value (a key without ":" gets the project's namespace). */
  config?: Record<string, string>;
  /** Secret config, same shape; never printed, encrypted in state. */
  secrets?: Record<string, string>;
  /** A policy pack directory, run with @pulumi/pulumi/cmd/run-policy-pack. */
  policyPack?: string;
  /** A JSON file of policy config ({policyName: {enforcementLevel?, ...props}}). */
  policyConfig?: string;
  /** Extra environment for the program, the plugin and the policy pack. */
  env?: Record<string, string>;
  /** Defaults to PULUMI_CONFIG_PASSPHRASE, else a fixed test passphrase. */
  passphrase?: string;
  /**
   * Save the state once, at the end, instead of a checkpoint after every step, as
   * the CLI does with PULUMI_SKIP_CHECKPOINTS (the default here too: that variable,
   * true or 1). The state file of a 1,000-resource stack is megabytes, so a
   * checkpoint per step makes a run quadratic. A run killed part-way then leaves
   * the previous state as it was.
   */
  skipCheckpoints?: boolean;
  organization?: string;
  /**
   * Resource operations run at once (`--parallel`): default PULUMI_PARALLEL, else
   * 4 x os.availableParallelism(), as the CLI's 4 x GOMAXPROCS. Also given to the program.
   */
  parallel?: number;
  /** `up --skip-preview`: without it, up previews first and stops, changing nothing, when the preview fails. */
  skipPreview?: boolean;
  /** `--expect-no-changes`: any change fails the run (exit code 7). */
  expectNoChanges?: boolean;
  /** `up --refresh`: refresh the state before the preview and the update. */
  refresh?: boolean;
  /** `refresh --clear-pending-creates`: drop interrupted creates from the state instead of keeping them. */
  clearPendingCreates?: boolean;
  /**
   * Cancels the run when aborted, as the CLI's first SIGINT: no new steps start, in-flight
   * ones finish, no deletes, the state is saved; the result has cancelled: true, exitCode 8.
   */
  signal?: AbortSignal;
}

export interface ResourceGoal {
  type: string;
  name: string;
  parent: string;
  custom: boolean;
  props: PropertyMap;
  dependencies: string[];
  /** Input name → the URNs its value came from (outputs of other resources). */
  propertyDependencies?: Record<string, string[]>;
  provider: string;
  protect?: boolean;
  retainOnDelete?: boolean;
  deleteBeforeReplace?: boolean;
  ignoreChanges: string[];
  replaceOnChanges: string[];
  additionalSecretOutputs: string[];
  /** The `deletedWith` option: a URN. */
  deletedWith?: string;
  /** The `aliases` option: the URNs this resource had before. */
  aliases?: string[];
  /** Set for `Resource.get` (ReadResource). */
  readId?: string;
}

export interface RegisterResult {
  urn: string;
  id: string;
  outputs: PropertyMap;
  stable?: boolean;
}

export type { Json, PropertyMap };
