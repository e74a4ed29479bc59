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

import { defaultParallel, limiter } from "./parallel";
import type { DynamicProviderPlugin } from "./plugin";
import { InitFailedError } from "./plugin";
import { sortResources, providerUrn, type Deployment as StateDeployment, type PendingOperation, type ResourceState, type PendingOperationType } from "../support/state";
import type { Diagnostic, PolicyViolation, RegisterResult, ResourceGoal, Step, StepOp } from "../support/run-types";
import { PROVIDER_KEY, UNKNOWN, changedKeys, isSecret, jsonEqual, makeSecret, remarkSecrets, shownKeys, type Json, type PropertyMap } from "../support/values";

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
  /** Called once, on the first failed step or on cancellation: the engine then stops the program. */
  onFailure?: () => void;
  /** Resource operations (create, update, delete, refresh read) run at once: `--parallel`. */
  parallel?: number;
  /** Refresh: drop pending creates instead of keeping them (`refresh --clear-pending-creates`). */
  clearPendingCreates?: boolean;
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
  /** Deleted first by a delete-before-replace of something they depend on: created again when registered. */
  private readonly cascaded = new Set<string>();
  stackUrn: string | undefined;
  /** Set by the first failed step: like the engine, accept no further registrations. */
  private cancelled = false;
  private readonly inflight = new Set<Promise<unknown>>();
  /** Set by cancel() (the first SIGINT): no new steps, in-flight ones finish, the state is saved. */
  cancelRequested = false;
  /** Holds resource operations beyond `--parallel` back. */
  private readonly limit: <T>(f: () => Promise<T>) => Promise<T>;

  private readonly opts: DeploymentOptions;

  constructor(opts: DeploymentOptions) {
    this.opts = { ...opts };
    this.limit = limiter(opts.parallel ?? defaultParallel());
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

  /**
   * The first SIGINT (pulumi/pulumi cancellation_scope.go, cancelSource.Cancel): no new
   * steps start, in-flight ones finish, nothing is deleted, the state is saved.
   */
  cancel(): void {
    if (this.cancelled) return;
    this.cancelRequested = true;
    this.cancelled = true;
    this.opts.onFailure?.();
  }

  private async doRegister(goal: ResourceGoal): Promise<RegisterResult> {
    const urn = this.makeUrn(goal.parent, goal.type, goal.name);
    if (this.registered.has(urn)) throw new StepError(`Duplicate resource URN '${urn}'; try giving it a unique name`);
    this.registered.add(urn);
    if (goal.type === STACK_TYPE) this.stackUrn = urn;
    this.takeAlias(urn, goal.aliases ?? []);
    try {
      if (!goal.custom) return this.registerComponent(urn, goal);
      return await this.registerCustom(urn, goal);
    } catch (e) {
      this.diagnostics.push({ severity: "error", message: errorMessage(e), urn, source: "engine" });
      throw e;
    }
  }

  /**
   * Aliases: an old resource found under one of the resource's former URNs is this
   * resource (step_generator.go, getOldResource / generateAliases), renamed in state,
   * not deleted and created again.
   */
  private takeAlias(urn: string, aliases: string[]): void {
    if (this.oldByUrn.has(urn)) return;
    for (const alias of aliases) {
      const old = this.oldByUrn.get(alias);
      if (!old || this.registered.has(alias)) continue;
      const renamed: ResourceState = { ...old, urn };
      this.replaceLiveObject(old, renamed);
      this.oldByUrn.delete(alias);
      this.oldByUrn.set(urn, renamed);
      const toNewUrn = (d: string) => (d === alias ? urn : d);
      for (const r of this.current) {
        r.dependencies = r.dependencies.map(toNewUrn);
        if (r.propertyDependencies) r.propertyDependencies = Object.fromEntries(Object.entries(r.propertyDependencies).map(([k, urns]) => [k, urns.map(toNewUrn)]));
      }
      return;
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
      propertyDependencies: goal.propertyDependencies,
      provider: prov.ref,
      protect: goal.protect || undefined,
      retainOnDelete: goal.retainOnDelete || undefined,
      additionalSecretOutputs: goal.additionalSecretOutputs.length ? goal.additionalSecretOutputs : undefined,
      deletedWith: goal.deletedWith || undefined,
    };

    if (this.cascaded.has(urn)) {
      this.steps.push({ urn, type: goal.type, name: nameOf(urn), op: "replace", diffs: [], replaces: [], deleteBeforeReplace: true });
      return this.create(base, inputs, goal, "replace");
    }
    if (!old) return this.create(base, inputs, goal);

    const displayDiffs = changedKeys(old.inputs, inputs);
    const shown = shownKeys(old.inputs, inputs);
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
      // Protection blocks a replacement only when the resource is protected before AND after
      // (step_generator.go, continueStepsFromDiff): unprotecting and replacing in one run is allowed.
      if (old.protect && goal.protect) {
        throw new StepError(`unable to replace resource "${urn}" as it is currently marked for protection; set protect: false first`);
      }
      // "If we are going to perform a replacement, we need to recompute the default values"
      // (step_generator.go, continueStepsFromDiff): Check again, with NO old inputs.
      const rechecked = await prov.plugin.check(urn, {}, news);
      if (rechecked.failures.length) {
        const lines = rechecked.failures.map((f) => `  ${f.property ? `${f.property}: ` : ""}${f.reason}`);
        throw new StepError(`${urn}: check failed:\n${lines.join("\n")}`);
      }
      inputs = remarkSecrets(rechecked.inputs, news);
      // An explicit deleteBeforeReplace option, true or false, overrides the provider's answer.
      const dbr = goal.deleteBeforeReplace ?? diff.deleteBeforeReplace;
      return this.replace(base, old, inputs, goal, shown, replaces, dbr);
    }
    if (changes || hasInitErrors) return this.update(base, old, inputs, goal, shown);

    // Secrets are re-marked on every step, "same" included (step_executor.go): an input that
    // became pulumi.secret(...) makes the unchanged output secret in state too.
    const outputs = remarkSecrets(old.outputs, inputs, goal.additionalSecretOutputs);
    const same: ResourceState = { ...old, ...base, id: old.id, inputs, outputs, initErrors: undefined };
    this.replaceLive(urn, same);
    this.step(urn, goal.type, "same", []);
    this.persist();
    return { urn, id: old.id ?? "", outputs, stable: true };
  }

  private async create(
    base: Omit<ResourceState, "inputs" | "outputs">,
    inputs: PropertyMap,
    goal: ResourceGoal,
    op: StepOp = "create",
    /** The old object of a create-before-delete replacement: marked for deletion once the new one exists. */
    replacing?: ResourceState,
  ): Promise<RegisterResult> {
    const urn = base.urn;
    if (this.opts.dryRun) {
      if (op === "create") this.step(urn, goal.type, "create", []);
      // The planned state (never saved) is what AnalyzeStack sees in preview.
      this.replaceLive(urn, { ...base, inputs, outputs: inputs });
      return { urn, id: "", outputs: inputs };
    }
    const prov = await this.opts.provider();
    const planned: ResourceState = { ...base, inputs, outputs: {} };
    // CreateStep.Apply (step.go): the old object is marked for deletion only once the new
    // one exists; a refused replacement leaves the old one as it was.
    const place = (state: ResourceState) => {
      if (!replacing) return this.replaceLive(urn, state);
      replacing.delete = true;
      this.current.push(state);
    };
    // A slot first, then the pending operation: only operations actually sent are recorded.
    const res = await this.limit(() =>
      this.withPending(planned, "creating", async () => {
        try {
          return await prov.plugin.create(urn, inputs);
        } catch (e) {
          if (e instanceof InitFailedError && e.id) {
            // The object exists: keep it, so the next run updates it instead of duplicating it.
            const outputs = remarkSecrets(e.properties, inputs, goal.additionalSecretOutputs);
            place({ ...planned, id: e.id, outputs, initErrors: e.reasons.length ? e.reasons : [e.message] });
          }
          throw e;
        }
      }),
    ).catch((e: unknown) => {
      this.failStep(urn, goal.type, op);
      throw e;
    });
    const outputs = remarkSecrets(res.outputs, inputs, goal.additionalSecretOutputs);
    place({ ...planned, id: res.id, outputs });
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
    const props = await this.limit(() =>
      this.withPending(planned, "updating", async () => {
        try {
          return await prov.plugin.update(urn, old.id ?? "", old.outputs, inputs, old.inputs);
        } catch (e) {
          if (e instanceof InitFailedError) {
            // A partly failed update keeps the OLD inputs with the new outputs (pkg/engine/update.go,
            // OnResourceStepPost; pulumi#2011), so the next diff still sees what is left to do.
            const outputs = remarkSecrets(e.properties, inputs, goal.additionalSecretOutputs);
            this.replaceLive(urn, { ...planned, inputs: old.inputs, id: e.id || old.id, outputs, initErrors: e.reasons.length ? e.reasons : [e.message] });
          }
          throw e;
        }
      }),
    ).catch((e: unknown) => {
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
      // Dependents that would be replaced too go first (step_generator.go,
      // calculateDependentReplacements): those with an input taken from it.
      await this.deleteDependentsFirst(old).catch((e: unknown) => {
        this.markFailed(urn);
        throw e;
      });
      return this.create(base, inputs, goal, "replace");
    }
    return this.create(base, inputs, goal, "replace", old);
  }

  /**
   * After the program exits: deletes replaced resources and, when the program
   * succeeded, the resources it no longer declares, dependents first.
   */
  async finish(programOk: boolean): Promise<void> {
    // After any failure or cancellation no deletes run at all (deployment_executor.go, Execute:
    // performPostSteps only after the program finished without error); objects marked for
    // deletion wait, in state, for the next successful up.
    if (programOk && !this.cancelled) {
      const toDelete = new Set<ResourceState>();
      for (const r of this.current) if (r.delete || !this.registered.has(r.urn)) toDelete.add(r);
      await this.deleteAll(toDelete, (r) => (r.delete ? undefined : "delete"));
    }
    this.persist(true);
  }

  /** Deletes every resource in state (destroy). */
  async destroyAll(): Promise<void> {
    await this.deleteAll(new Set(this.current), () => "delete");
    this.persist(true);
  }

  /**
   * Deletes a set of resources as ScheduleDeletes and performPostSteps do
   * (step_generator.go, deployment_executor.go): in parallel, each once everything in
   * the set that depends on it is gone. A protected one fails its step and the others
   * carry on (deleteProtectedError never cancels); what it or a failed one depends on
   * stays. After a failed delete no new delete starts (in-flight ones finish). Only
   * deletes that were attempted become steps.
   */
  private async deleteAll(set: Set<ResourceState>, stepOp: (r: ResourceState) => StepOp | undefined): Promise<void> {
    const order = sortResources(this.current).filter((r) => set.has(r));
    const dependents = dependentsWithin(order);
    const goingUrns = new Set(order.map((r) => r.urn));
    const done = new Map<ResourceState, Promise<boolean>>();
    let stopped = false;
    const remove = (r: ResourceState): Promise<boolean> => {
      let p = done.get(r);
      if (p) return p;
      p = (async () => {
        const gone = await Promise.all((dependents.get(r) ?? []).map(remove));
        if (stopped || this.cancelRequested || gone.some((g) => !g)) return false;
        const op = stepOp(r);
        if (op && !r.type.startsWith("pulumi:providers:")) this.step(r.urn, r.type, op, []);
        if (r.protect && !r.delete) {
          this.markFailed(r.urn);
          this.diagnostics.push({ severity: "error", urn: r.urn, source: "engine", message: `unable to delete resource "${r.urn}" as it is currently marked for protection; set protect: false and run up first` });
          return false;
        }
        if (this.opts.dryRun) return true;
        try {
          // deletedWith: the object goes away with the one named there, which is deleted in this run.
          const forgetOnly = r.deletedWith !== undefined && goingUrns.has(r.deletedWith);
          await this.deleteOne(r, forgetOnly);
          return true;
        } catch (e) {
          stopped = true;
          this.markFailed(r.urn);
          this.diagnostics.push({ severity: "error", message: errorMessage(e), urn: r.urn, source: "engine" });
          return false;
        }
      })();
      done.set(r, p);
      return p;
    };
    await Promise.all(order.map(remove));
  }

  /**
   * Delete-before-replace: the resources with an input taken from the old object (its
   * property dependents, transitively) are deleted first and created again when the
   * program registers them (step_generator.go, calculateDependentReplacements), unless
   * the dependent's Diff, asked with those inputs unknown, says no replacement: then it
   * stays, and is updated when the program registers it. A `dependsOn`-only dependent
   * stays, as in the real engine.
   */
  private async deleteDependentsFirst(old: ResourceState): Promise<void> {
    const live = this.current.filter((r) => !r.delete);
    const doomed = new Set<ResourceState>([old]);
    const kept = new Set<ResourceState>();
    const prov = await this.opts.provider();
    for (let grew = true; grew; ) {
      grew = false;
      for (const r of live) {
        if (doomed.has(r) || kept.has(r) || this.registered.has(r.urn)) continue;
        const fromDoomed = Object.entries(r.propertyDependencies ?? {}).filter(([, urns]) => urns.some((u) => [...doomed].some((d) => d.urn === u)));
        if (!fromDoomed.length) continue;
        const unknown: PropertyMap = { ...r.inputs, ...Object.fromEntries(fromDoomed.map(([k]) => [k, UNKNOWN])) };
        const diff = await prov.plugin.diff(r.urn, r.id ?? "", r.outputs, unknown, r.inputs, []);
        if (diff.replaces.length) doomed.add(r);
        else kept.add(r);
        grew = true;
      }
    }
    for (const r of doomed) {
      if (r !== old && r.protect) {
        throw new StepError(`unable to replace resource "${r.urn}" as part of replacing "${old.urn}" as it is currently marked for protection`);
      }
    }
    for (const r of sortResources([...doomed]).reverse()) {
      await this.deleteOne(r);
      if (r !== old) {
        this.oldByUrn.delete(r.urn);
        this.cascaded.add(r.urn);
      }
    }
  }

  private async deleteOne(r: ResourceState, forgetOnly = false): Promise<void> {
    // External (read) resources, components, the stack and providers own no object;
    // retainOnDelete keeps the object and only forgets it.
    if (!forgetOnly && r.custom && !r.external && !r.retainOnDelete && !r.type.startsWith("pulumi:providers:")) {
      const prov = await this.opts.provider();
      await this.limit(() => this.withPending(r, "deleting", () => prov.plugin.delete(r.urn, r.id ?? "", r.outputs, r.inputs)));
    }
    this.current = this.current.filter((x) => x !== r);
    this.persist();
  }

  /**
   * Refresh (step.go, RefreshStep; deployment_executor.go, refresh): Read each managed
   * object, in parallel. No id back means it was deleted out of band (dropped from
   * state); returned inputs replace the stored ones. Drift is what the provider's Diff
   * says with the refreshed inputs and outputs as the olds and the old inputs as the
   * news (what an `up` of the unchanged program would do), so an output-only field
   * such as updatedAt is no drift; for an external resource, changed outputs.
   * Pending creates stay unless clearPendingCreates (`refresh --clear-pending-creates`);
   * other pending operations are resolved by the read.
   */
  async refreshAll(): Promise<void> {
    const kept: PendingOperation[] = [];
    for (const op of this.pending.splice(0)) {
      if (op.type === "creating" && !this.opts.clearPendingCreates) {
        kept.push(op);
        this.diagnostics.push({
          severity: "warning",
          urn: op.resource.urn,
          source: "engine",
          message: `the interrupted create of ${op.resource.urn} is kept: the object may exist in the service without being in the state. Check the service, delete or adopt it, then run \`refresh --clear-pending-creates\``,
        });
        continue;
      }
      this.diagnostics.push({
        severity: "warning",
        urn: op.resource.urn,
        source: "engine",
        message:
          op.type === "creating"
            ? `cleared the interrupted create of ${op.resource.urn}: the object may exist in the service without being in the state; check the service and delete or adopt it`
            : `cleared the interrupted ${op.type.replace(/ing$/, "e")} of ${op.resource.urn}; its state is refreshed below`,
      });
    }
    this.pending.push(...kept);
    // The stack and components read nothing, but are steps of the refresh as in the CLI's count
    // ("4 unchanged" for a stack and three resources); default providers stay hidden.
    for (const r of sortResources(this.current)) if (!r.custom) this.step(r.urn, r.type, "same", []);
    const managed = sortResources(this.current).filter((r) => r.custom && !r.type.startsWith("pulumi:providers:"));
    await Promise.all(managed.map((r) => this.limit(() => this.refreshOne(r))));
    this.persist(true);
  }

  private async refreshOne(r: ResourceState): Promise<void> {
    if (this.cancelRequested) return;
    const prov = await this.opts.provider();
    try {
      const res = await prov.plugin.read(r.urn, r.id ?? "", r.outputs, r.inputs);
      if (!res.id) {
        this.step(r.urn, r.type, "delete", []);
        this.current = this.current.filter((x) => x !== r);
        return;
      }
      // Keep secret what was secret: by input name, by option, and by old output.
      const wasSecret = Object.keys(r.outputs).filter((k) => isSecret(r.outputs[k]));
      const outputs = remarkSecrets(res.outputs, r.inputs, [...(r.additionalSecretOutputs ?? []), ...wasSecret]);
      const inputs = res.inputs ? remarkSecrets(res.inputs, r.inputs) : r.inputs;
      const outputKeys = changedKeys(r.outputs, outputs);
      let drifted = outputKeys.length > 0;
      let keys = outputKeys;
      if (!r.external) {
        const diff = await prov.plugin.diff(r.urn, res.id, outputs, r.inputs, inputs, []);
        const inputKeys = changedKeys(inputs, r.inputs);
        drifted = diff.changes === "some" || (diff.changes === "unknown" && inputKeys.length > 0);
        // The dynamic plugin names no keys: the CLI shows the inputs that moved (getDiffInfo).
        keys = diff.diffs.length ? diff.diffs : shownKeys(r.inputs, inputs);
      }
      this.step(r.urn, r.type, drifted ? "update" : "same", drifted ? keys : []);
      this.replaceLiveObject(r, { ...r, id: res.id, outputs, inputs });
    } catch (e) {
      this.failStep(r.urn, r.type, "same");
      this.diagnostics.push({ severity: "error", message: errorMessage(e), urn: r.urn, source: "engine" });
    }
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

/** For each resource, the others in the list that reference it (parent, dependency, provider). */
function dependentsWithin(resources: ResourceState[]): Map<ResourceState, ResourceState[]> {
  const byUrn = new Map<string, ResourceState[]>();
  for (const r of resources) byUrn.set(r.urn, [...(byUrn.get(r.urn) ?? []), r]);
  const out = new Map<ResourceState, ResourceState[]>();
  for (const r of resources) {
    for (const u of [r.parent, providerUrn(r.provider), ...r.dependencies]) {
      if (!u || u === r.urn) continue;
      for (const d of byUrn.get(u) ?? []) out.set(d, [...(out.get(d) ?? []), r]);
    }
  }
  return out;
}
