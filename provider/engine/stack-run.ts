/**
 * What the checks learn about the rest of the stack while the engine runs it: the one
 * place where a check of one resource depends on the other resources of the run.
 *
 * - `planAllocation`: new inboxes and endpoints counted against the plan's allocation
 *   (inbox.ts, endpoint.ts);
 * - `claimKeys`: which resource of the program declares which unique object: two
 *   EventTypes of one name in one scope (event-type.ts), two QuotaRequests asking for one
 *   quota (quota-request.ts), two QuotaLimits setting one (quota-limits.ts), each resource
 *   named by its name in the program;
 * - `openObjects`: which quota requests a check's listing showed open, so the Diff of one
 *   decided since the last refresh replaces it (quota-request.ts);
 * - `replacedObjects`: objects a Diff replaces, whose delete is a replacement's (endpoint.ts);
 * - `replacedDeleteFirst`: event types that Diff replaces keeping their name (event-type.ts);
 * - `objectKeepers`: which resource of the program keeps which object or setting (a Diff
 *   of a resource checked in this operation that does not replace it) and which declares
 *   adopting it (a Check with `adoptId`, `adoptExisting`):
 *   one object, one resource, across runs (operations.ts).
 *
 * Why this is sound under the real engine (pulumi/pulumi, pkg/resource/deploy,
 * step_generator.go, read for v3.274):
 * - One dynamic-provider plugin process serves one operation of one stack: `pulumi up`'s
 *   preview and its update are two deployments, each starting its plugins afresh, so
 *   nothing here outlives the operation that learnt it, and each operation learns it all.
 * - The step generator calls Check one resource at a time: once for a new resource (and
 *   for a `--replace` target, with no old inputs and no Diff), once with the old inputs
 *   for an existing one, and, when Diff says replace, once more with NO old inputs
 *   ("recompute the default values"), always after that Diff has answered (under
 *   PULUMI_PARALLEL_DIFF too: the second Check waits for the diff's result).
 * So each fact below is either idempotent (learning it twice is learning it once), or
 * counts a call the engine makes once per resource and operation (a new inbox's Check).
 * Which of two clashing resources a check names may depend on the order in which the
 * program registers them; whether the run fails does not.
 *
 * Counts belong to an account, what the service counts in: a workspace for inboxes, a
 * project for quotas, whatever connection (profile, key) a resource uses to reach it.
 * Each caller names its account from what the service says (inbox.ts: the workspace's
 * newest audit entry; quota-limits.ts: the key's project), or, when the service says
 * nothing, the connection (`connectionId`: address and key), so two different keys of
 * an unknown workspace count apart, as before: what is not known to be one account is
 * never counted as one (that would fail a preview the service accepts).
 *
 * Other plugin-process state, judged: the read cache of the connections
 * (resource-provider.ts, read-only answers, once per operation), claims.ts (ids the
 * engine named), list-cache.ts (reads in a burst, dropped on any write), and the note that remote checks are
 * skipped (once per kind: a message, no result) depend on no call count either.
 */
import { z } from "zod";
import { canonicalJson } from "../../rules/event-schema";
import { countedRegion } from "../../rules/quota";
import type { SvcClient } from "../client";
import type { FieldSpec } from "./fields";

const forgetters: (() => void)[] = [];

/** Forget everything learnt, as a new plugin process would (tests that play several operations in one process). */
export function forgetStackRun(): void {
  for (const forget of forgetters) forget();
}

/** A map per connection, forgotten with the rest. */
function perClient<K, V>(): (client: SvcClient) => Map<K, V> {
  let byClient = new WeakMap<SvcClient, Map<K, V>>();
  forgetters.push(() => (byClient = new WeakMap()));
  return (client) => {
    let m = byClient.get(client);
    if (!m) byClient.set(client, (m = new Map()));
    return m;
  };
}

/** The new objects counted so far, per account and allocation metric, over the first usage read of the account. */
const allocations = new Map<string, { live: number; planned: number }>();
forgetters.push(() => allocations.clear());

/**
 * A new object's allocation (an inbox's `inboxes` or `http_bins`, an endpoint's
 * `endpoints`) in `account` (the workspace; see the header): taken when the live objects
 * plus the new ones counted before it stay under `limit`; otherwise the number live or
 * planned, for the message. Only a Check that creates counts (new, a replacement's second
 * Check, a `--replace`): the engine makes it once per object. `live` is the usage read of
 * the caller's connection; the account keeps the first one given, which was read before
 * any create of this run in it (each create's Check comes first), while a later
 * connection's read may include objects counted already.
 */
