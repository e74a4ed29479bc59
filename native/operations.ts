/**
 * The one place the native plugin meets the provider: each kind's operations as the
 * dynamic front end calls them (`providerFor(kind)` in provider/index.ts). When the
 * provider's typed operations land, this file is the only one that changes.
 *
 * Values here are plain: the server (server.ts) has already unwrapped the engine's
 * secret envelopes and hands over the names of the inputs that were secret, which
 * the provider uses to keep those values out of its messages.
 */
import type * as pulumi from "@pulumi/pulumi";
import type * as Provider from "../provider";
import type * as Errors from "../provider/engine/errors";

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

const providerFor = (kind: string) => provider().providerFor(kind);

export type Props = Record<string, unknown>;
export interface Failure {
  property: string;
  reason: string;
}

/** Where the dynamic front end lists secret inputs (sdk/props.ts): the provider's redaction reads it. */
const SECRET_INPUTS_KEY = "__secretInputs";
/** The dynamic front end's serialized provider: never part of a native resource. */
const DYNAMIC_PROVIDER_KEY = "__provider";

/** `svc:webhooks:Endpoint` -> `webhooks:Endpoint`; throws for a token of another package or an unknown kind. */
export function kindOf(token: string): string {
  if (!token.startsWith("svc:")) throw new Error(`pulumi-resource-svc serves svc:* resources, not ${token}`);
  return token.slice("svc:".length);
}

function withSecretNames(props: Props, secretNames: readonly string[]): Props {
  return secretNames.length ? { ...props, [SECRET_INPUTS_KEY]: [...secretNames] } : props;
}

/** The provider's answer without the dynamic front end's own keys (or undefined values, which gRPC cannot carry). */
function plain(props: Props | undefined): Props {
  const out: Props = {};
  for (const [k, v] of Object.entries(props ?? {})) if (v !== undefined && k !== SECRET_INPUTS_KEY && k !== DYNAMIC_PROVIDER_KEY) out[k] = v;
  return out;
}

/** Hands the stack's `svc:` config to the provider (`key` without its namespace). */
export async function configure(get: (key: string) => string | undefined): Promise<void> {
  const any = Object.values(provider().providers)[0]!;
  await any.configure!({ config: { get: (namespaced: string) => get(namespaced.replace(/^svc:/, "")) } as unknown as pulumi.Config });
}

/**
 * `name`: the resource's name in the program (its URN's last part). A kind that tells two
 * resources of one program apart at preview (a `resourceName` field: two QuotaRequests
 * for one quota, an adoption of an object another resource holds) gets it as the
 * TypeScript SDK gives it.
 */
export async function check(token: string, olds: Props, news: Props, secretNames: readonly string[], name?: string): Promise<{ inputs: Props; failures: Failure[] }> {
  const p = providerFor(kindOf(token));
  const named = name && p.definition.fields["resourceName"] && news["resourceName"] === undefined ? { ...news, resourceName: name } : news;
  const result = await p.check!(olds, withSecretNames(named, secretNames));
  return { inputs: plain(result.inputs as Props), failures: [...(result.failures ?? [])] };
}

/** `diffs`: the fields that changed (those in `replaces` too), which the typed operations name beside the dynamic front end's answer. */
export async function diff(token: string, id: string, olds: Props, news: Props, secretNames: readonly string[]): Promise<{ changes: boolean; diffs: string[]; replaces: string[]; deleteBeforeReplace: boolean }> {
  const d = (await providerFor(kindOf(token)).diff!(id, olds, withSecretNames(news, secretNames))) as pulumi.dynamic.DiffResult & { diffs?: string[] };
  const replaces = [...(d.replaces ?? [])];
  return { changes: d.changes ?? false, diffs: [...new Set([...(d.diffs ?? []), ...replaces])], replaces, deleteBeforeReplace: d.deleteBeforeReplace ?? false };
}

/** `urn`: the resource's URN, which tells the create journal which resource the create is for (the SDK sets the same key). */
export async function create(token: string, inputs: Props, secretNames: readonly string[], urn: string): Promise<{ id: string; outputs: Props }> {
  const [stackPart = "", project = "", , name = ""] = urn.split("::");
  const identified = { ...inputs, [provider().RESOURCE_KEY]: provider().resourceIdentity(stackPart.replace(/^urn:pulumi:/, ""), project, name) };
  const r = await providerFor(kindOf(token)).create(withSecretNames(identified, secretNames));
  return { id: String(r.id), outputs: plain(r.outs as Props) };
}

/** The object as the service has it; none (gone) when it no longer exists. `previous` is empty for an import. */
export async function read(token: string, id: string, previous: Props, secretNames: readonly string[]): Promise<{ id: string; outputs: Props; inputs: Props } | undefined> {
  const r = await providerFor(kindOf(token)).read!(id, withSecretNames(previous, secretNames));
  if (!r.id) return undefined;
  return { id: String(r.id), outputs: plain(r.props as Props), inputs: plain(r.inputs as Props) };
}

export async function update(token: string, id: string, olds: Props, news: Props, secretNames: readonly string[]): Promise<Props> {
  const r = await providerFor(kindOf(token)).update!(id, olds, withSecretNames(news, secretNames));
  return plain(r.outs as Props);
}

export async function remove(token: string, id: string, props: Props, secretNames: readonly string[]): Promise<void> {
  await providerFor(kindOf(token)).delete!(id, withSecretNames(props, secretNames));
}

/** A failure after the object was made: it exists with `properties` (the provider's PartialFailure). */
export function partialFailureOf(err: unknown): { id: string; properties: Props; reasons: string[] } | undefined {
  if (!loaded || !(err instanceof loaded.PartialFailure)) return undefined;
  return { id: err.id, properties: plain(err.properties), reasons: err.reasons };
}

/** Inputs the service never returns (custom header values, signing secrets, create-only settings): an import cannot learn them. */
export function writeOnlyInputs(token: string): { name: string; createOnly: boolean }[] {
  const def = providerFor(kindOf(token)).definition;
  return Object.entries(def.fields)
    .filter(([, spec]) => spec.writeOnly)
    .map(([name, spec]) => ({ name, createOnly: spec.mode === "createOnly" }));
}
