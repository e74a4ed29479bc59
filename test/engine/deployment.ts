// The step generator and executor: what the engine does with each registration,
// and with the resources the program no longer registers. No gRPC here; the
// monitor (monitor.ts) translates RPCs into these calls.
//
// Behaviour follows pkg/resource/deploy in pulumi/pulumi for a provider that, like
// the dynamic-provider plugin, accepts no secrets, does not support preview, and
// returns no detailed diff:
//  - Check(olds = old inputs, news), then Diff(id, olds = old outputs, news = checked
//    inputs). DIFF_UNKNOWN (no `diff` method) falls back to comparing inputs.
//  - replaceOnChanges only acts on the changed keys the provider reports, which the
//    dynamic plugin never does; so it only matters when the provider has no `diff`.
//  - Replacement is create-before-delete unless the provider or the resource option
//    asks for delete-before-replace; replaced and removed resources are deleted at
//    the end, dependents first.
//  - In preview nothing is created, updated or deleted; a previewed create or update
//    returns the checked inputs as outputs, so every output-only property is unknown
//    to the program.
//  - A pending operation is written to the state before each create/update/delete
//    and cleared after, so a killed run leaves a record behind.

import type { DynamicProviderPlugin } from "./plugin";
import { InitFailedError } from "./plugin";
import { sortResources, providerUrn, type Deployment as StateDeployment, type PendingOperation, type ResourceState, type PendingOperationType } from "./state";
import type { Diagnostic, PolicyViolation, RegisterResult, ResourceGoal, Step, StepOp } from "./types";
import { PROVIDER_KEY, UNKNOWN, changedKeys, isSecret, jsonEqual, makeSecret, remarkSecrets, type Json, type PropertyMap } from "./values";

export const STACK_TYPE = "pulumi:pulumi:Stack";
export const DYNAMIC_PACKAGE = "pulumi-nodejs";
export const DEFAULT_PROVIDER_TYPE = `pulumi:providers:${DYNAMIC_PACKAGE}`;

/** Hooks a policy pack plugs into: called with each resource's checked inputs. */
export interface PolicyHooks {
  remediate(r: PolicyResource): Promise<PropertyMap>;
  analyze(r: PolicyResource): Promise<PolicyViolation[]>;
}

export interface PolicyResource {
  urn: string;
  type: string;
  name: string;
  props: PropertyMap;
  parent: string;
  dependencies: string[];
  provider?: { type: string; name: string; urn: string; props: PropertyMap };
  protect: boolean;
  ignoreChanges: string[];
  deleteBeforeReplace: boolean;
  additionalSecretOutputs: string[];
}

export interface ProviderHandle {
  plugin: DynamicProviderPlugin;
  ref: string;
  state: ResourceState;
}

export interface DeploymentOptions {
  project: string;
  stack: string;
  dryRun: boolean;
  /** Save only the final state (PULUMI_SKIP_CHECKPOINTS), not a checkpoint after every step. */
  skipCheckpoints?: boolean;
  old: StateDeployment;
  /** Starts (once) and configures the dynamic-provider plugin. */
  provider: () => Promise<ProviderHandle>;
  save: (d: StateDeployment) => void;
  policy?: PolicyHooks;
  /** Called once, on the first failed step: the engine then stops the program. */
  onFailure?: () => void;
}

export class StepError extends Error {}

export class Deployment {
  readonly steps: Step[] = [];
  readonly diagnostics: Diagnostic[] = [];
  readonly violations: PolicyViolation[] = [];
  /** Preview saw a mandatory violation: the run fails at the end (the engine's `sawError`). */
  sawPolicyError = false;
  /** The state as it evolves: old resources first, updated in place, new ones appended. */
  private current: ResourceState[];
  private readonly pending: PendingOperation[];
  private readonly registered = new Set<string>();
  private readonly oldByUrn = new Map<string, ResourceState>();
  stackUrn: string | undefined;
  /** Set by the first failed step: like the engine, accept no further registrations. */
  private cancelled = false;
  private readonly inflight = new Set<Promise<unknown>>();

  private readonly opts: DeploymentOptions;

  constructor(opts: DeploymentOptions) {
    this.opts = { ...opts };
    this.current = [...opts.old.resources];
    // Operations left by an interrupted run stay recorded until a refresh resolves them.
    this.pending = [...(opts.old.pending_operations ?? [])];
    for (const r of opts.old.resources) if (!r.delete) this.oldByUrn.set(r.urn, r);
  }

