/**
 * What the checks learn about the rest of the stack while the engine runs it: the one
 * place where a check of one resource depends on the other resources of the run.
 *
 * - `planAllocation`: new inboxes counted against the plan's allocation (inbox.ts);
 * - `claimQuotas`: which resource of the program acts on which quota: two QuotaRequests
 *   asking for one (quota-request.ts), two QuotaLimits setting one (quota-limits.ts),
 *   each resource named by its name in the program;
 * - `replacedDeleteFirst`: event types that Diff replaces keeping their name (event-type.ts).
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
 * Other plugin-process state, judged: the read cache of the connections
 * (resource-provider.ts, read-only answers, once per operation), claims.ts (ids the
 * engine named), list-cache.ts (reads in a burst, dropped on any write), the create
 * journal (on disk, across processes on purpose), and the note that remote checks are
 * skipped (once per kind: a message, no result) depend on no call count either.
 */
import { countedRegion } from "../../rules/quota";
import type { SvcClient } from "../client";

const forgetters: (() => void)[] = [];

/** Forget everything learnt, as a new plugin process would (tests that play several operations in one process). */
export function forgetStackRun(): void {
  for (const forget of forgetters) forget();
}

/** Per connection (one workspace and key): a map made on first use. */
function perClient<K, V>(): (client: SvcClient) => Map<K, V> {
  let byClient = new WeakMap<SvcClient, Map<K, V>>();
  forgetters.push(() => (byClient = new WeakMap()));
  return (client) => {
    let m = byClient.get(client);
    if (!m) byClient.set(client, (m = new Map()));
    return m;
  };
}

const allocations = perClient<string, number>();

/**
 * A new inbox's allocation (`inboxes` or `http_bins`): taken when `live` (the usage read
 * at preview) plus the new inboxes counted before it stays under `limit`; otherwise the
 * number live or planned, for the message. Only a Check that creates counts (new, a
 * replacement's second Check, a `--replace`): the engine makes it once per inbox.
 */
export function planAllocation(client: SvcClient, metric: string, live: number, limit: number | null): { taken: true } | { taken: false; current: number } {
  const planned = allocations(client);
  const current = live + (planned.get(metric) ?? 0);
  if (limit !== null && current >= limit) return { taken: false, current };
  planned.set(metric, (planned.get(metric) ?? 0) + 1);
  return { taken: true };
}

const quotaClaims = perClient<string, string>();

/**
 * The first other resource of the program acting on one of `names` in `scope` (kind,
 * project, service) and the region the quota is counted in (none for a project-wide
 * one); else the quotas are recorded as claimed by `resource` (its name or id in the
 * program). Two resources of one program are both checked before either is applied, so
 * the service cannot show the clash yet. Idempotent: the same resource claiming again
 * is no clash.
 */
export function claimQuotas(client: SvcClient, resource: string, scope: unknown[], region: unknown, names: string[]): { name: string; by: string } | undefined {
  const byQuota = quotaClaims(client);
  const keyOf = (name: string) => JSON.stringify([...scope, countedRegion(name, region), name]);
  for (const name of names) {
    const by = byQuota.get(keyOf(name));
    if (by !== undefined && by !== resource) return { name, by };
  }
  for (const name of names) byQuota.set(keyOf(name), resource);
  return undefined;
}

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
