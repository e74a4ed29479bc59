/**
 * What one engine operation (engine-operation.ts) knows of a kind's objects on one
 * connection: there "one object to one resource" is kept within the operation (README,
 * "Ownership", the keepers' row). Never serialized; what must be remembered across runs
 * is in the state.
 */
import { canonicalJson } from "../../rules/event-schema";

/** The reads of a kind on one connection in one operation (list-cache.ts). */
interface ReadBurst {
  recent: number[];
  listing?: { writes: number; at: number; lastUsed: number; items: Promise<Map<string, Record<string, unknown>>> };
  unlistable?: boolean;
}

/** A resource of the program that keeps an object: its Diff named the object's id and did not replace it. */
interface Keeper {
  /** Its stored outputs (canonical JSON): the state entry the Diff was about. */
  olds: string;
  /** Its inputs declare adopting this very object (`adoptId` of it, `adoptExisting` of its name). */
  adopts: boolean;
  /** Its name in the program, when the kind is told it (`resourceName`). */
  name?: string;
}

export const named = (name: string | undefined) => (name === undefined ? "another resource of this stack" : `the resource \`${name}\``);

export class KindClaims {
  /**
   * Ids some resource of the stack holds: answered to a create, adopted, or named by the
   * engine in a diff, read, update or delete (until the delete is done). Never named as
   * a lost create's candidate.
   */
  readonly held = new Set<string>();
  /**
   * A singleton (a setting) taken over in this operation: its id → the earlier value the
   * take-over found (canonical JSON).
   * A rename without an alias, or a replacement that keeps the setting's scope, creates
   * the new resource before the old one's delete: that delete must not put back what the
   * old one found, under the resource that now manages the setting (its note says what
   * is lost).
   */
  readonly takenOver = new Map<string, string>();
  /**
   * A resource whose state entry is an open question (a lost create's unproven candidates,
   * kept in the state by an earlier run: reconcile.ts `UnresolvedCreate`), by its
   * identity (RESOURCE_KEY): its Diff answers replace and records the question here; the
   * replacement's create, which is told no old outputs, takes it up.
   */
  readonly openQuestions = new Map<string, Record<string, unknown>>();
  /**
   * Objects a Diff of this operation replaces. The engine deletes a replaced object in
   * the operation whose Diff replaced it: after creating the new one, or before with
   * `deleteBeforeReplace` (step_generator.go), so that delete knows it is the old object
   * of a replacement, declared by no program. A delete left pending by an earlier run
   * comes with no Diff: not known here.
   */
  readonly replaced = new Set<string>();
  /** Objects a create of this operation made, by id: the name of the resource that made them (`adopting`). */
  readonly made = new Map<string, string | undefined>();
  /** A burst of reads' listing (list-cache.ts). */
  readonly reads: ReadBurst = { recent: [] };
  private readonly keepers = new Map<string, Keeper[]>();
  private readonly adopters = new Map<string, Set<string | undefined>>();

  hold(id: string): void {
    if (id) this.held.add(id);
  }

  /**
   * The object is deleted. Some ids are names the service gives again (an event type's
   * `workspace/<name>`): after a delete-before-replace, the replacement's object has the
   * old id, and a lost create must be able to find it.
   */
  release(id: string): void {
    this.held.delete(id);
  }

  /*
   * The keepers. What the real engine guarantees (pulumi/pulumi pkg/resource/deploy,
   * step_generator.go and step.go, read at v3.274.1):
   * - A Diff of ours that names no replacement is followed by a replacement of that
   *   resource in the same operation only when its entry is pending replacement (the
   *   object was deleted already) or carries init errors its `replaceOnChanges` covers;
   *   the engine's other replacements (`--replace`, `replaceWith`, `deletedWith`, a
   *   trigger, a changed provider) call no Diff. So the delete of a replacement after such
   *   a Diff carries the state entry that Diff had: the same outputs.
   * - Not every Diff is the program's: a refresh (`pulumi refresh`, `up --refresh`) calls
   *   Read then Diff for each state entry, the removed ones included, with the stored
   *   inputs as news, and a delete-first replacement calls Diff for the entries depending
   *   on it (calculateDependentReplacements); neither follows a Check of that resource,
   *   while the step generator's Diff of a program resource always does, with what Check
   *   returned as news. So a Diff counts only when a Check of this operation declared its
   *   resource's name (`resourceName`, in the news); the two settings kinds have none:
   *   every Diff of theirs counts (the caller says which: `counts`), so a removed setting
   *   refreshed by `up --refresh` is taken as kept, and its delete puts nothing back, with a note.
   * - `destroy` calls no Diff.
   * So a delete whose outputs are not those of the Diff that kept its id is another state
   * entry: a resource no longer in the program that held the object too (a rename adopting
   * its object over two runs with `--target`); deleting it would take the object from the
   * resource that keeps it. The owner marks say so for a marked object; the keepers also
   * hold for unmarked objects and settings, and let the preview fail an adoption of a kept one.
   */

  /**
   * A Diff kept `id`: counted when its resource is the program's (`counts`: checked in
   * this operation, see above). The adopter it clashes with, when another resource of the
   * program declared adopting that object while this one does not: two resources would hold it.
   * A create that adopted `id` (`adoptId`, `adoptExisting`) keeps it too: the engine
   * deletes a removed resource after the creates of its run, so a delete of that object
   * is the resource that held it before (a rename whose new resource adopted it). (An
   * engine never deletes in the run that created; the adopter's own delete comes in a
   * later run, another plugin process.)
   */
  kept(id: string, keeper: { olds: unknown; adopts: boolean; name?: string }, counts: boolean): { adopter: string | undefined } | undefined {
    if (!counts) return undefined;
    const list = this.keepers.get(id) ?? [];
    list.push({ olds: canonicalJson(keeper.olds), adopts: keeper.adopts, name: keeper.name });
    this.keepers.set(id, list);
    const declared = this.adopters.get(id);
    return !keeper.adopts && declared !== undefined ? { adopter: [...declared][0] } : undefined;
  }

  /**
   * A Check declares adopting `id`. The clash, if any: a resource of the program keeps
   * that object without adopting it, or another one (told apart by name) adopts it too.
   */
  adopting(id: string, name: string | undefined): string | undefined {
    const holder = (this.keepers.get(id) ?? []).find((k) => !k.adopts);
    if (holder) return `it is held by ${named(holder.name)}, which the program still declares`;
    if (this.made.has(id) && this.made.get(id) !== name) return `${named(this.made.get(id))} made it in this run`;
    const declared = this.adopters.get(id) ?? new Set();
    const twin = name === undefined ? undefined : [...declared].find((n) => n !== undefined && n !== name);
    if (twin !== undefined) return `${named(twin)} declares adopting it too`;
    this.adopters.set(id, declared.add(name));
    return undefined;
  }

  /**
   * The delete of `id` with these stored outputs: the resource of the program that keeps
   * the object, when it is another state entry (other outputs), or one that adopts it
   * (its own replacement, if any, adopts the object again).
   */
  keptFrom(id: string, outputs: unknown): Keeper | undefined {
    const olds = canonicalJson(outputs);
    return (this.keepers.get(id) ?? []).find((k) => k.adopts || k.olds !== olds);
  }
}
