/**
 * The generic engine: turns a ResourceDefinition (a table of fields plus a few
 * hooks) into the dynamic provider's check/diff/create/read/update/delete.
 * Nothing here knows any particular resource.
 */
import type * as dynamic from "@pulumi/pulumi/dynamic";
import { SvcApiError, SvcClient, isApiError } from "../client";
import { MissingSettingError, pluginConfigSource, resolveConnection, setPluginConfig, type ConfigSource } from "../config";
import { checkInputs, PROVIDER_KEY } from "./check";
import { diffFields } from "./diff";
import { explainApiError, PartialFailure } from "./errors";
import { asIs, isInputField, type ApplyContext, type OperationContext, type PlannedCall, type Props, type ResourceDefinition } from "./fields";
import { toPlainJson } from "./json";
import { planUpdate } from "./plan";
import { containsUnknown } from "./unknown";

/* ---------- connections (plugin-process state, never serialized) ---------- */

const clients = new Map<string, SvcClient>();
const readCache = new Map<string, Promise<unknown>>();

/** A client and a read cache for a product and profile, from the configured settings. */
export function operationContext(def: Pick<ResourceDefinition, "product">, profile: string | undefined, source: ConfigSource = pluginConfigSource()): OperationContext {
  const conn = resolveConnection(source, def.product, profile);
  const cacheKey = `${conn.baseUrl}\u0000${conn.apiKey}`;
  let client = clients.get(cacheKey);
  if (!client) {
    client = new SvcClient({ baseUrl: conn.baseUrl, apiKey: conn.apiKey });
    clients.set(cacheKey, client);
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
  for (const [name, spec] of Object.entries(def.fields)) {
    if (!spec.api || spec.writeOnly || spec.mode === "action" || spec.mode === "local") continue;
    if (!(spec.api in remote)) continue;
    out[name] = (spec.codec ?? asIs).fromApi(remote[spec.api]) ?? null;
  }
  return out;
}

/** Every field present (null when not set), so the SDK resolves every declared output. */
function completeOutputs(def: ResourceDefinition, outputs: Props): Props {
  const out: Props = { ...outputs };
  for (const name of Object.keys(def.fields)) if (out[name] === undefined) out[name] = null;
  return toPlainJson(out) as Props;
}

/** Values the provider itself keeps: write-only (last applied), actions (last triggered), local settings. */
function keptValues(def: ResourceDefinition, source: Props, only?: (name: string) => boolean): Props {
  const out: Props = {};
  for (const [name, spec] of Object.entries(def.fields)) {
    if (!(spec.writeOnly || spec.mode === "action" || spec.mode === "local" || (spec.mode === "createOnly" && !spec.api))) continue;
    if (only && !only(name)) continue;
    out[name] = source[name] ?? spec.default ?? null;
  }
  return out;
}

/** The inputs refresh stores: read back from the service, write-only values kept. */
function rebuildInputs(def: ResourceDefinition, remote: Props, previous: Props): Props {
  const inputs: Props = {};
  for (const [name, spec] of Object.entries(def.fields)) {
    if (!isInputField(spec)) continue;
    let value: unknown;
    if (spec.writeOnly) value = def.hooks?.refreshWriteOnly ? def.hooks.refreshWriteOnly(name, remote, previous[name]) : previous[name];
    else if (spec.api && spec.mode !== "action" && spec.api in remote) value = (spec.codec ?? asIs).fromApi(remote[spec.api]);
    else value = previous[name];
    if (value !== undefined && value !== null) inputs[name] = value;
  }
  return toPlainJson(inputs) as Props;
}

/* ---------- the provider ---------- */

export function makeResourceProvider(def: ResourceDefinition): dynamic.ResourceProvider & { definition: ResourceDefinition } {
  const idField = def.idField ?? "id";

  const applyContext = (id: string, props: Props | undefined): ApplyContext => ({
    ...operationContext(def, profileOf(props)),
    id,
    def,
    itemPath: def.paths.item(id),
  });

  /** Run planned calls in order; each success marks its fields applied in `outputs`. */
  async function runCalls(ctx: ApplyContext, calls: PlannedCall[], news: Props, outputs: Props): Promise<Props> {
    let current = outputs;
    for (const call of calls) {
      const res = await ctx.client.request<Props>({ method: call.method, path: ctx.itemPath + call.path, body: call.body, safeToRepeat: call.safeToRepeat });
      current = absorbResponse(call, res.body ?? {}, news, current);
    }
    return current;
  }

  function absorbResponse(call: PlannedCall, response: Props, news: Props, outputs: Props): Props {
    const next: Props = { ...outputs, ...keptValues(def, news, (n) => call.fields.includes(n)) };
    if (response[idField] !== undefined) Object.assign(next, remoteFields(def, response));
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
    if (!anyDone && operation === "update") throw error;
    const properties = { ...completeOutputs(def, outputs), [PROVIDER_KEY]: news[PROVIDER_KEY] };
    throw new PartialFailure(`The ${def.noun} ${id} exists but was not fully brought to the declared state: ${error.message}`, id, properties, [error.message]);
  }

  async function converge(ctx: ApplyContext, calls: PlannedCall[], olds: Props | undefined, news: Props, outputs: Props, operation: "create" | "update" | "adopt", created: boolean): Promise<Props> {
    let current = outputs;
    let done = operation !== "update";
    for (const call of calls) {
      try {
        current = await runCalls(ctx, [call], news, current);
        done = true;
      } catch (err) {
        failPartway(err, ctx.id, current, news, operation, done);
      }
    }
    if (def.hooks?.afterApply) {
      current = await def.hooks.afterApply(ctx, { created, olds, news, outputs: completeOutputs(def, current) });
    }
    return completeOutputs(def, current);
  }

  async function create(inputs: Props): Promise<dynamic.CreateResult> {
    const news = inputs;
    if (typeof news.adoptId === "string" && news.adoptId !== "") return adopt(news.adoptId, news);
    const ctx0 = operationContext(def, profileOf(news));
    const body: Props = {};
    for (const [name, spec] of Object.entries(def.fields)) {
      if (!spec.api || !isInputField(spec) || spec.mode === "action" || spec.mode === "local" || spec.onCreate === false) continue;
      const value = news[name];
      if (value === undefined || value === null) continue;
      body[spec.api] = (spec.codec ?? asIs).toApi(value);
    }
    let response: Props;
    try {
      response = (await ctx0.client.request<Props>({ method: "POST", path: def.paths.create, body, adoptHint: def.adoptHint })).body ?? {};
    } catch (err) {
      throw isApiError(err) ? explainApiError(def, err, "create", news) : err;
    }
    const id = String(response[idField]);
    const created: Props = { ...remoteFields(def, response), ...keptValues(def, news) };
    const outputs = { ...created, ...def.hooks?.extraOutputs?.(response, created) };
    // Fields create does not take (e.g. status) are applied right after, only when they differ.
    const later = planUpdate(def, outputs, news).filter((c) => c.fields.every((f) => def.fields[f]!.onCreate === false));
    const outs = await converge(applyContext(id, news), later, undefined, news, outputs, "create", true);
    return { id, outs };
  }

  /** Bring an existing object (adoptId) to the declared state with PATCH/PUT instead of POST. */
  async function adopt(id: string, news: Props): Promise<dynamic.CreateResult> {
    const ctx = applyContext(id, news);
    let remote: Props;
    try {
      remote = (await ctx.client.request<Props>({ method: "GET", path: ctx.itemPath })).body ?? {};
    } catch (err) {
      if (isApiError(err, 404)) throw new Error(`adoptId ${id}: no ${def.noun} with this id is visible to the API key in use. Check the id and the profile.`);
      throw isApiError(err) ? explainApiError(def, err, "adopt", news, id) : err;
    }
    const olds: Props = { ...remoteFields(def, remote), ...keptValues(def, news, (n) => def.fields[n]!.mode !== "createOnly" && !def.fields[n]!.writeOnly) };
    for (const [name, spec] of Object.entries(def.fields)) {
      if (spec.mode !== "createOnly" || !spec.api || news[name] === undefined || news[name] === null) continue;
      if (spec.writeOnly)
        throw new Error(`adoptId ${id}: \`${name}\` cannot be applied to an existing ${def.noun} (it is only accepted on create). Remove \`${name}\` from the resource to adopt it.`);
      if (JSON.stringify(olds[name]) !== JSON.stringify(news[name]))
        throw new Error(`adoptId ${id}: the ${def.noun} has ${name} ${JSON.stringify(olds[name])} but ${JSON.stringify(news[name])} is declared, and ${name} cannot change without replacing it. Declare ${JSON.stringify(olds[name])} to adopt it.`);
    }
    const outs = await converge(ctx, planUpdate(def, olds, news), olds, news, olds, "adopt", false);
    return { id, outs };
  }

  return {
    definition: def,

    async configure(req) {
      setPluginConfig(req.config);
    },

    async check(_olds: Props, news: Props): Promise<dynamic.CheckResult> {
      const { inputs, failures } = checkInputs(def, withoutProvider(news));
      inputs[PROVIDER_KEY] = news[PROVIDER_KEY];
      const profile = inputs.profile;
      if (containsUnknown(profile)) return { inputs, failures };
      let ctx: OperationContext | undefined;
      try {
        ctx = operationContext(def, profileOf(inputs));
      } catch (err) {
        if (!(err instanceof MissingSettingError || (err as Error).message?.includes("svc:profiles"))) throw err;
        failures.push({ property: "profile", reason: (err as Error).message });
      }
      if (ctx && failures.length === 0 && def.hooks?.checkRemote) {
        failures.push(...(await def.hooks.checkRemote(inputs, ctx)));
      }
      return { inputs, failures };
    },

    async diff(_id: string, olds: Props, news: Props): Promise<dynamic.DiffResult> {
      const d = diffFields(def, olds, withoutProvider(news));
      return { changes: d.changed.length > 0, replaces: d.replaces, deleteBeforeReplace: d.deleteBeforeReplace };
    },

    create,

    async read(id: string, props?: Props): Promise<dynamic.ReadResult> {
      const previous = withoutProvider(props);
      const ctx = applyContext(id, previous);
      let remote: Props;
      try {
        remote = (await ctx.client.request<Props>({ method: "GET", path: ctx.itemPath })).body ?? {};
      } catch (err) {
        // Deleted outside Pulumi: no id drops it from the state.
        if (isApiError(err, 404)) return {};
        throw isApiError(err) ? explainApiError(def, err, "read", previous, id) : err;
      }
      const outputs = completeOutputs(def, { ...keptValues(def, previous), ...previous, ...remoteFields(def, remote) });
      return { id, props: outputs, inputs: rebuildInputs(def, remote, previous) };
    },

    async update(id: string, olds: Props, news: Props): Promise<dynamic.UpdateResult> {
      const next = withoutProvider(news);
      const previous = withoutProvider(olds);
      const ctx = applyContext(id, next);
      // Provider-side settings take effect without a call.
      const outputs = { ...previous, ...keptValues(def, next, (n) => def.fields[n]!.mode === "local" || (def.fields[n]!.mode === "createOnly" && !def.fields[n]!.api)) };
      const outs = await converge(ctx, planUpdate(def, previous, next), previous, { ...next, [PROVIDER_KEY]: news[PROVIDER_KEY] }, outputs, "update", false);
      return { outs };
    },

    async delete(id: string, props: Props): Promise<void> {
      const previous = withoutProvider(props);
      const ctx = applyContext(id, previous);
      for (;;) {
        try {
          await ctx.client.request({ method: "DELETE", path: ctx.itemPath });
          return;
        } catch (err) {
          if (isApiError(err, 404)) return; // already gone
          if (isApiError(err) && err.status === 409 && def.hooks?.onDeleteRefused) {
            await def.hooks.onDeleteRefused(err, ctx, previous);
            continue;
          }
          throw isApiError(err) ? explainApiError(def, err, "delete", previous, id) : err;
        }
      }
    },
  };
}

export { SvcApiError };
