/**
 * One engine operation (a preview, an update, a refresh, a destroy) as the provider
 * serves it: what a call learns that a later call of the same operation needs, in one
 * object, and nothing that outlives it: the connections (one client per address, key
 * and address setting; pacing shared per address and key, client/pacing.ts), the read
 * cache of remote checks, what the operation knows per connection and kind (claims.ts),
 * and what the checks learn about the rest of the stack (the members below), the one
 * place where a check of one resource depends on the other resources of the run.
 *
 * Why one per plugin process is sound under the real engine (pulumi/pulumi,
 * pkg/resource/deploy, step_generator.go, read for v3.274):
 * - One plugin process serves one operation of one stack: `pulumi up`'s preview and its
 *   update are two deployments, each starting its plugins afresh, so nothing here
 *   outlives the operation that learnt it, and each operation learns it all.
 * - The step generator calls Check one resource at a time: once for a new resource (and
 *   for a `--replace` target, with no old inputs and no Diff), once with the old inputs
 *   for an existing one, and, when Diff says replace, once more with NO old inputs
 *   ("recompute the default values"), always after that Diff has answered (under
 *   PULUMI_PARALLEL_DIFF too: the second Check waits for the diff's result).
 * So each fact is either idempotent (learning it twice is learning it once), or counts a
 * call the engine makes once per resource and operation (a new inbox's Check); the
 * caches and listings depend on no call count. Which of two clashing resources a check
 * names may depend on the order in which the program registers them; whether the run
 * fails does not. What must be remembered across runs is in the state, never here.
 *
 * Counts belong to an account, what the service counts in: a workspace for inboxes, a
 * project for quotas, whatever connection (profile, key) a resource uses to reach it.
 * Each caller names its account from what the service says (inbox.ts: the workspace's
 * newest audit entry; quota-limits.ts: the key's project), or, when the service says
 * nothing, the connection (`connectionId`: address and key), so two different keys of
 * an unknown workspace count apart: what is not known to be one account is never
 * counted as one (that would fail a preview the service accepts).
 */
import { SvcClient } from "../client";
import { pluginConfigSource, resolveConnection, settingNames, type ConfigSource, type Connection, type Product } from "../config";
import { KindClaims } from "./claims";
import { watchEngine } from "./engine-link";

/** What a key reaches (reach.ts): its workspace as the product names it, and the project it is confined to (none: every project). */
export interface Reach {
  workspace: string;
  project?: string;
}

/** What a hook gets to talk to the service. */
export interface OperationContext {
  /** The engine operation this call belongs to (engine-operation.ts): what the operation's other calls learnt. */
  operation: EngineOperation;
  client: SvcClient;
  /** Cache of read-only answers, kept once per operation per connection (check's remote reads). */
  cached<T>(key: string, load: () => Promise<T>): Promise<T>;
  /**
   * Names the connection (address and key, whatever profile chose it) without holding
   * the key: what the operation counts under when the workspace or project is not known.
   */
  connectionId: string;
}

export class EngineOperation {
  private readonly clients = new Map<string, SvcClient>();
  private readonly readCache = new Map<string, Promise<unknown>>();
  /** Address and key → `connection N`, so no key is kept in what names a connection. */
  private readonly connectionIds = new Map<string, string>();
  private readonly contexts = new WeakMap<Connection, OperationContext>();
  private readonly kinds = new Map<string, Map<string, KindClaims>>();
  /** The new objects counted so far, per account and allocation metric, over the first usage read of the account. */
  private readonly allocations = new Map<string, { live: number; planned: number }>();
  private readonly keyClaims = new Map<string, string>();
  private readonly listedOpen = new Map<string, Set<string>>();
  /**
   * Unique keys (JSON of the kind and the key's values) that a Diff of this operation
   * replaces keeping the key, deleting the old object first. The engine's second Check of
   * that replacement has no old inputs and finds the old object: recorded here by the
   * Diff (the decision itself), it is known to be the stack's own, however often Check
   * is called. Limit: another new resource of the program declaring the same key, checked
   * after that Diff, passes preview too and its create is refused (explained).
   */
  readonly replacedDeleteFirst = new Set<string>();
  /** Resources of the program checked in this operation, by kind and name: their Diffs keep objects (claims.ts `kept`). */
  readonly checkedNames = new Set<string>();
  /** What remote-checks.ts warned of once in this operation: a kind whose checks were skipped, a connection whose key may not write. */
  readonly warnedOnce = new Set<string>();
  /**
   * The reach each connection's key was last read to have (reach.ts), by `connectionId` (a context object is not one
   * per connection when the key comes from the environment), for Diff, which cannot wait: an Error when it could not be read (why).
   */
  readonly reaches = new Map<string, Reach | Error>();