export function planAllocation(account: string, metric: string, live: number, limit: number | null): { taken: true } | { taken: false; current: number } {
  const key = JSON.stringify([account, metric]);
  const counted = allocations.get(key) ?? { live, planned: 0 };
  allocations.set(key, counted);
  const current = counted.live + counted.planned;
  if (limit !== null && current >= limit) return { taken: false, current };
  counted.planned++;
  return { taken: true };
}

const claims = new Map<string, string>();
forgetters.push(() => claims.clear());

/**
 * One program resource per unique key: the first other resource of the program that
 * declared one of `keys` (an event type's scope and name, a quota in its account and
 * region); else the keys are recorded as claimed by `resource` (its name in the program).
 * Two resources of one program are both checked before either is applied, so the
 * service cannot show the clash yet. Idempotent: the same resource claiming again is no
 * clash.
 */
export function claimKeys(resource: string, keys: string[]): { key: string; by: string } | undefined {
  for (const key of keys) {
    const by = claims.get(key);
    if (by !== undefined && by !== resource) return { key, by };
  }
  for (const key of keys) claims.set(key, resource);
  return undefined;
}

/** `claimKeys` for quotas: each of `names` in `scope` (kind, project, service: the project as an account, see the header) and the region the quota is counted in (none for a project-wide one). */
export function claimQuotas(resource: string, scope: unknown[], region: unknown, names: string[]): { name: string; by: string } | undefined {
  const keyOf = (name: string) => JSON.stringify([...scope, countedRegion(name, region), name]);
  const clash = claimKeys(resource, names.map(keyOf));
  return clash && { name: names.find((n) => keyOf(n) === clash.key)!, by: clash.by };
}

const listedOpen = new Map<string, Set<string>>();
forgetters.push(() => listedOpen.clear());

/**
 * Which objects of a listing this operation's checks read are still open (quota requests
 * pending or needing updates, per project listed): the Diff that follows the Check of a
 * resource sees its object decided since the state last saw it, and previews the
 * replacement the update will be, instead of an edit the service will refuse.
 */
export const openObjects = {
  listed: (scope: string, ids: string[]) => void listedOpen.set(scope, new Set(ids)),
  /** Undefined when no check of this operation listed the scope. */
  isOpen: (scope: string, id: string) => listedOpen.get(scope)?.has(id),
};

const deleteFirst = new Set<string>();
forgetters.push(() => deleteFirst.clear());

/**
 * Unique keys (JSON of the kind and the key's values) that a Diff of this operation
 * replaces keeping the key, deleting the old object first. The engine's second Check of
 * that replacement has no old inputs and finds the old object: recorded here by the
 * Diff (the decision itself), it is known to be the stack's own, however often Check
 * is called. Limit: another new resource of the program declaring the same key, checked
 * after that Diff, passes preview too and its create is refused (explained).
 */
export const replacedDeleteFirst = {
  add: (key: string) => void deleteFirst.add(key),
  has: (key: string) => deleteFirst.has(key),
};

const replaced = perClient<string, true>();

/**
 * Objects (kind and id, per connection) that a Diff of this operation replaces. The
 * engine deletes a replaced object in the operation whose Diff replaced it: after
 * creating the new one, or before with `deleteBeforeReplace` (step_generator.go), so
 * that delete knows it is the old object of a replacement, declared by no program. A
 * delete left pending by an earlier run comes with no Diff: not known here.
 */
export const replacedObjects = {
  add: (client: SvcClient, kind: string, id: string) => void replaced(client).set(objectKey(kind, id), true),
  has: (client: SvcClient, kind: string, id: string) => replaced(client).has(objectKey(kind, id)),
};

/** A resource of the program that keeps an object: its Diff named the object's id and did not replace it. */
interface Keeper {
  /** Its stored outputs (canonical JSON): the state entry the Diff was about. */
  olds: string;
  /** Its inputs declare adopting this very object (`adoptId` of it, `adoptExisting` of its name). */
  adopts: boolean;
  /** Its name in the program, when the kind is told it (`resourceName`). */
  name?: string;
}

const keepers = perClient<string, Keeper[]>();
const adopters = perClient<string, Set<string | undefined>>();
/** Resources of the program checked in this operation, by kind and name. */
const checkedNames = new Set<string>();
forgetters.push(() => checkedNames.clear());
const objectKey = (kind: string, id: string) => `${kind}\u0000${id}`;
const named = (name: string | undefined) => (name === undefined ? "another resource of this stack" : `the resource \`${name}\``);

