/**
 * The one place the native plugin meets the provider: each kind's typed operations as
 * the dynamic front end calls them too (`operationsOf(kind)` in provider/index.ts: state
 * upgraded, secrets hidden from every message), so both front ends share one path.
 *
 * Values here are plain: the server (server.ts) has already unwrapped the engine's
 * secret envelopes and hands over the names of the inputs that were secret, which
 * the provider uses to keep those values out of its messages.
 */
import type * as Provider from "../provider";
import type * as Errors from "../provider/engine/errors";
import type { CheckFailure, Props } from "../provider/engine/fields";
import { PROVIDER_KEY, RESOURCE_KEY, resourceIdentity, SECRET_INPUTS_KEY } from "../provider/engine/internal-keys";
import type { ReachRecord } from "../provider/engine/reach";

let loaded: typeof Provider | undefined;
let warningSink: ((message: string) => void) | undefined;
/**
 * The provider package, loaded on first use (zod, undici and every definition: most of
 * the plugin's start-up time), so the port line is not kept waiting for it.
 */
function provider(): typeof Provider {
  if (!loaded) {
    loaded = require("../provider") as typeof Provider;
    if (warningSink) (require("../provider/engine/errors") as typeof Errors).setNoteSink(warningSink);
  }
  return loaded;
}

/** Where the provider's warnings go once it is loaded (call before the first operation): the engine's log, not stderr. */
export function sendWarningsTo(sink: (message: string) => void): void {
  warningSink = sink;
}

/** Load the provider now, off the start-up path (after the port line), so the first call does not wait for it. */
export function preload(): void {
  setImmediate(provider);
}

const operationsOf = (token: string) => provider().operationsOf(kindOf(token));

/** `svc:webhooks:Endpoint` -> `webhooks:Endpoint` (and a function's `svc:webhooks:getEndpoint` -> `webhooks:getEndpoint`); throws for a token of another package. */
export function kindOf(token: string): string {
  if (!token.startsWith("svc:")) throw new Error(`pulumi-resource-svc serves svc:* resources, not ${token}`);
  return token.slice("svc:".length);
}

function withSecretNames(props: Props, secretNames: readonly string[]): Props {
  return secretNames.length ? { ...props, [SECRET_INPUTS_KEY]: [...secretNames] } : props;
}

/** The provider's answer without the keys it adds besides the fields (or undefined values, which gRPC cannot carry). */
function plain(props: Props | undefined): Props {
  const out: Props = {};
  for (const [k, v] of Object.entries(props ?? {})) if (v !== undefined && k !== SECRET_INPUTS_KEY && k !== PROVIDER_KEY && k !== RESOURCE_KEY) out[k] = v;
  return out;
}

/** Hands the stack's `svc:` config to the provider (`key` without its namespace). */
export async function configure(get: (key: string) => string | undefined): Promise<void> {
  provider().setPluginConfig({ get: (namespaced: string) => get(namespaced.replace(/^svc:/, "")) });
}

/**
 * Why the config's API keys (`key` without its namespace, old and new) moved to another workspace or project, and
 * where each reaches now, given where each reached at the last run (provider/engine/reach.ts).
 */
export function movedKeys(olds: (key: string) => string | undefined, news: (key: string) => string | undefined, recorded: ReachRecord, explicitProvider: string | undefined): Promise<{ reasons: string[]; reached: ReachRecord }> {
  return provider().movedKeys(olds, news, recorded, explicitProvider);
}

/** Do these values of a kind's field agree by the field's own equality (QuotaLimits' `limits`: the declared entries hold)? */
export function fieldAgrees(token: string, key: string, declared: unknown, held: unknown): boolean {
  const spec = operationsOf(token).definition.fields[key];
  return spec !== undefined && provider().fieldEqual(spec, declared, held);
}

/** The inputs with the resource's identity (RESOURCE_KEY), from its URN, as the TypeScript SDK sets it. */
function identified(inputs: Props, urn: string): Props {
  const [stackPart = "", project = "", , name = ""] = urn.split("::");
  return { ...inputs, [RESOURCE_KEY]: resourceIdentity(stackPart.replace(/^urn:pulumi:/, ""), project, name) };
}