  /** Plugs in a policy pack (started after the deployment, inside the engine's error handling). */
  setPolicy(policy: PolicyHooks): void {
    this.opts.policy = policy;
  }

  makeUrn(parent: string, type: string, name: string): string {
    let qualified = type;
    if (parent) {
      const parentType = parent.split("::")[2] ?? "";
      if (parentType !== STACK_TYPE) qualified = `${parentType}$${type}`;
    }
    return `urn:pulumi:${this.opts.stack}::${this.opts.project}::${qualified}::${name}`;
  }

  /** RegisterResource: the program declares a resource; returns its outputs. */
  register(goal: ResourceGoal): Promise<RegisterResult> {
    return this.track(() => this.doRegister(goal));
  }

  /** ReadResource (`Resource.get`): reads an existing object, kept in state as external. */
  read(goal: ResourceGoal): Promise<RegisterResult> {
    return this.track(() => this.doRead(goal));
  }

  /** Runs one registration, refusing new ones after a failure and cancelling on failure. */
  private track(f: () => Promise<RegisterResult>): Promise<RegisterResult> {
    if (this.cancelled) {
      return Promise.reject(new StepError("the deployment was cancelled after an earlier error"));
    }
    const p = f().catch((e: unknown) => {
      if (!this.cancelled) {
        this.cancelled = true;
        this.opts.onFailure?.();
      }
      throw e;
    });
    this.inflight.add(p);
    const forget = () => this.inflight.delete(p);
    p.then(forget, forget);
    return p;
  }

  /** Resolves once no registration is in flight (after a failure, before stopping the program). */
  async settle(): Promise<void> {
    while (this.inflight.size) await Promise.allSettled([...this.inflight]);
  }

  get failed(): boolean {
    return this.cancelled;
  }

  private async doRegister(goal: ResourceGoal): Promise<RegisterResult> {
    const urn = this.makeUrn(goal.parent, goal.type, goal.name);
    if (this.registered.has(urn)) throw new StepError(`Duplicate resource URN '${urn}'; try giving it a unique name`);
    this.registered.add(urn);
    if (goal.type === STACK_TYPE) this.stackUrn = urn;
    try {
      if (!goal.custom) return this.registerComponent(urn, goal);
      return await this.registerCustom(urn, goal);
    } catch (e) {
      this.diagnostics.push({ severity: "error", message: errorMessage(e), urn, source: "engine" });
      throw e;
    }
  }

  private async doRead(goal: ResourceGoal): Promise<RegisterResult> {
    const urn = this.makeUrn(goal.parent, goal.type, goal.name);
    this.registered.add(urn);
    try {
      this.requireDynamic(goal.type);
      const prov = await this.opts.provider();
      const id = goal.readId ?? "";
      const res = await prov.plugin.read(urn, id, goal.props, {});
      if (!res.id) throw new StepError(`resource '${id}' does not exist (read of ${urn} returned no id)`);
      const outputs = remarkSecrets(res.outputs, goal.props, goal.additionalSecretOutputs);
      const state: ResourceState = {
        urn,
        custom: true,
        external: true,
        id: res.id,
        type: goal.type,
        inputs: res.inputs ?? {},
        outputs,
        parent: goal.parent || undefined,
        dependencies: goal.dependencies,
        provider: prov.ref,
      };
      this.replaceLive(urn, state);
      this.step(urn, goal.type, "read", []);
      this.persist();
      return { urn, id: res.id, outputs };
    } catch (e) {
      this.diagnostics.push({ severity: "error", message: errorMessage(e), urn, source: "engine" });
      throw e;
    }
  }

  /** RegisterResourceOutputs: outputs of components and of the stack. */
  registerOutputs(urn: string, outputs: PropertyMap): void {
    const r = this.live(urn);
    if (r) {
      r.outputs = outputs;
      this.persist();
    }
  }

  private registerComponent(urn: string, goal: ResourceGoal): RegisterResult {
    const old = this.oldByUrn.get(urn);
    const state: ResourceState = {
      urn,
      custom: false,
      type: goal.type,
      inputs: goal.props,
      outputs: old?.outputs ?? {},
      parent: goal.parent || undefined,
      dependencies: goal.dependencies,
      protect: goal.protect || undefined,
    };
    const diffs = old ? changedKeys(old.inputs, goal.props) : [];
    this.step(urn, goal.type, !old ? "create" : diffs.length ? "update" : "same", diffs);
    this.replaceLive(urn, state);
    this.persist();
    return { urn, id: "", outputs: {} };
  }