/**
 * One object, one resource, across runs. What the real engine guarantees
 * (pulumi/pulumi pkg/resource/deploy, step_generator.go and step.go, read at v3.274.1,
 * the CLI the tests run):
 * - A Diff of a provider of ours that names no replacement is followed by a replacement
 *   of that resource in the same operation only when its state entry is pending
 *   replacement (the object was deleted already) or carries init errors that its
 *   `replaceOnChanges` covers; the engine's other replacements (`--replace`,
 *   `replaceWith`, `deletedWith`, a replacement trigger, a changed provider) call no
 *   Diff, and `replaceOnChanges` on changed keys needs the changed keys our Diffs never
 *   return. So the delete of a replacement after such a Diff carries the state entry
 *   that Diff had: the same outputs.
 * - Not every Diff is the program's. A refresh (`pulumi refresh`, and `pulumi up
 *   --refresh`, which refreshes every state entry before the program runs, or as each
 *   registers with `--run-program`, and the removed ones after) calls Read and then Diff
 *   for each state entry, the removed ones included (RefreshStep.Apply: Diff with the
 *   stored inputs as news, to show the drift); a replacement that deletes first calls
 *   Diff for the state entries depending on it (calculateDependentReplacements, stored
 *   inputs as news). Neither follows a Check of that resource. The step generator's
 *   Diff of a program resource always does: it Checks the resource's inputs and passes
 *   what Check returned as the Diff's news (an untargeted resource gets no Check and no
 *   Diff). So a Diff counts only when a Check of this operation declared its resource's
 *   name (`resourceName`, which every kind keeping objects has, in the news): a state
 *   entry no longer in the program, refreshed, keeps nothing. The two settings kinds have
 *   no `resourceName`: every Diff of theirs counts (see `kept`).
 * - `destroy` calls no Diff; preview and update are two plugin processes.
 * So a delete whose outputs are not those of the Diff that kept its id is another
 * state entry: a resource no longer in the program that held the object too (a rename
 * adopting its object, done over two runs with `--target`). Deleting it would take the
 * object from the resource that keeps it.
 */
export const objectKeepers = {
  /** A Check declared the resource `name` of `kind`: it is in the program (its Diffs may keep objects). */
  checked(kind: string, name: string): void {
    checkedNames.add(objectKey(kind, name));
  },

  /**
   * A Diff kept `id`: counted when its resource is the program's (checked in this
   * operation; see above). Fails (naming it) when another resource of the program
   * declared adopting that object while this one does not: two resources would hold it.
   */
  kept(client: SvcClient, kind: string, id: string, keeper: { olds: unknown; adopts: boolean; name?: string; kindIsNamed: boolean }): { adopter: string | undefined } | undefined {
    // A kind with no `resourceName` (the workspace settings and event type policy) cannot
    // tell a refresh's Diff from the program's: every Diff counts. So a removed setting
    // resource refreshed by `up --refresh` is taken as kept, and its delete puts nothing
    // back, with a note (provider/README.md, "Settings put back on delete").
    if (keeper.kindIsNamed && (keeper.name === undefined || !checkedNames.has(objectKey(kind, keeper.name)))) return undefined;
    const key = objectKey(kind, id);
    const list = keepers(client).get(key) ?? [];
    list.push({ olds: canonicalJson(keeper.olds), adopts: keeper.adopts, name: keeper.name });
    keepers(client).set(key, list);
    const declared = adopters(client).get(key);
    return !keeper.adopts && declared !== undefined ? { adopter: [...declared][0] } : undefined;
  },

  /**
   * A Check declares adopting `id`. The clash, if any: a resource of the program keeps
   * that object without adopting it, or another one (told apart by name) adopts it too.
   */
  adopting(client: SvcClient, kind: string, id: string, name: string | undefined): string | undefined {
    const key = objectKey(kind, id);
    const holder = (keepers(client).get(key) ?? []).find((k) => !k.adopts);
    if (holder) return `it is held by ${named(holder.name)}, which the program still declares`;
    const declared = adopters(client).get(key) ?? new Set();
    const twin = name === undefined ? undefined : [...declared].find((n) => n !== undefined && n !== name);
    if (twin !== undefined) return `${named(twin)} declares adopting it too`;
    adopters(client).set(key, declared.add(name));
    return undefined;
  },

  /**
   * The delete of `id` with these stored outputs: the resource of the program that keeps
   * the object, when it is another state entry (other outputs), or one that adopts it
   * (its own replacement, if any, adopts the object again).
   */
  keptFrom(client: SvcClient, kind: string, id: string, outputs: unknown): Keeper | undefined {
    const olds = canonicalJson(outputs);
    return (keepers(client).get(objectKey(kind, id)) ?? []).find((k) => k.adopts || k.olds !== olds);
  },

  named,
};

/**
 * The resource's name in the program, which the SDK passes to kinds that can adopt an
 * object: the errors of `objectKeepers` name the other resource with it. Check-only, so a
 * state without it (an earlier release's) shows no change.
 */
export const RESOURCE_NAME_FIELD: FieldSpec = {
  mode: "local",
  input: z.string().min(1),
  checkOnly: true,
  description: "The resource's name in the program, set by the SDK: an adoption of an object another resource of the program holds fails naming it.",
};
