/**
 * The provider driven in-process in the real engine's call order, as pulumi-go-provider's
 * `integration.LifeCycleTest` drives a provider: the inner loop's stand-in for a stack run.
 * Not an engine: one program's resources, no dependencies between them, no options, no
 * policy packs, each step after the one before (the engine runs independent steps at once,
 * `--parallel`); what only the engine can judge (the order of a whole deployment's steps,
 * pending operations, import, secrets in the CLI's state) stays with the real-CLI suites.
 *
 * The calls, as pkg/resource/deploy/step_generator.go makes them for a provider that
 * takes no secrets and does not support preview (the dynamic-provider plugin):
 *
 * - new resource: Check(olds = {}, news), then Create (up) or nothing (preview);
 * - preview: the steps an up would take, with no Create, Update or Delete call; an up
 *   previews first, as `pulumi up` does unless told `--skip-preview`;
 * - existing one: Check(olds = old inputs, news), Diff(id, olds = old outputs, news = checked);
 *   no changes: same; replaces: a second Check(olds = {}, news) ("recompute the default
 *   values"), then Delete then Create when Diff says deleteBeforeReplace, else Create now and
 *   Delete the old object after every registration (create-before-delete); else Update;
 * - a resource no longer declared: Delete, after every registration, newest first;
 * - refresh: Read(id, props = outputs) per resource; no id drops it, else
 *   Diff(olds = read outputs, news = old inputs) says whether it drifted;
 * - destroy: Delete every resource, newest first;
 * - the first failed call fails the operation: nothing is deleted after it.
 *
 * The props each call gets are what the SDK class registers (the class itself, under
 * Pulumi's mocks), secrets unwrapped, as the plugin receives them; state keeps them
 * marked secret, as the engine does. Each operation (preview, up, refresh, destroy) is a
 * new plugin process's worth of provider state (`newOperation`).
 */
import * as pulumi from "@pulumi/pulumi";
import { newOperation } from "./operation";
import { providerFor } from "../../provider";
import type { DynamicProvider } from "../../provider/engine/resource-provider";
import { DEFINITIONS } from "../../provider/registry";
import * as svc from "../../sdk";
import type { ResourceKind } from "../../sdk/tokens";
import { configure } from "../provider/support";
import { remarkSecrets, shownKeys, unwrapMap, type PropertyMap } from "./values";

export type Props = Record<string, unknown>;

/** A resource of the program: its SDK class's arguments (values may be `pulumi.secret(...)`). */
export interface DeclaredResource {
  kind: ResourceKind;
  name: string;
  args: Props;
}

export interface DriverResource {
  kind: ResourceKind;
  name: string;
  id: string;
  /** As the engine stores them: secret inputs (and the outputs named as they are) marked secret. */
  inputs: PropertyMap;
  outputs: PropertyMap;
}

export interface DriverStep {
  kind: ResourceKind;
  name: string;
  op: "create" | "update" | "replace" | "delete" | "same";
  /** The keys the CLI would show: inputs that moved, secrets masked (see values.ts shownKeys). */
  diffs: string[];
  replaces?: string[];
  deleteBeforeReplace?: boolean;
}

export interface OperationResult {
  ok: boolean;
  steps: DriverStep[];
  /** The failed call's message (the first failure ends the operation). */
  error?: string;
}

type SdkClass = new (name: string, args: Props, opts?: pulumi.CustomResourceOptions) => pulumi.CustomResource;

/** The props each resource's SDK class registers, by name, captured with Pulumi's mocks. */
class SdkProps {
  private readonly waiting = new Map<string, (props: PropertyMap) => void>();
  private ready: Promise<void> | undefined;

  constructor(
    private readonly project: string,
    private readonly stack: string,
  ) {}

  async of(declared: DeclaredResource[]): Promise<Map<string, PropertyMap>> {
    this.ready ??= pulumi.runtime.setMocks(
      {
        newResource: (args) => {
          this.waiting.get(args.name)?.(args.inputs as PropertyMap);
          return { id: `${args.name}-mock`, state: {} };
        },
        call: () => ({}),
      },
      this.project,
      this.stack,
      false,
    );
    await this.ready;
    const out = new Map<string, PropertyMap>();
    await Promise.all(
      declared.map(
        (d) =>
          new Promise<void>((resolve) => {
            this.waiting.set(d.name, (props) => {
              out.set(d.name, props);
              resolve();
            });
            const [product, type] = d.kind.split(":") as [string, string];
            const cls = (svc as unknown as Record<string, Record<string, SdkClass>>)[product]![type]!;
            new cls(d.name, d.args);
          }),
      ),
    );
    return out;
  }
}


const messageOf = (err: unknown) => (err instanceof Error ? err.message : String(err));

/** One stack's state, changed by the operations the engine would run on it. */
export class LifecycleDriver {
  private state: DriverResource[] = [];
  private readonly sdk: SdkProps;

  /** `config`: the stack's provider config (`svc:webhooksUrl`, ...), secrets in plaintext as the plugin gets them. */
  constructor(
    private readonly config: Record<string, string>,
    project = "lifecycle",
    stack = "driver",
  ) {
    this.sdk = new SdkProps(project, stack);
  }

  resources(): DriverResource[] {
    return this.state.map((r) => ({ ...r }));
  }

  preview(declared: DeclaredResource[]): Promise<OperationResult> {
    return this.deploy(declared, false);
  }

  /** As `pulumi up` runs (without `--skip-preview`): a preview first, then the steps; a failed preview applies nothing. */
  async up(declared: DeclaredResource[]): Promise<OperationResult> {
    const preview = await this.deploy(declared, false);
    return preview.ok ? this.deploy(declared, true) : preview;
  }