  private requireDynamic(type: string): void {
    // Routing is by the token's package: "pulumi-nodejs:dynamic:Resource" and the
    // "pulumi-nodejs:dynamic/<module>:<type>" tokens from dynamic.Resource's module/type
    // arguments all belong to the pulumi-nodejs package, served by the one plugin.
    if (type.split(":")[0] !== DYNAMIC_PACKAGE) {
      throw new StepError(`the engine stand-in only runs dynamic resources (package ${DYNAMIC_PACKAGE}); got type ${type}`);
    }
  }

  private async registerCustom(urn: string, goal: ResourceGoal): Promise<RegisterResult> {
    this.requireDynamic(goal.type);
    if (goal.provider) {
      throw new StepError(`explicit provider references are not supported by the engine stand-in (${goal.provider})`);
    }
    const prov = await this.opts.provider();
    const old = this.oldByUrn.get(urn);

    // ignoreChanges: the engine copies the old input values over the new ones before Check.
    let news = goal.props;
    if (old && goal.ignoreChanges.length) news = applyIgnoreChanges(old.inputs, news, goal.ignoreChanges);

    // As the engine's step generator does: Check, then the analyzers on the checked
    // inputs EVEN when Check failed (so every problem of the resource is reported
    // at once), and only then refuse an invalid resource.
    const checked = await prov.plugin.check(urn, old?.inputs ?? {}, news);
    const problems = checked.failures.map((f) => `  ${f.property ? `${f.property}: ` : ""}${f.reason}`);
    // The plugin returns plaintext; inputs that were secret stay secret in state.
    let inputs = remarkSecrets(checked.inputs, news);

    if (this.opts.policy) {
      const pr = this.policyResource(urn, goal, inputs, prov);
      const remediated = await this.opts.policy.remediate(pr);
      if (!jsonEqual(remediated, inputs)) inputs = remediated;
      const violations = await this.opts.policy.analyze({ ...pr, props: inputs });
      this.violations.push(...violations);
      const mandatory = violations.filter((v) => v.enforcementLevel === "mandatory");
      // A mandatory violation makes the resource invalid on up; in preview the engine
      // only remembers it (preview goes on, stack policies still run, the run fails at the end).
      if (mandatory.length && this.opts.dryRun) this.sawPolicyError = true;
      else problems.push(...mandatory.map((v) => `  mandatory policy violation ${v.policyName}: ${v.message}`));
    }
    if (problems.length) {
      const what = checked.failures.length ? "check failed" : "mandatory policy violation(s)";
      throw new StepError(`${urn}: ${what}:\n${problems.join("\n")}`);
    }

    const base = {
      urn,
      custom: true,
      type: goal.type,
      parent: goal.parent || undefined,
      dependencies: goal.dependencies,
      provider: prov.ref,
      protect: goal.protect || undefined,
      retainOnDelete: goal.retainOnDelete || undefined,
      additionalSecretOutputs: goal.additionalSecretOutputs.length ? goal.additionalSecretOutputs : undefined,
    };

    if (!old) return this.create(base, inputs, goal);

    const displayDiffs = changedKeys(old.inputs, inputs);
    const diff = await prov.plugin.diff(urn, old.id ?? "", old.outputs, inputs, old.inputs, goal.ignoreChanges);
    let changes = diff.changes === "some";
    let diffKeys = diff.diffs;
    if (diff.changes === "unknown") {
      // Legacy diff: the provider had no opinion, so compare the inputs.
      changes = displayDiffs.length > 0;
      diffKeys = displayDiffs;
    }
    let replaces = diff.changes === "none" ? [] : [...diff.replaces];
    for (const k of diffKeys) if (matchesAny(k, goal.replaceOnChanges) && !replaces.includes(k)) replaces.push(k);
    const hasInitErrors = (old.initErrors?.length ?? 0) > 0;

    if (replaces.length) {
      if (old.protect) {
        throw new StepError(`unable to replace resource "${urn}" as it is currently marked for protection; set protect: false first`);
      }
      const dbr = diff.deleteBeforeReplace || goal.deleteBeforeReplace === true;
      return this.replace(base, old, inputs, goal, displayDiffs, replaces, dbr);
    }
    if (changes || hasInitErrors) return this.update(base, old, inputs, goal, displayDiffs);

    const same: ResourceState = { ...old, ...base, id: old.id, inputs, outputs: old.outputs, initErrors: undefined };
    this.replaceLive(urn, same);
    this.step(urn, goal.type, "same", []);
    this.persist();
    return { urn, id: old.id ?? "", outputs: old.outputs, stable: true };
  }

