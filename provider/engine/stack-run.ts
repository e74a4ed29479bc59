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
 * engine named), list-cache.ts (reads in a burst, dropped on any write), the create
 * journal (on disk, across processes on purpose), and the note that remote checks are
 * skipped (once per kind: a message, no result) depend on no call count either.
 */
import { countedRegion } from "../../rules/quota";

const forgetters: (() => void)[] = [];

/** Forget everything learnt, as a new plugin process would (tests that play several operations in one process). */
export function forgetStackRun(): void {
  for (const forget of forgetters) forget();
}

/** The new inboxes counted so far, per account and allocation metric, over the first usage read of the account. */
const allocations = new Map<string, { live: number; planned: number }>();
forgetters.push(() => allocations.clear());

/**
 * A new inbox's allocation (`inboxes` or `http_bins`) in `account` (the workspace; see
 * the header): taken when the live inboxes plus the new ones counted before it stay under
 * `limit`; otherwise the number live or planned, for the message. Only a Check that
 * creates counts (new, a replacement's second Check, a `--replace`): the engine makes it
 * once per inbox. `live` is the usage read of the caller's connection; the account keeps
 * the first one given, which was read before any create of this run in it (each create's
 * Check comes first), while a later connection's read may include inboxes counted already.
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

const quotaClaims = new Map<string, string>();
forgetters.push(() => quotaClaims.clear());

/**
 * The first other resource of the program acting on one of `names` in `scope` (kind,
 * project, service: the project as an account, see the header) and the region the
 * quota is counted in (none for a project-wide one); else the quotas are recorded as
 * claimed by `resource` (its name in the program). Two resources of one program are both
 * checked before either is applied, so the service cannot show the clash yet. Idempotent:
 * the same resource claiming again is no clash.
 */
export function claimQuotas(resource: string, scope: unknown[], region: unknown, names: string[]): { name: string; by: string } | undefined {
  const keyOf = (name: string) => JSON.stringify([...scope, countedRegion(name, region), name]);
  for (const name of names) {
    const by = quotaClaims.get(keyOf(name));
    if (by !== undefined && by !== resource) return { name, by };
  }
  for (const name of names) quotaClaims.set(keyOf(name), resource);
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
