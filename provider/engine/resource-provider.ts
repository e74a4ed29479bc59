/**
 * The generic engine: turns a ResourceDefinition (a table of fields plus a few
 * hooks) into the dynamic provider's check/diff/create/read/update/delete.
 * Nothing here knows any particular resource.
 */
import type * as dynamic from "@pulumi/pulumi/dynamic";
import { SvcApiError, SvcClient, isApiError } from "../client";
import { InvalidSettingError, MissingSettingError, pluginConfigSource, reconcileWindowSeconds, resolveConnection, setPluginConfig, settingNames, type ConfigSource, type Connection, type Product } from "../config";
import { checkInputs, PROVIDER_KEY } from "./check";
import { claimsOf, holdId } from "./claims";
import { declared, diffFields, fieldChanged, fieldEqual } from "./diff";
import { explainApiError, note, PartialFailure } from "./errors";
import { guardProvider } from "./guard";
import { remoteCheckFailures } from "./remote-checks";
import { asIs, fieldEntries, isInputField, type ApplyContext, type OperationContext, type PlannedCall, type Props, type ResourceDefinition } from "./fields";
import { toPlainJson } from "./json";
import { canonicalJson } from "../../rules/event-schema";
import { planUpdate } from "./plan";
import { readFromListing } from "./list-cache";
import { createReconciled } from "./reconcile";
import { containsUnknown } from "./unknown";
import { upgrading } from "./upgrade";

/* ---------- connections (plugin-process state, never serialized) ---------- */

const clients = new Map<string, SvcClient>();
const readCache = new Map<string, Promise<unknown>>();

/** A client and a read cache for a product and profile, from the configured settings. */
export function operationContext(def: Pick<ResourceDefinition, "product">, profile: string | undefined, source: ConfigSource = pluginConfigSource()): OperationContext {
  const conn = resolveConnection(source, def.product, profile);
  // A connection resolved from config is the same object each time (resolveConnection's memo): so is its context.
  let ctx = contexts.get(conn);
  if (!ctx) contexts.set(conn, (ctx = newOperationContext(conn, def.product, profile)));
  return ctx;
}

const contexts = new WeakMap<Connection, OperationContext>();