  private async create(base: Omit<ResourceState, "inputs" | "outputs">, inputs: PropertyMap, goal: ResourceGoal, op: StepOp = "create"): Promise<RegisterResult> {
    const urn = base.urn;
    if (this.opts.dryRun) {
      if (op === "create") this.step(urn, goal.type, "create", []);
      // The planned state (never saved) is what AnalyzeStack sees in preview.
      this.replaceLive(urn, { ...base, inputs, outputs: inputs });
      return { urn, id: "", outputs: inputs };
    }
    const prov = await this.opts.provider();
    const planned: ResourceState = { ...base, inputs, outputs: {} };
    const res = await this.withPending(planned, "creating", async () => {
      try {
        return await prov.plugin.create(urn, inputs);
      } catch (e) {
        if (e instanceof InitFailedError && e.id) {
          // The object exists: keep it, so the next run updates it instead of duplicating it.
          const outputs = remarkSecrets(e.properties, inputs, goal.additionalSecretOutputs);
          this.replaceLive(urn, { ...planned, id: e.id, outputs, initErrors: e.reasons.length ? e.reasons : [e.message] });
        }
        throw e;
      }
    }).catch((e: unknown) => {
      this.failStep(urn, goal.type, op);
      throw e;
    });
    const outputs = remarkSecrets(res.outputs, inputs, goal.additionalSecretOutputs);
    this.replaceLive(urn, { ...planned, id: res.id, outputs });
    if (op === "create") this.step(urn, goal.type, "create", []);
    this.persist();
    return { urn, id: res.id, outputs };
  }

  private async update(base: Omit<ResourceState, "inputs" | "outputs">, old: ResourceState, inputs: PropertyMap, goal: ResourceGoal, diffs: string[]): Promise<RegisterResult> {
    const urn = base.urn;
    this.step(urn, goal.type, "update", diffs);
    if (this.opts.dryRun) {
      this.replaceLive(urn, { ...old, ...base, id: old.id, inputs, outputs: inputs });
      return { urn, id: old.id ?? "", outputs: inputs };
    }
    const prov = await this.opts.provider();
    const planned: ResourceState = { ...old, ...base, id: old.id, inputs, outputs: old.outputs };
    const props = await this.withPending(planned, "updating", async () => {
      try {
        return await prov.plugin.update(urn, old.id ?? "", old.outputs, inputs, old.inputs);
      } catch (e) {
        if (e instanceof InitFailedError) {
          const outputs = remarkSecrets(e.properties, inputs, goal.additionalSecretOutputs);
          this.replaceLive(urn, { ...planned, id: e.id || old.id, outputs, initErrors: e.reasons.length ? e.reasons : [e.message] });
        }
        throw e;
      }
    }).catch((e: unknown) => {
      this.markFailed(urn);
      throw e;
    });
    const outputs = remarkSecrets(props, inputs, goal.additionalSecretOutputs);
    this.replaceLive(urn, { ...planned, outputs, initErrors: undefined });
    this.persist();
    return { urn, id: old.id ?? "", outputs };
  }

  private async replace(
    base: Omit<ResourceState, "inputs" | "outputs">,
    old: ResourceState,
    inputs: PropertyMap,
    goal: ResourceGoal,
    diffs: string[],
    replaces: string[],
    deleteBeforeReplace: boolean,
  ): Promise<RegisterResult> {
    const urn = base.urn;
    this.steps.push({ urn, type: goal.type, name: nameOf(urn), op: "replace", diffs, replaces, deleteBeforeReplace });
    if (this.opts.dryRun) {
      this.replaceLive(urn, { ...base, inputs, outputs: inputs });
      return { urn, id: "", outputs: inputs };
    }
    if (deleteBeforeReplace) {
      await this.deleteOne(old).catch((e: unknown) => {
        this.markFailed(urn);
        throw e;
      });
    } else {
      // The old object stays in state, marked for deletion once the update is done.
      old.delete = true;
      this.persist();
    }
    return this.create(base, inputs, goal, "replace");
  }

