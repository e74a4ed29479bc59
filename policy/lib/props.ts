/**
 * Reading a resource's properties the way a policy must: without tripping over
 * values that are unknown during preview, and without ever copying a secret into
 * a message.
 *
 * @pulumi/policy hands policies `props` wrapped in a Proxy whose `get` throws
 * `UnknownValueError` on an unknown value; the server then turns the whole policy
 * into an advisory "can't run during preview". We want the opposite: decide on
 * what is known and stay silent on the rest. Own property descriptors bypass the
 * proxy's `get` trap (neither proxy defines `getOwnPropertyDescriptor`), so
 * reading through them yields the raw deserialized values: sentinel strings for
 * unknowns and, in a remediation, `Secret` wrappers for secrets.
 */
import { Secret } from "@pulumi/policy";

/**
 * The strings @pulumi/policy leaves in place of values that are unknown during
 * preview (its proxy.ts; the engine's `UnknownStringValue` etc.). The string one
 * is what dynamic resources' computed inputs usually show up as.
 */
const UNKNOWN_SENTINELS: ReadonlySet<string> = new Set([
  "1c4a061d-8072-4f0a-a4cb-0ff528b18fe7", // boolean
  "3eeb2bf0-c639-47a8-9e75-3b44932eb421", // number
  "04da6b54-80e4-46f7-96ec-b56ff0331ba9", // string
  "6a19a0b0-7e62-4c92-b797-7f8e31da9cc2", // array
  "030794c1-ac77-496b-92df-f27374a8bd58", // asset
  "e48ece36-62e2-4504-bad9-02848725956a", // archive
  "dd056dcd-154b-4c76-9bd3-c8f88648b5ff", // object
]);

/** A value that cannot be known until the update runs. */
export const UNKNOWN: unique symbol = Symbol("unknown during preview");
export type Unknown = typeof UNKNOWN;

/** A property as a policy sees it: known, unknown during preview, or absent. */
export type Value<T> = T | Unknown | undefined;

export function isUnknown(value: unknown): value is Unknown {
  return value === UNKNOWN || (typeof value === "string" && UNKNOWN_SENTINELS.has(value));
}

/** One own property, read past the unknown-checking proxy: the raw value, `Secret` wrappers included. */
export function rawProperty(obj: unknown, key: string | number): unknown {
  if (obj === null || typeof obj !== "object") return undefined;
  return Object.getOwnPropertyDescriptor(obj, key)?.value;
}

/**
 * A deep, plain copy of deserialized properties for deciding: proxies gone, secrets
 * revealed (to decide only, never to print), unknown sentinels turned into `UNKNOWN`.
 */
export function plain(value: unknown): unknown {
  if (isUnknown(value)) return UNKNOWN;
  if (value instanceof Secret) return plain(value.value);
  if (value === null || typeof value !== "object") return value;
  if (Array.isArray(value)) {
    const length = rawProperty(value, "length") as number;
    const out: unknown[] = [];
    for (let i = 0; i < length; i++) out.push(plain(rawProperty(value, i)));
    return out;
  }
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value)) out[key] = plain(rawProperty(value, key));
  return out;
}

/**
 * A shallow copy of the top-level properties with every value raw, so a remediation
 * can change one property and hand the rest back untouched: secrets stay `Secret`
 * (and are re-encrypted by the engine), unknowns stay unknown.
 */
export function rawCopy(props: object): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(props)) out[key] = rawProperty(props, key);
  return out;
}

/** Apply `fn` to a raw value's plain content, keeping it secret if it was. */
export function mapKeepingSecret(raw: unknown, fn: (value: unknown) => unknown): unknown {
  return raw instanceof Secret ? new Secret(fn(raw.value)) : fn(raw);
}

/** A plain object (not an array, not null)? */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
