/**
 * Runs a stack through the provider's own operations, in this process, the way the
 * engine does (check → diff → create / update / replace, read, delete) with a bounded
 * concurrency like the engine's `--parallel`. Used by the benchmark and the soak.
 */
import type * as dynamic from "@pulumi/pulumi/dynamic";
import { providers } from "../provider";
import type { Declared, Inputs } from "./stack";

export interface Held {
  kind: string;
  id: string;
  inputs: Inputs;
  outputs: Inputs;
}

export interface PhaseResult {
  errors: { name: string; message: string }[];
  ops: Record<string, number>;
}

/** Run `f` over `items` with at most `limit` at once. */
export async function pool<T>(items: T[], limit: number, f: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await f(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}

/** The resource providers by kind: the source's by default; the benchmark passes the compiled package's. */
export type ProviderRegistry = Partial<Record<string, dynamic.ResourceProvider>>;

export function configureAll(values: Record<string, string>, registry: ProviderRegistry = providers): Promise<void[]> {
  const config = { get: (k: string) => values[k], require: (k: string) => values[k]! };
  return Promise.all(Object.values(registry).map((p) => p!.configure!({ config } as never)));
}

export class StackRunner {
  readonly state = new Map<string, Held>();

  constructor(
    readonly parallel = 16,
    private readonly registry: ProviderRegistry = providers,
  ) {}

  private providerOf(kind: string): dynamic.ResourceProvider {
    const p = this.registry[kind];
    if (!p) throw new Error(`no provider for ${kind}`);
    return p;
  }

  private async each(items: Declared[] | [string, Held][], f: (item: never) => Promise<string>): Promise<PhaseResult> {
    const result: PhaseResult = { errors: [], ops: {} };
    await pool(items as unknown[], this.parallel, async (item) => {
      try {
        const op = await f(item as never);
        result.ops[op] = (result.ops[op] ?? 0) + 1;
      } catch (e) {
        result.errors.push({ name: Array.isArray(item) ? String(item[0]) : (item as Declared).name, message: (e as Error).message });
      }
    });
    return result;
  }

  /** check, as the engine does first; failures fail the resource. */
  private async checked(d: Declared): Promise<{ p: dynamic.ResourceProvider; held: Held | undefined; inputs: Inputs }> {
    const p = this.providerOf(d.kind);
    const held = this.state.get(d.name);
    const checked = await p.check!(held?.inputs ?? {}, d.inputs);
    if (checked.failures?.length) throw new Error(checked.failures.map((f) => `${f.property}: ${f.reason}`).join("; "));
    return { p, held, inputs: checked.inputs };
  }

  /** check and diff only: what `pulumi preview` asks of the provider. */
  preview(decls: Declared[]): Promise<PhaseResult> {
    return this.each(decls, async (d: Declared) => {
      const { p, held, inputs } = await this.checked(d);
      if (!held) return "create";
      const diff = await p.diff!(held.id, held.outputs, inputs);
      return diff.replaces?.length ? "replace" : diff.changes ? "update" : "same";
    });
  }

  up(decls: Declared[]): Promise<PhaseResult> {
    return this.each(decls, async (d: Declared) => {
      const { p, held, inputs } = await this.checked(d);
      if (!held) {
        const res = await p.create(inputs);
        this.state.set(d.name, { kind: d.kind, id: res.id, inputs, outputs: res.outs ?? {} });
        return "create";
      }
      const diff = await p.diff!(held.id, held.outputs, inputs);
      if (diff.replaces?.length) {
        if (diff.deleteBeforeReplace) await p.delete!(held.id, held.outputs);
        this.state.delete(d.name);
        const res = await p.create(inputs);
        if (!diff.deleteBeforeReplace) await p.delete!(held.id, held.outputs);
        this.state.set(d.name, { kind: d.kind, id: res.id, inputs, outputs: res.outs ?? {} });
        return "replace";
      }
      if (!diff.changes) {
        held.inputs = inputs;
        return "same";
      }
      const res = await p.update!(held.id, held.outputs, inputs);
      this.state.set(d.name, { ...held, inputs, outputs: res.outs ?? {} });
      return "update";
    });
  }

  /** read every resource, in state order (the stand-in's refresh is sequential; pass parallel 1 to match). */
  refresh(): Promise<PhaseResult> {
    return this.each([...this.state.entries()], async ([name, held]: [string, Held]) => {
      const res = await this.providerOf(held.kind).read!(held.id, held.outputs);
      if (!res.id) {
        this.state.delete(name);
        return "gone";
      }
      held.outputs = res.props ?? held.outputs;
      return "read";
    });
  }

  destroy(): Promise<PhaseResult> {
    return this.each([...this.state.entries()], async ([name, held]: [string, Held]) => {
      await this.providerOf(held.kind).delete!(held.id, held.outputs);
      this.state.delete(name);
      return "delete";
    });
  }
}