  /**
   * After the program exits: deletes replaced resources and, when the program
   * succeeded, the resources it no longer declares, dependents first.
   */
  async finish(programOk: boolean): Promise<void> {
    const toDelete = new Set<ResourceState>();
    for (const r of this.current) {
      if (r.delete) toDelete.add(r);
      else if (programOk && !this.registered.has(r.urn)) toDelete.add(r);
    }
    if (!programOk) {
      // Like the engine: a failed program never causes deletions of resources it
      // did not get to register; replaced objects wait for the next run.
      for (const r of [...toDelete]) if (r.delete && !this.registered.has(r.urn)) toDelete.delete(r);
    }
    await this.deleteAll(toDelete, (r) => (r.delete ? undefined : "delete"));
    this.persist(true);
  }

  /** Deletes every resource in state (destroy). */
  async destroyAll(): Promise<void> {
    await this.deleteAll(new Set(this.current), () => "delete");
    this.persist(true);
  }

  private async deleteAll(set: Set<ResourceState>, stepOp: (r: ResourceState) => StepOp | undefined): Promise<void> {
    // Reverse of the dependency order: dependents are deleted before what they use.
    const order = sortResources(this.current).filter((r) => set.has(r)).reverse();
    let failed = false;
    for (const r of order) {
      const op = stepOp(r);
      const isDefaultProvider = r.type.startsWith("pulumi:providers:");
      if (op && !isDefaultProvider) this.step(r.urn, r.type, op, []);
      if (failed) continue;
      try {
        if (r.protect && !r.delete) {
          throw new StepError(`unable to delete resource "${r.urn}" as it is currently marked for protection; set protect: false and run up first`);
        }
        if (!this.opts.dryRun) await this.deleteOne(r);
      } catch (e) {
        failed = true;
        this.markFailed(r.urn);
        this.diagnostics.push({ severity: "error", message: errorMessage(e), urn: r.urn, source: "engine" });
      }
    }
  }

  private async deleteOne(r: ResourceState): Promise<void> {
    // External (read) resources, components, the stack and providers own no object;
    // retainOnDelete keeps the object and only forgets it.
    if (r.custom && !r.external && !r.retainOnDelete && !r.type.startsWith("pulumi:providers:")) {
      const prov = await this.opts.provider();
      await this.withPending(r, "deleting", () => prov.plugin.delete(r.urn, r.id ?? "", r.outputs, r.inputs));
    }
    this.current = this.current.filter((x) => x !== r);
    this.persist();
  }

  /**
   * Refresh: Read each managed object. No id back means it was deleted out of
   * band (dropped from state); returned inputs replace the stored ones; changed
   * output keys are reported as drift. Pending operations are resolved here.
   */
  async refreshAll(): Promise<void> {
    for (const op of this.pending.splice(0)) {
      const what = op.type === "creating" ? "create" : op.type.replace(/ing$/, "e");
      this.diagnostics.push({
        severity: "warning",
        urn: op.resource.urn,
        source: "engine",
        message:
          op.type === "creating"
            ? `cleared the interrupted create of ${op.resource.urn}: the object may exist in the service without being in the state; check the service and delete or adopt it`
            : `cleared the interrupted ${what} of ${op.resource.urn}; its state is refreshed below`,
      });
    }
    for (const r of sortResources(this.current)) {
      if (!r.custom || r.type.startsWith("pulumi:providers:")) continue;
      const prov = await this.opts.provider();
      try {
        const res = await prov.plugin.read(r.urn, r.id ?? "", r.outputs, r.inputs);
        if (!res.id) {
          this.step(r.urn, r.type, "delete", []);
          this.current = this.current.filter((x) => x !== r);
          continue;
        }
        // Keep secret what was secret: by input name, by option, and by old output.
        const wasSecret = Object.keys(r.outputs).filter((k) => isSecret(r.outputs[k]));
        const outputs = remarkSecrets(res.outputs, r.inputs, [...(r.additionalSecretOutputs ?? []), ...wasSecret]);
        const inputs = res.inputs ? remarkSecrets(res.inputs, r.inputs) : r.inputs;
        const drift = changedKeys(r.outputs, outputs);
        this.step(r.urn, r.type, drift.length ? "update" : "same", drift);
        this.replaceLiveObject(r, { ...r, id: res.id, outputs, inputs });
      } catch (e) {
        this.failStep(r.urn, r.type, "same");
        this.diagnostics.push({ severity: "error", message: errorMessage(e), urn: r.urn, source: "engine" });
      }
    }
    this.persist(true);
  }

