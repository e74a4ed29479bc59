// Property values as they cross the engine's gRPC boundary (google.protobuf.Struct
// encoded), with the engine's two in-band markers: secrets and unknowns.
//
// The Node SDK encodes a secret as {SIG_KEY: SECRET_SIG, value: v} and an unknown
// (preview-time, not computed yet) as the string UNKNOWN. We do not advertise the
// "outputValues" or "resourceReferences" features, so no other markers arrive.

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type PropertyMap = Record<string, Json>;

export const SIG_KEY = "4dabf18193072939515e22adb298388d";
export const SECRET_SIG = "1b47061264138c4ac30d75fd1eb44270";
export const UNKNOWN = "04da6b54-80e4-46f7-96ec-b56ff0331ba9";
export const PROVIDER_KEY = "__provider";

export interface SecretValue {
  [SIG_KEY]: typeof SECRET_SIG;
  value: Json;
}

export function isObject(v: unknown): v is { [key: string]: Json } {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

export function isSecret(v: unknown): v is SecretValue {
  return isObject(v) && v[SIG_KEY] === SECRET_SIG && "value" in v;
}

export function makeSecret(v: Json): Json {
  return isSecret(v) ? v : { [SIG_KEY]: SECRET_SIG, value: v };
}

export function containsSecret(v: unknown): boolean {
  if (isSecret(v)) return true;
  if (Array.isArray(v)) return v.some(containsSecret);
  if (isObject(v)) return Object.values(v).some(containsSecret);
  return false;
}

export function containsUnknown(v: unknown): boolean {
  if (v === UNKNOWN) return true;
  if (Array.isArray(v)) return v.some(containsUnknown);
  if (isObject(v)) return Object.values(v).some(containsUnknown);
  return false;
}

/** Removes every secret wrapper: what a provider that does not accept secrets receives. */
export function unwrapSecrets(v: Json): Json {
  if (isSecret(v)) return unwrapSecrets(v.value);
  if (Array.isArray(v)) return v.map(unwrapSecrets);
  if (isObject(v)) {
    const out: { [key: string]: Json } = {};
    for (const [k, x] of Object.entries(v)) out[k] = unwrapSecrets(x);
    return out;
  }
  return v;
}

export function unwrapMap(m: PropertyMap): PropertyMap {
  return unwrapSecrets(m) as PropertyMap;
}

/**
 * Re-marks provider results as secret the way the engine does for providers that
 * do not accept secrets: an output whose top-level name matches an input holding a
 * secret becomes secret, and so does every name in additionalSecretOutputs.
 */
export function remarkSecrets(outputs: PropertyMap, inputs: PropertyMap, additionalSecretOutputs: readonly string[] = []): PropertyMap {
  const out: PropertyMap = { ...outputs };
  for (const [k, v] of Object.entries(inputs)) {
    if (k in out && containsSecret(v)) out[k] = makeSecret(out[k]!);
  }
  for (const k of additionalSecretOutputs) {
    if (k in out) out[k] = makeSecret(out[k]!);
  }
  return out;
}

/** Deep equality of JSON values, with secrets compared by their plaintext. */
export function jsonEqual(a: Json | undefined, b: Json | undefined): boolean {
  if (isSecret(a)) a = a.value;
  if (isSecret(b)) b = b.value;
  if (a === b) return true;
  if (a === undefined || b === undefined || a === null || b === null) return false;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    return a.every((x, i) => jsonEqual(x, b[i]));
  }
  if (isObject(a) && isObject(b)) {
    const ka = Object.keys(a);
    const kb = Object.keys(b);
    if (ka.length !== kb.length) return false;
    return ka.every((k) => k in b && jsonEqual(a[k], b[k]));
  }
  return false;
}

/** Top-level keys whose values differ (ignoring `__provider`), sorted. */
export function changedKeys(olds: PropertyMap, news: PropertyMap): string[] {
  const keys = new Set([...Object.keys(olds), ...Object.keys(news)]);
  keys.delete(PROVIDER_KEY);
  return [...keys].filter((k) => news[k] === UNKNOWN || !jsonEqual(olds[k], news[k])).sort();
}

/**
 * The keys the CLI shows as changed (display/rows.go, getDiffInfo): the inputs that moved,
 * compared as the engine's events carry them, secrets masked. So a change of a secret's
 * value alone shows no key, as with the real engine for a provider that names none.
 */
export function shownKeys(olds: PropertyMap, news: PropertyMap): string[] {
  return changedKeys(redact(olds) as PropertyMap, redact(news) as PropertyMap);
}

/** Human rendering that never shows a secret's plaintext. */
export function redact(v: Json | undefined): unknown {
  if (v === undefined) return undefined;
  if (isSecret(v)) return "[secret]";
  if (v === UNKNOWN) return "[unknown]";
  if (Array.isArray(v)) return v.map(redact);
  if (isObject(v)) {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) out[k] = redact(x);
    return out;
  }
  return v;
}
