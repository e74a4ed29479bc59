/**
 * Which objects of a kind the resources of this operation hold, per connection. One
 * plugin process serves the whole stack in one operation, so this registry is where
 * "one object to one resource" is kept within it:
 *   - `held`: ids some resource of the stack holds: answered to a create, adopted, or
 *     named by the engine in a diff, read, update or delete (until the delete is done).
 *     Never named as a lost create's candidate.
 *   - creates in flight: an object a create made whose answer has not come back yet
 *     would look unheld in a listing, so a look at unmarked candidates waits for the
 *     creates in flight when its listing came back (reconcile.ts).
 *   - `takenOver`, `adopted`, `openQuestions`: below.
 * Plugin-process state, never serialized; it holds ids only. Nothing here outlives the
 * operation: what must be remembered across runs is in the state (owner.ts).
 */
import type { SvcClient } from "../client";
import type { Props } from "./fields";

export class KindClaims {
  readonly held = new Set<string>();
  /**
   * A singleton (a setting) taken over in this process: its id → the earlier value the
   * take-over found (canonical JSON).
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
   * A resource whose state entry is an open question (a lost create's unproven candidates,
   * kept in the state by an earlier run: reconcile.ts `UnresolvedCreate`), by its
   * identity (RESOURCE_KEY): its Diff answers replace and records the question here; the
   * replacement's create, which is told no old outputs, takes it up.
   */
  readonly openQuestions = new Map<string, Props>();
  private readonly inFlight = new Set<Promise<void>>();

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

  /** Wait until every create in flight now is answered (its id held) or lost. */
  async settled(): Promise<void> {
    await Promise.all([...this.inFlight]);
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

/** The engine named this id for a resource of the stack (diff, read, update, delete): it is held. */
export function holdId(client: SvcClient, kind: string, id: string): void {
  if (id) claimsOf(client, kind).hold(id);
}
