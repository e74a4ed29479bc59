/**
 * Which objects of a kind the resources of this run hold, per connection. One plugin
 * process serves the whole stack (every resource of a run goes through it), so this
 * registry is where "one object to one resource" is kept when creates lose their
 * answers (reconcile.ts):
 *   - `held`: ids some resource of the stack holds: answered to a create, adopted, or
 *     named by the engine in a diff, read, update or delete (until the delete is
 *     done). Never another's candidate.
 *   - creates in flight: an object a create made whose answer has not come back yet
 *     would look unheld in a listing, so a look waits for the creates in flight when
 *     its listing came back to settle before it judges the listing.
 *   - lost creates still looking, by fingerprint (kind + body): look-alike resources
 *     whose answers were lost share the candidates that match them, one each; more
 *     candidates than lost look-alikes is ambiguous (provider/README.md, invariant 2).
 *   - one look at a time per kind (`exclusive`): two lost creates never take the same
 *     candidate.
 * Plugin-process state, never serialized; it holds ids and keyed hashes only.
 */
import type { SvcClient } from "../client";
import { createJournal, JOURNAL_SCOPE } from "./create-journal";
import type { Props } from "./fields";
import { RESOURCE_KEY } from "./internal-keys";

export class KindClaims {
  readonly held = new Set<string>();
  /**
   * A singleton (a setting) taken over in this process: its id → the earlier value the
   * take-over found (canonical JSON), or `journal:<ref>` for one from the create journal.
   * A rename without an alias, or a replacement that keeps the setting's scope, creates
   * the new resource before the old one's delete: that delete must not put back what the
   * old one found, under the resource that now manages the setting (its note says what
   * is lost).
   */
  readonly takenOver = new Map<string, string>();
  /**
   * Ids a create of this run adopted (`adoptId`, `adoptExisting`). The engine deletes a
   * removed resource after the creates of its run, so a delete of one of them is the
   * resource that held the object before (a rename whose new resource adopted it):
   * it must not delete it. (An engine never deletes in the run that created; the
   * adopter's own delete comes in a later run, another plugin process.)
   */
  readonly adopted = new Set<string>();
  /**
   * Ids a create of this run adopted as an earlier run's unsaved answer (reconcile.ts
   * `adoptUnsavedAnswer`). The engine names an id again in this run only for another
   * resource that holds it: then two resources would hold one object.
   */
  readonly adoptedUnsaved = new Set<string>();
  private readonly inFlight = new Set<Promise<void>>();
  private readonly lost = new Map<string, number>();
  private turn: Promise<unknown> = Promise.resolve();

  hold(id: string): void {
    this.held.add(id);
  }

  /**
   * The object is deleted. Some ids are names the service gives again (an event type's
   * `workspace/<name>`): after a delete-before-replace, the replacement's object has the
   * old id, and a lost create must be able to find it.
   */
  release(id: string): void {
    this.held.delete(id);
  }

  /** A create is being sent; call the returned function once it is answered or lost. */
  sending(): () => void {
    let done!: () => void;
    const p = new Promise<void>((resolve) => (done = resolve));
    this.inFlight.add(p);
    return () => {
      this.inFlight.delete(p);
      done();
    };
  }

  /** Wait until every create in flight now is answered (its id held) or lost (looking). */
  async settled(): Promise<void> {
    await Promise.all([...this.inFlight]);
  }

  /** A lost create with this fingerprint is looking for its object; call the returned function when it has decided. */
  looking(fingerprint: string): () => void {
    this.lost.set(fingerprint, this.lostCount(fingerprint) + 1);
    let stopped = false;
    return () => {
      if (stopped) return;
      stopped = true;
      this.lost.set(fingerprint, this.lostCount(fingerprint) - 1);
    };
  }

  lostCount(fingerprint: string): number {
    return this.lost.get(fingerprint) ?? 0;
  }

  /** Run `fn` alone among this kind's looks. */
  exclusive<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.turn.then(fn, fn);
    this.turn = run.catch(() => undefined);
    return run;
  }
}

let registry = new WeakMap<SvcClient, Map<string, KindClaims>>();

/** Forget every claim, as a new plugin process would (tests that play several operations in one process). */
export function forgetClaims(): void {
  registry = new WeakMap();
}

/** The claims of a kind on one connection (a client is one address and key). */
export function claimsOf(client: SvcClient, kind: string): KindClaims {
  let byKind = registry.get(client);
  if (!byKind) registry.set(client, (byKind = new Map()));
  let claims = byKind.get(kind);
  if (!claims) byKind.set(kind, (claims = new KindClaims()));
  return claims;
}

/**
 * The engine named this id for a resource of the stack (diff, read, update, delete): it
 * is held, and the journal's unsaved answer with it, if any, was saved after all.
 */
export function holdId(client: SvcClient, kind: string, id: string, props?: Props): void {
  if (!id) return;
  const claims = claimsOf(client, kind);
  if (claims.adoptedUnsaved.has(id)) {
    throw new Error(
      `The object ${id} is held by this resource, and a create of this run adopted it too, as the object an earlier killed run made and may not have saved (create journal). ` +
        `Two resources now hold it: remove the other one from the state (\`pulumi state delete <its URN>\`, it is the one created in this run with id ${id}), then run again; its next create makes its own object.`,
    );
  }
  claims.hold(id);
  journalNamed(client, kind, id, props);
}

/**
 * The engine named this id for a resource (`props`: its inputs or outputs): the journal's
 * unsaved answer with it was saved after all, and so was a setting's value found before,
 * when it was that resource's (its inputs say which: `holderIdentity`; outputs do not).
 */
export function journalNamed(client: SvcClient, kind: string, id: string, props?: Props): void {
  createJournal()?.named(kind, client.fingerprint(JOURNAL_SCOPE), id, holderIdentity(client, kind, props));
}

/**
 * Which resource of which stack a setting's take-over is for, as the journal keeps it
 * with the value found before: an HMAC (under the key) of the kind and the SDK's
 * RESOURCE_KEY input; undefined when the props do not say (outputs).
 */
export function holderIdentity(client: SvcClient, kind: string, props: Props | undefined): string | undefined {
  const resource = props?.[RESOURCE_KEY];
  return typeof resource === "string" ? client.fingerprint(`${kind}\nsetting holder\n${resource}`) : undefined;
}