/**
 * `urn`: the resource's URN. A kind that tells two resources of one program apart at preview (a `resourceName` field:
 * two QuotaRequests for one quota, an adoption of an object another resource holds; two resources on one setting) gets
 * its name and identity as the TypeScript SDK gives them.
 */
export async function check(token: string, olds: Props, news: Props, secretNames: readonly string[], urn: string): Promise<{ inputs: Props; failures: CheckFailure[] }> {
  const ops = operationsOf(token);
  const name = urn.split("::").pop();
  const named = name && ops.definition.fields["resourceName"] && news["resourceName"] === undefined ? { ...news, resourceName: name } : news;
  const result = await ops.check({ olds, news: withSecretNames(identified(named, urn), secretNames) });
  return { inputs: plain(result.inputs), failures: result.failures };
}

export async function diff(token: string, id: string, olds: Props, news: Props, secretNames: readonly string[]): Promise<{ changes: boolean; diffs: string[]; replaces: string[]; deleteBeforeReplace: boolean }> {
  return operationsOf(token).diff({ id, olds, news: withSecretNames(news, secretNames) });
}

/** `urn`: the resource's URN, which says which resource the create is for (an open question's replacement: open-question.ts; the SDK sets the same key). */
export async function create(token: string, inputs: Props, secretNames: readonly string[], urn: string): Promise<{ id: string; outputs: Props }> {
  const r = await operationsOf(token).create({ inputs: withSecretNames(identified(inputs, urn), secretNames) });
  return { id: r.id, outputs: plain(r.outputs) };
}

/** The object as the service has it; none (gone) when it no longer exists. `previous` is empty for an import. */
export async function read(token: string, id: string, previous: Props, secretNames: readonly string[]): Promise<{ id: string; outputs: Props; inputs: Props } | undefined> {
  const r = await operationsOf(token).read({ id, outputs: withSecretNames(previous, secretNames) });
  if (r.gone) return undefined;
  return { id: r.id, outputs: plain(r.outputs), inputs: plain(r.inputs) };
}

export async function update(token: string, id: string, olds: Props, news: Props, secretNames: readonly string[]): Promise<Props> {
  const r = await operationsOf(token).update({ id, olds, news: withSecretNames(news, secretNames) });
  return plain(r.outputs);
}

export async function remove(token: string, id: string, props: Props, secretNames: readonly string[]): Promise<void> {
  await operationsOf(token).delete({ id, outputs: withSecretNames(props, secretNames) });
}

/**
 * A read function of the schema (`svc:webhooks:getEndpoints`) with the plugin's settings, as the TypeScript SDK's
 * (provider/functions.ts). A list is returned as the one property `items`, the schema's output of a list function.
 */
export async function invoke(token: string, args: Props): Promise<Props> {
  const fn = provider().readFunction(kindOf(token));
  const answer = await fn.run(args);
  return Array.isArray(answer) ? { items: answer } : answer;
}

/** A setting the connection needs is missing (the provider's MissingSettingError): what it is, its config key and variable. */
export function missingSettingOf(err: unknown): { what: string; configKey: string; envVar: string } | undefined {
  if (!loaded || !(err instanceof loaded.MissingSettingError)) return undefined;
  return { what: err.what, configKey: err.configKey, envVar: err.envVar };
}

/** A failure after the object was made: it exists with `properties` (the provider's PartialFailure). */
export function partialFailureOf(err: unknown): { id: string; properties: Props; reasons: string[] } | undefined {
  if (!loaded || !(err instanceof loaded.PartialFailure)) return undefined;
  return { id: err.id, properties: plain(err.properties), reasons: err.reasons };
}

/**
 * Inputs the service never returns (custom header values, signing secrets, create-only settings): an import cannot
 * learn them. `held`: whether the object, as its read `outputs` show, may hold a value of it (false: it has none).
 */
export function writeOnlyInputs(token: string, outputs: Props): { name: string; createOnly: boolean; held: boolean }[] {
  const def = operationsOf(token).definition;
  return Object.entries(def.fields)
    .filter(([, spec]) => spec.writeOnly)
    .map(([name, spec]) => ({ name, createOnly: spec.mode === "createOnly", held: !def.hooks?.holdsNone?.(name, outputs) }));
}