  /** A client and a read cache for a product and profile, from the configured settings. */
  context(def: { product: Product }, profile: string | undefined, source: ConfigSource): OperationContext {
    const conn = resolveConnection(source, def.product, profile);
    // A connection resolved from config is the same object each time (resolveConnection's memo): so is its context.
    let ctx = this.contexts.get(conn);
    if (ctx) return ctx;
    const cacheKey = `${conn.baseUrl}\u0000${conn.apiKey}`;
    // Errors name the setting that holds the address, so two profiles with the same
    // connection get a client each; they share its pacing (one per base URL and key).
    const names = settingNames(def.product, "Url", profile);
    const addressSetting = `${names.configKey} (or ${names.envVar})`;
    const clientKey = `${cacheKey}\u0000${addressSetting}`;
    let client = this.clients.get(clientKey);
    if (!client) this.clients.set(clientKey, (client = new SvcClient({ baseUrl: conn.baseUrl, apiKey: conn.apiKey, pacing: conn.ceilings, addressSetting })));
    let connectionId = this.connectionIds.get(cacheKey);
    if (!connectionId) this.connectionIds.set(cacheKey, (connectionId = `connection ${this.connectionIds.size + 1}`));
    const readCache = this.readCache;
    ctx = {
      operation: this,
      client,
      connectionId,
      cached<T>(key: string, load: () => Promise<T>): Promise<T> {
        const k = `${cacheKey}\u0000${key}`;
        let p = readCache.get(k) as Promise<T> | undefined;
        if (!p) {
          p = load();
          // A failed read is not cached: the next check may succeed.
          p.catch(() => readCache.delete(k));
          readCache.set(k, p);
        }
        return p;
      },
    };
    this.contexts.set(conn, ctx);
    return ctx;
  }

  /**
   * What this operation knows of a kind's objects on one connection: its address and key (`connectionId`), whichever
   * profile chose it, so that a resource moved between two profiles of one key is seen by both.
   */
  claims({ connectionId }: Pick<OperationContext, "connectionId">, kind: string): KindClaims {
    let byKind = this.kinds.get(connectionId);
    if (!byKind) this.kinds.set(connectionId, (byKind = new Map()));
    let claims = byKind.get(kind);
    if (!claims) byKind.set(kind, (claims = new KindClaims()));
    return claims;
  }

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
  planAllocation(account: string, metric: string, live: number, limit: number | null): { taken: true } | { taken: false; current: number } {
    const key = JSON.stringify([account, metric]);
    const counted = this.allocations.get(key) ?? { live, planned: 0 };
    this.allocations.set(key, counted);
    const current = counted.live + counted.planned;
    if (limit !== null && current >= limit) return { taken: false, current };
    counted.planned++;
    return { taken: true };
  }

  /**
   * One program resource per unique key: the first other resource of the program that
   * declared one of `keys` (an event type's scope and name, a quota in its account and
   * region); else the keys are recorded as claimed by `resource` (its name in the program).
   * Two resources of one program are both checked before either is applied, so the
   * service cannot show the clash yet. Idempotent: the same resource claiming again is no
   * clash.
   */
  claimKeys(resource: string, keys: string[]): { key: string; by: string } | undefined {
    for (const key of keys) {
      const by = this.keyClaims.get(key);
      if (by !== undefined && by !== resource) return { key, by };
    }
    for (const key of keys) this.keyClaims.set(key, resource);
    return undefined;
  }

  /**
   * Which objects of a listing this operation's checks read are still open (quota requests
   * pending or needing updates, per project listed): the Diff that follows the Check of a
   * resource sees its object decided since the state last saw it, and previews the
   * replacement the update will be, instead of an edit the service will refuse.
   */
  readonly openObjects = {
    listed: (scope: string, ids: string[]) => void this.listedOpen.set(scope, new Set(ids)),
    /** Undefined when no check of this operation listed the scope. */
    isOpen: (scope: string, id: string) => this.listedOpen.get(scope)?.has(id),
  };
}

/**
 * The operation this process serves: the one slot left at module level, because neither
 * front end's calls carry one (the dynamic provider's methods get the resource's
 * properties alone). It is made at the process's first call rather than at Configure:
 * the dynamic-provider plugin configures each provider object it deserializes when it
 * first meets it, which may be in the middle of the operation (a kind first seen late),
 * and a new operation then would forget what the earlier calls learnt. Tests that play
 * several operations in one process start a new one (test/support/operation.ts).
 */
let current: EngineOperation | undefined;

/** The operation of this process, made at its first call. */
export const currentOperation = (): EngineOperation => (current ??= new EngineOperation());

/** A new operation, as a new plugin process would serve (the next engine step of a test). */
export const startOperation = (): EngineOperation => (current = new EngineOperation());

/** The connection a product and profile choose from the configured settings; undefined when a setting is missing (check says which). */
export function connectionOf(def: { product: Product }, profile: string | undefined): Connection | undefined {
  try {
    return resolveConnection(pluginConfigSource(), def.product, profile);
  } catch {
    return undefined;
  }
}

/** The current operation's context for a product and profile, from the configured settings. */
export function operationContext(def: { product: Product }, profile: string | undefined, source: ConfigSource = pluginConfigSource()): OperationContext {
  // A plugin whose engine is gone (a killed `pulumi`) ends, from its first call on.
  watchEngine();
  return currentOperation().context(def, profile, source);
}

/** The current operation's context for a product and profile, or undefined when no connection can be made (a setting missing: check says why). */
export function contextOrNone(product: Product, profile: string | undefined, source?: ConfigSource): OperationContext | undefined {
  try {
    return operationContext({ product }, profile, source);
  } catch {
    return undefined;
  }
}