  async refresh(): Promise<OperationResult> {
    const steps: DriverStep[] = [];
    return this.operation(steps, async () => {
      for (const r of [...this.state]) {
        const p = providerFor(r.kind);
        const read = await p.read!(r.id, unwrapMap(r.outputs));
        if (!read.id) {
          steps.push({ kind: r.kind, name: r.name, op: "delete", diffs: [] });
          this.state = this.state.filter((x) => x !== r);
          continue;
        }
        const outputs = remarkSecrets(read.props as PropertyMap, r.inputs);
        const inputs = read.inputs ? remarkSecrets(read.inputs as PropertyMap, r.inputs) : r.inputs;
        const diff = await p.diff!(read.id, unwrapMap(outputs), unwrapMap(r.inputs));
        steps.push({ kind: r.kind, name: r.name, op: diff.changes ? "update" : "same", diffs: diff.changes ? shownKeys(r.inputs, inputs) : [] });
        this.replace(r, { ...r, id: read.id, inputs, outputs });
      }
    });
  }

  async destroy(): Promise<OperationResult> {
    const steps: DriverStep[] = [];
    return this.operation(steps, async () => {
      for (const r of [...this.state].reverse()) await this.delete(r, steps);
    });
  }

  /** Preview (no create, update or delete) or up of the declared resources. */
  private async deploy(declared: DeclaredResource[], apply: boolean): Promise<OperationResult> {
    const steps: DriverStep[] = [];
    const props = await this.sdk.of(declared);
    return this.operation(steps, async () => {
      const replaced: DriverResource[] = [];
      for (const d of declared) {
        const news = props.get(d.name)!;
        const old = this.state.find((r) => r.name === d.name);
        const p = providerFor(d.kind);
        const checked = await this.check(p, old?.inputs ?? {}, news);
        if (!old) {
          steps.push({ kind: d.kind, name: d.name, op: "create", diffs: [] });
          if (apply) this.state.push(await this.create(d, checked));
          continue;
        }
        const diff = await p.diff!(old.id, unwrapMap(old.outputs), unwrapMap(checked));
        const diffs = shownKeys(old.inputs, checked);
        if (!diff.changes) {
          steps.push({ kind: d.kind, name: d.name, op: "same", diffs: [] });
          if (apply) this.replace(old, { ...old, inputs: checked });
          continue;
        }
        const replaces = diff.replaces ?? [];
        if (replaces.length === 0) {
          steps.push({ kind: d.kind, name: d.name, op: "update", diffs });
          if (!apply) continue;
          const res = await p.update!(old.id, unwrapMap(old.outputs), unwrapMap(checked));
          this.replace(old, { ...old, inputs: checked, outputs: remarkSecrets(res.outs as PropertyMap, checked) });
          continue;
        }
        const deleteFirst = diff.deleteBeforeReplace === true;
        steps.push({ kind: d.kind, name: d.name, op: "replace", diffs, replaces, deleteBeforeReplace: deleteFirst });
        const rechecked = await this.check(p, {}, news);
        if (!apply) continue;
        if (deleteFirst) await p.delete!(old.id, unwrapMap(old.outputs));
        else replaced.push(old);
        this.replace(old, await this.create(d, rechecked));
      }
      const gone = this.state.filter((r) => !declared.some((d) => d.name === r.name)).reverse();
      if (!apply) {
        for (const r of gone) steps.push({ kind: r.kind, name: r.name, op: "delete", diffs: [] });
        return;
      }
      for (const r of [...replaced, ...gone]) await this.delete(r, steps, replaced.includes(r));
    });
  }

  /** One engine operation: fresh provider state, configured; the first failure ends it. */
  private async operation(steps: DriverStep[], body: () => Promise<void>): Promise<OperationResult> {
    newOperation();
    // One configure reaches every kind: the plugin's config is process-wide (config.ts).
    await configure(providerFor(Object.keys(DEFINITIONS)[0] as ResourceKind), this.config);
    try {
      await body();
      return { ok: true, steps };
    } catch (err) {
      return { ok: false, steps, error: messageOf(err) };
    }
  }

  private async check(p: DynamicProvider, olds: PropertyMap, news: PropertyMap): Promise<PropertyMap> {
    const res = await p.check!(unwrapMap(olds), unwrapMap(news));
    const failures = res.failures ?? [];
    if (failures.length > 0) throw new Error(`check failed: ${failures.map((f) => `${f.property}: ${f.reason}`).join("; ")}`);
    return remarkSecrets(res.inputs as PropertyMap, news);
  }

  private async create(d: DeclaredResource, inputs: PropertyMap): Promise<DriverResource> {
    const res = await providerFor(d.kind).create(unwrapMap(inputs));
    return { kind: d.kind, name: d.name, id: res.id, inputs, outputs: remarkSecrets(res.outs as PropertyMap, inputs) };
  }

  /** Delete a resource's object; a replaced one's entry is already its replacement's. */
  private async delete(r: DriverResource, steps: DriverStep[], replaced = false): Promise<void> {
    await providerFor(r.kind).delete!(r.id, unwrapMap(r.outputs));
    if (replaced) return;
    steps.push({ kind: r.kind, name: r.name, op: "delete", diffs: [] });
    this.state = this.state.filter((x) => x !== r);
  }

  private replace(old: DriverResource, next: DriverResource): void {
    this.state[this.state.indexOf(old)] = next;
  }
}