  private replaceLiveObject(old: ResourceState, next: ResourceState): void {
    const i = this.current.indexOf(old);
    if (i >= 0) this.current[i] = next;
  }

  /** Records the operation in state before it is sent, clears it after (success or failure). */
  private async withPending<T>(resource: ResourceState, type: PendingOperationType, f: () => Promise<T>): Promise<T> {
    const op: PendingOperation = { resource, type };
    this.pending.push(op);
    this.persist();
    try {
      return await f();
    } finally {
      this.pending.splice(this.pending.indexOf(op), 1);
      this.persist();
    }
  }

  /** Adds or replaces the live (not pending-delete) entry for a URN. */
  private replaceLive(urn: string, state: ResourceState): void {
    const i = this.current.findIndex((r) => r.urn === urn && !r.delete);
    if (i >= 0) this.current[i] = state;
    else this.current.push(state);
  }

  live(urn: string): ResourceState | undefined {
    return this.current.find((r) => r.urn === urn && !r.delete);
  }

  /** Ensures the default provider resource is in state (reusing the old id). */
  ensureProviderState(state: ResourceState): void {
    this.registered.add(state.urn);
    this.replaceLive(state.urn, state);
  }

  private step(urn: string, type: string, op: StepOp, diffs: string[]): void {
    this.steps.push({ urn, type, name: nameOf(urn), op, diffs });
  }

  private failStep(urn: string, type: string, op: StepOp): void {
    if (!this.steps.some((s) => s.urn === urn)) this.step(urn, type, op, []);
    this.markFailed(urn);
  }

  private markFailed(urn: string): void {
    for (const s of this.steps) if (s.urn === urn) s.failed = true;
  }

  private policyResource(urn: string, goal: ResourceGoal, props: PropertyMap, prov: ProviderHandle): PolicyResource {
    return {
      urn,
      type: goal.type,
      name: goal.name,
      props,
      parent: goal.parent,
      dependencies: goal.dependencies,
      provider: { type: prov.state.type, name: nameOf(prov.state.urn), urn: prov.state.urn, props: prov.state.inputs },
      protect: goal.protect === true,
      ignoreChanges: goal.ignoreChanges,
      deleteBeforeReplace: goal.deleteBeforeReplace === true,
      additionalSecretOutputs: goal.additionalSecretOutputs,
    };
  }

  resources(): ResourceState[] {
    return sortResources(this.current);
  }

  pendingOperations(): PendingOperation[] {
    return [...this.pending];
  }

  /** Saves the state: a checkpoint after every step, as the engine does, unless skipped; always the `final` one. */
  persist(final = false): void {
    if (this.opts.dryRun || (this.opts.skipCheckpoints && !final)) return;
    this.opts.save({ manifest: this.opts.old.manifest, resources: sortResources(this.current), pending_operations: this.pending });
  }
}

export function nameOf(urn: string): string {
  return urn.split("::").slice(3).join("::");
}

export function errorMessage(e: unknown): string {
  if (e instanceof Error) return e.message;
  return String(e);
}

function matchesAny(key: string, patterns: string[]): boolean {
  return patterns.some((p) => p === "*" || p === key || p.split(/[.[]/)[0] === key);
}

/** Top-level (and dotted-path) ignoreChanges: the old input value wins. */
function applyIgnoreChanges(olds: PropertyMap, news: PropertyMap, paths: string[]): PropertyMap {
  const out: PropertyMap = structuredClone(news);
  for (const p of paths) {
    const parts = p.split(".");
    let src: Json | undefined = olds;
    let dst: Json | undefined = out;
    for (let i = 0; i < parts.length - 1; i++) {
      src = isObj(src) ? src[parts[i]!] : undefined;
      dst = isObj(dst) ? dst[parts[i]!] : undefined;
    }
    const last = parts[parts.length - 1]!;
    if (!isObj(dst)) continue;
    if (isObj(src) && last in src) dst[last] = src[last]!;
    else delete dst[last];
  }
  return out;
}

function isObj(v: Json | undefined): v is { [k: string]: Json } {
  return typeof v === "object" && v !== null && !Array.isArray(v) && !isSecret(v);
}

export { PROVIDER_KEY, UNKNOWN, makeSecret, providerUrn };