function newOperationContext(conn: Connection, product: Product, profile: string | undefined): OperationContext {
  const cacheKey = `${conn.baseUrl}\u0000${conn.apiKey}`;
  // Errors name the setting that holds the address, so two profiles with the same
  // connection get a client each; they share its pacing (one per base URL and key).
  const names = settingNames(product, "Url", profile);
  const addressSetting = `${names.configKey} (or ${names.envVar})`;
  const clientKey = `${cacheKey}\u0000${addressSetting}`;
  let client = clients.get(clientKey);
  if (!client) {
    client = new SvcClient({ baseUrl: conn.baseUrl, apiKey: conn.apiKey, pacing: conn.ceilings, addressSetting });
    clients.set(clientKey, client);
  }
  return {
    client,
    profile,
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
}

/** Forget cached reads (tests that change a workspace's plan between checks). */
export function clearReadCache(): void {
  readCache.clear();
}

/* ---------- values ---------- */

const profileOf = (props: Props | undefined) => (typeof props?.profile === "string" ? props.profile : undefined);

function withoutProvider(props: Props | undefined): Props {
  const { [PROVIDER_KEY]: _provider, ...rest } = props ?? {};
  return rest;
}

/** camelCase outputs of the fields the service returns (write-only and provider-side fields excluded). */
export function remoteFields(def: ResourceDefinition, remote: Props): Props {
  const out: Props = {};
  for (const [name, spec] of fieldEntries(def)) {
    if (!spec.api || spec.writeOnly || spec.mode === "action" || spec.mode === "local") continue;
    if (!(spec.api in remote)) continue;
    out[name] = (spec.codec ?? asIs).fromApi(remote[spec.api]) ?? null;
  }
  return out;
}

/**
 * Was the object written since the state last saw it (its `updated_at` moved) with
 * nothing the service shows changed? Then the write changed only values it never
 * shows (a secret rotated outside Pulumi), or nothing at all.
 */
export function writtenUnseen(def: ResourceDefinition, remote: Props, previous: Props): boolean {
  const stamp = fieldEntries(def).find(([, spec]) => spec.api === "updated_at")?.[0];
  const shown = remoteFields(def, remote);
  if (!stamp || typeof shown[stamp] !== "string" || typeof previous[stamp] !== "string" || shown[stamp] === previous[stamp]) return false;
  return Object.entries(shown).every(([name, value]) => name === stamp || fieldEqual(def.fields[name]!, value, previous[name]));
}

/** Every field present (null when not set), so the SDK resolves every declared output. */
function completeOutputs(def: ResourceDefinition, outputs: Props): Props {
  const out: Props = { ...outputs };
  for (const [name] of fieldEntries(def)) if (out[name] === undefined) out[name] = null;
  return toPlainJson(out) as Props;
}

/** Values the provider itself keeps: write-only (last applied), actions (last triggered), local settings. */
function keptValues(def: ResourceDefinition, source: Props, only?: (name: string) => boolean): Props {
  const out: Props = {};
  for (const [name, spec] of fieldEntries(def)) {
    if (!(spec.writeOnly || spec.mode === "action" || spec.mode === "local" || (spec.mode === "createOnly" && !spec.api))) continue;
    if (only && !only(name)) continue;
    out[name] = source[name] ?? spec.default ?? null;
  }
  return out;
}

/** What a read learns of each write-only field (hooks.refreshWriteOnly); without the hook, the last applied value. */
function writeOnlyAsRead(def: ResourceDefinition, remote: Props, previous: Props): Props {
  const learnt: Props = {};
  const hook = def.hooks?.refreshWriteOnly;
  if (hook) for (const [name, spec] of fieldEntries(def)) if (spec.writeOnly) learnt[name] = hook(name, remote, previous[name] ?? null, previous);
  return learnt;
}

/** The inputs refresh stores: read back from the service, write-only values as the read learnt them. */
function rebuildInputs(def: ResourceDefinition, remote: Props, previous: Props): Props {
  const inputs: Props = {};
  for (const [name, spec] of fieldEntries(def)) {
    if (!isInputField(spec)) continue;
    let value: unknown;
    if (!spec.writeOnly && spec.api && spec.mode !== "action" && spec.api in remote) value = (spec.codec ?? asIs).fromApi(remote[spec.api]);
    else value = previous[name];
    if (value !== undefined && value !== null) inputs[name] = value;
  }
  return toPlainJson(inputs) as Props;
}

/** The body of the create call: every declared field create takes, in API names. */
export function createBody(def: ResourceDefinition, news: Props): Props {
  const body: Props = {};
  for (const [name, spec] of fieldEntries(def)) {
    if (!spec.api || !isInputField(spec) || spec.mode === "local" || spec.onCreate === false) continue;
    if (spec.mode === "action" && spec.onCreate !== true) continue;
    const value = news[name];
    if (value === undefined || value === null) continue;
    body[spec.api] = (spec.codec ?? asIs).toApi(value);
  }
  return body;
}

/* ---------- the provider ---------- */

export function makeResourceProvider(def: ResourceDefinition): dynamic.ResourceProvider & { definition: ResourceDefinition } {
  const idField = def.idField ?? "id";

  const withItem = (ctx: OperationContext, id: string): ApplyContext => ({ client: ctx.client, profile: ctx.profile, cached: ctx.cached, id, def, itemPath: def.paths.item(id) });
  /** Every id the engine names is held by a resource of the stack: never another create's candidate (claims.ts). */
  const applyContext = (id: string, props: Props | undefined): ApplyContext => {
    const ctx = operationContext(def, profileOf(props));
    holdId(ctx.client, def.kind, id);
    return withItem(ctx, id);
  };
  /** Fields create does not take (e.g. an endpoint's status): set by an update call right after, when they differ. */
  const afterCreateFields = fieldEntries(def).filter(([, spec]) => spec.onCreate === false);
  /** Write-only fields an update can write (not createOnly): what an object found by listing gets written. */
  const rewritableWriteOnly = fieldEntries(def).filter(([, spec]) => spec.writeOnly && spec.mode !== "createOnly");

  /** Run planned calls in order; each success marks its fields applied in `outputs`. */
  async function runCalls(ctx: ApplyContext, calls: PlannedCall[], news: Props, outputs: Props): Promise<Props> {
    let current = outputs;
    for (const call of calls) {
      const idInBody = def.paths.idInBody && call.kind === "patch" ? { [def.paths.idInBody]: ctx.id } : undefined;
      const body = idInBody ? { ...idInBody, ...(call.body as Props) } : call.body;
      // An id in the body is the only one: the item path's query names it for GET and DELETE alone.
      const itemPath = idInBody ? ctx.itemPath.split("?")[0]! : ctx.itemPath;
      const res = await ctx.client.request<Props>({ method: call.method, path: itemPath + call.path, body, safeToRepeat: call.safeToRepeat });
      current = absorbResponse(call, res.body ?? {}, news, current);
    }
    return current;
  }

  function absorbResponse(call: PlannedCall, response: Props, news: Props, outputs: Props): Props {
    const next: Props = { ...outputs, ...keptValues(def, news, (n) => call.fields.includes(n)) };
    // A whole object in the answer (a singleton's write answers the whole setting).
    if (response[idField] !== undefined || def.singleton) Object.assign(next, remoteFields(def, response));
    else
      for (const name of call.fields) {
        const spec = def.fields[name]!;
        if (spec.writeOnly || spec.mode === "action") continue;
        next[name] = spec.api && spec.api in response ? (spec.codec ?? asIs).fromApi(response[spec.api]) : (news[name] ?? null);
      }
    return { ...next, ...def.hooks?.extraOutputs?.(response, next) };
  }

  /** Calls that failed part-way: the object exists, so keep it in state with what was applied. */
  function failPartway(err: unknown, id: string, outputs: Props, news: Props, operation: "create" | "update" | "adopt", anyDone: boolean): never {
    const error = isApiError(err) ? explainApiError(def, err, operation, news, id) : (err as Error);
    if (!anyDone && (operation === "update" || def.singleton)) throw error;
    const properties = { ...completeOutputs(def, outputs), [PROVIDER_KEY]: news[PROVIDER_KEY] };
    throw new PartialFailure(`The ${def.noun} ${id} exists but was not fully brought to the declared state: ${error.message}`, id, properties, [error.message]);
  }

  async function converge(ctx: ApplyContext, calls: PlannedCall[], olds: Props | undefined, news: Props, outputs: Props, operation: "create" | "update" | "adopt", created: boolean): Promise<Props> {
    let current = outputs;
    // Nothing exists because of a singleton's take-over until one of its writes succeeded.
    let done = operation !== "update" && !def.singleton;
    for (const call of calls) {
      try {
        current = await runCalls(ctx, [call], news, current);
        done = true;
      } catch (err) {
        failPartway(err, ctx.id, current, news, operation, done);
      }
    }
    const complete = completeOutputs(def, current);
    if (!def.hooks?.afterApply) return complete;
    const after = await def.hooks.afterApply(ctx, { created, olds, news, outputs: complete });
    // Most of the time the hook has nothing to do and hands the outputs back as they were.
    return after === complete ? complete : completeOutputs(def, after);
  }

  /** diff names the resource's id too; it needs no connection, so one that cannot be made is left for the operations. */
  function holdNamedId(id: string, props: Props): void {
    let ctx: OperationContext;
    try {
      ctx = operationContext(def, profileOf(withoutProvider(props)));
    } catch {
      return; // check has said what is missing
    }
    holdId(ctx.client, def.kind, id);
  }

  const idOf = (response: Props) => (def.idOf ? def.idOf(response) : String(response[idField]));

  /** The id to adopt: the definition's own rule, else the `adoptId` input. */
  function adoptionId(news: Props): string | undefined {
    if (def.adoption) return def.adoption.idFrom(news);
    return typeof news.adoptId === "string" && news.adoptId !== "" ? news.adoptId : undefined;
  }

  async function create(inputs: Props): Promise<dynamic.CreateResult> {
    const news = inputs;
    if (def.singleton) return takeOver(news);
    const adoptId = adoptionId(news);
    if (adoptId === undefined) return createNew(news);
    const adopted = await adopt(adoptId, news);
    // The object is this resource's now (claims.ts `adopted`): the delete of a resource that held it before must not remove it.
    claimsOf(operationContext(def, profileOf(news)).client, def.kind).adopted.add(adopted.id);
    return adopted;
  }

  async function createNew(news: Props): Promise<dynamic.CreateResult> {
    const ctx = operationContext(def, profileOf(news));
    const body = createBody(def, news);
    let response: Props;
    let found: boolean;
    try {
      // An unknown outcome is reconciled by a listing: adopt what the create made, or send it again.
      ({ object: response, found } = await createReconciled(def, ctx.client, body, news, idOf));
    } catch (err) {
      throw isApiError(err) ? explainApiError(def, err, "create", news) : err;
    }
    const id = idOf(response);
    const created: Props = { ...remoteFields(def, response), ...keptValues(def, news) };
    // An object found by listing matched every field the service shows, not the write-only ones:
    // those that can be written are written, so the resource never claims values it may not carry.
    if (found) for (const [name] of rewritableWriteOnly) created[name] = null;
    const outputs = { ...created, ...def.hooks?.extraOutputs?.(response, created) };
    // Fields create does not take (e.g. status) are applied right after, only when they differ.
    const applyLater = (name: string) => def.fields[name]!.onCreate === false || (found && def.fields[name]!.writeOnly === true);
    const anyLater = found || afterCreateFields.some(([name, spec]) => fieldChanged(spec, name, outputs, news));
    const later = anyLater ? planUpdate(def, outputs, news).filter((c) => c.fields.every(applyLater)) : [];
    const outs = await converge(withItem(ctx, id), later, undefined, news, outputs, "create", true);
    return { id, outs };
  }

  /** Bring an existing object (adoptId) to the declared state with PATCH/PUT instead of POST. */
  async function adopt(id: string, news: Props): Promise<dynamic.CreateResult> {
    const ctx = applyContext(id, news);
    let remote: Props;
    try {
      remote = (await ctx.client.request<Props>({ method: "GET", path: ctx.itemPath })).body ?? {};
    } catch (err) {
      if (isApiError(err, 404) && def.adoption?.createWhenMissing) return createNew(news);
      if (isApiError(err, 404)) throw new Error(`adoptId ${id}: no ${def.noun} with this id is visible to the API key in use. Check the id and the profile.`);
      throw isApiError(err) ? explainApiError(def, err, "adopt", news, id) : err;
    }
    const olds: Props = { ...remoteFields(def, remote), ...keptValues(def, news, (n) => def.fields[n]!.mode !== "createOnly" && !def.fields[n]!.writeOnly) };
    for (const [name, spec] of fieldEntries(def)) {
      if (spec.mode !== "createOnly" || !spec.api) continue;
      const { managed, value } = declared(spec, news, name);
      if (!managed || (value === null && !def.adoption?.replaceWhenDifferent)) continue;
      if (spec.writeOnly)
        throw new Error(`adoptId ${id}: \`${name}\` cannot be applied to an existing ${def.noun} (it is only accepted on create). Remove \`${name}\` from the resource to adopt it.`);
      if (fieldEqual(spec, value, olds[name])) continue;
      if (def.adoption?.replaceWhenDifferent) {
        // No update route for it: the adopted object is deleted and created as declared.
        await deleteItem(ctx, olds);
        return createNew(news);
      }
      throw new Error(`adoptId ${id}: the ${def.noun} has ${name} ${JSON.stringify(olds[name])} but ${JSON.stringify(value)} is declared, and ${name} cannot change without replacing it. Declare ${JSON.stringify(olds[name])} to adopt it.`);
    }
    const outs = await converge(ctx, planUpdate(def, olds, news), olds, news, olds, "adopt", false);
    return { id, outs };
  }

  /** A singleton: read what is there (kept to restore on delete), then write every declared field. */
  async function takeOver(news: Props): Promise<dynamic.CreateResult> {
    const singleton = def.singleton!;
    const id = singleton.idOf(news);
    const ctx = applyContext(id, news);
    let remote: Props;
    try {
      remote = (await ctx.client.request<Props>({ method: "GET", path: ctx.itemPath })).body ?? {};
    } catch (err) {
      throw isApiError(err) ? explainApiError(def, err, "create", news, id) : err;
    }
    const found = remoteFields(def, remote);
    const prior = singleton.prior
      ? singleton.prior(remote, news)
      : Object.fromEntries(fieldEntries(def).filter(([n, spec]) => ["patch", "put"].includes(spec.mode) && n in found).map(([n]) => [n, found[n]]));
    const outputs: Props = { ...found, ...keptValues(def, news), [singleton.priorField]: prior };
    // Every declared field is written, even one that already has the value: the resource now owns it.
    const outs = await converge(ctx, planUpdate(def, {}, news), undefined, news, outputs, "create", true);
    claimsOf(ctx.client, def.kind).takenOver.set(id, canonicalJson(prior));
    return { id, outs };
  }

  /** DELETE the item; 404 is already gone; a refusal may be waited out (onDeleteRefused). */
  async function deleteItem(ctx: ApplyContext, previous: Props): Promise<void> {
    for (;;) {
      try {
        await ctx.client.request({ method: "DELETE", path: ctx.itemPath });
        return;
      } catch (err) {
        if (isApiError(err, 404)) return; // already gone
        if (isApiError(err) && err.status === 409 && def.hooks?.onDeleteRefused) {
          if ((await def.hooks.onDeleteRefused(err, ctx, previous)) === "gone") return;
          continue;
        }
        throw isApiError(err) ? explainApiError(def, err, "delete", previous, ctx.id) : err;
      }
    }
  }

  /** A singleton's delete: put back the values found before the take-over. */
  async function restore(ctx: ApplyContext, previous: Props): Promise<void> {
    const singleton = def.singleton!;
    const prior = previous[singleton.priorField];
    // Read with Resource.get, or state from before the take-over was recorded: nothing to put back.
    if (!prior || typeof prior !== "object") return;
    const takenOver = claimsOf(ctx.client, def.kind).takenOver;
    const newOwner = takenOver.get(ctx.id);
    if (newOwner !== undefined && newOwner !== canonicalJson(prior)) {
      note(`The ${def.noun} ${ctx.id} was taken over by another resource of this run (a rename or a replacement); it keeps that resource's values instead of being put back to what this one found.`);
      return;
    }
    takenOver.delete(ctx.id);
    try {
      if (singleton.restore) await singleton.restore(ctx, prior as Props, previous);
      else await runCalls(ctx, planUpdate(def, {}, prior as Props), prior as Props, previous);
    } catch (err) {
      if (isApiError(err, 404)) return; // the scope is gone, and the setting with it
      throw isApiError(err) ? explainApiError(def, err, "delete", previous, ctx.id) : err;
    }
  }

  // Stored outputs of an older shape are upgraded before anything reads them (upgrade.ts);
  // the guard outside hides secrets and names the address in whatever any of it throws.
  return guardProvider(def, upgrading(def.kind, {
    definition: def,

    async configure(req) {
      setPluginConfig(req.config);
    },

    async check(olds: Props, news: Props): Promise<dynamic.CheckResult> {
      const { inputs, failures } = checkInputs(def, withoutProvider(news));
      inputs[PROVIDER_KEY] = news[PROVIDER_KEY];
      const profile = inputs.profile;
      if (containsUnknown(profile)) return { inputs, failures };
      let ctx: OperationContext | undefined;
      try {
        ctx = operationContext(def, profileOf(inputs));
      } catch (err) {
        if (!(err instanceof MissingSettingError || err instanceof InvalidSettingError || (err as Error).message?.includes("svc:profiles"))) throw err;
        // Named on `profile` only when one is set: the default profile's settings are the stack's.
        failures.push({ property: profileOf(inputs) ? "profile" : "", reason: (err as Error).message });
      }
      if (def.reconcile !== false && !def.singleton) {
        try {
          reconcileWindowSeconds();
        } catch (err) {
          failures.push({ property: "", reason: (err as Error).message });
        }
      }
      if (ctx && failures.length === 0) failures.push(...(await remoteCheckFailures(def, inputs, ctx, withoutProvider(olds))));
      return { inputs, failures };
    },

    async diff(id: string, olds: Props, news: Props): Promise<dynamic.DiffResult> {
      if (!def.singleton) holdNamedId(id, olds);
      const declaredNow = withoutProvider(news);
      const fields = diffFields(def, olds, declaredNow);
      const d = def.hooks?.adjustDiff ? def.hooks.adjustDiff(fields, olds, declaredNow, id) : fields;
      return { changes: d.changed.length > 0 || d.replaces.length > 0, replaces: d.replaces, deleteBeforeReplace: d.deleteBeforeReplace };
    },

    create,

    async read(id: string, props?: Props): Promise<dynamic.ReadResult> {
      const previous = withoutProvider(props);
      const ctx = applyContext(id, previous);
      let remote: Props;
      try {
        // A burst of reads (a refresh) is served from one paged listing of the kind.
        remote = (await readFromListing(def, ctx.client, id, idOf)) ?? (await ctx.client.request<Props>({ method: "GET", path: ctx.itemPath })).body ?? {};
      } catch (err) {
        // Deleted outside Pulumi: no id drops it from the state.
        if (isApiError(err, 404)) return {};
        throw isApiError(err) ? explainApiError(def, err, "read", previous, id) : err;
      }
      if (def.hooks?.goneWhen?.(remote)) return {};
      // Write-only values go to the outputs too: diff compares the declared value with them.
      const learnt = writeOnlyAsRead(def, remote, previous);
      const outputs = completeOutputs(def, { ...keptValues(def, previous), ...previous, ...remoteFields(def, remote), ...learnt });
      return { id, props: outputs, inputs: rebuildInputs(def, remote, { ...previous, ...learnt }) };
    },

    async update(id: string, olds: Props, news: Props): Promise<dynamic.UpdateResult> {
      const next = withoutProvider(news);
      const previous = withoutProvider(olds);
      const ctx = applyContext(id, next);
      // Provider-side settings take effect without a call.
      const outputs = { ...previous, ...keptValues(def, next, (n) => def.fields[n]!.mode === "local" || (def.fields[n]!.mode === "createOnly" && !def.fields[n]!.api)) };
      // `news` itself, with its __provider: a partial failure's state must keep it.
      const outs = await converge(ctx, planUpdate(def, previous, next), previous, news, outputs, "update", false);
      return { outs };
    },

    async delete(id: string, props: Props): Promise<void> {
      const previous = withoutProvider(props);
      const ctx = applyContext(id, previous);
      if (def.singleton) return restore(ctx, previous);
      const claims = claimsOf(ctx.client, def.kind);
      if (claims.adopted.has(id)) {
        note(`The ${def.noun} ${id} was not deleted: another resource of this run adopted it (e.g. renamed, with adoption). It stays, managed by that resource; this resource is removed from the state.`);
        return;
      }
      await deleteItem(ctx, previous);
      claims.release(id);
    },
  }));
}

export { SvcApiError };
