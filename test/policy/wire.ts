/**
 * Property values the way the engine puts them on the wire to an analyzer: plain
 * JSON, secrets as signature objects, unknowns as sentinel strings. Test cases are
 * written in this form so that the unit harness and the real analyzer server get
 * exactly the same input.
 */
import { specialSecretSig, specialSigKey } from "@pulumi/pulumi/runtime/rpc";

export type Wire = null | boolean | number | string | Wire[] | { [key: string]: Wire };
export type WireProps = Record<string, Wire>;

/** A secret value as the engine sends it. */
export function secret(value: Wire): Wire {
  return { [specialSigKey]: specialSecretSig, value };
}

/** The engine's sentinel for a string unknown during preview. */
export const UNKNOWN_STRING = "04da6b54-80e4-46f7-96ec-b56ff0331ba9";
/** The engine's sentinel for an array unknown during preview. */
export const UNKNOWN_ARRAY = "6a19a0b0-7e62-4c92-b797-7f8e31da9cc2";

/** Every string inside a secret in `value`, to check that no message ever contains one. */
export function secretStrings(value: unknown, inSecret = false): string[] {
  if (typeof value === "string") return inSecret ? [value] : [];
  if (Array.isArray(value)) return value.flatMap((v) => secretStrings(v, inSecret));
  if (value && typeof value === "object") {
    const obj = value as Record<string, unknown>;
    if (obj[specialSigKey] === specialSecretSig) return secretStrings(obj["value"], true);
    return Object.values(obj).flatMap((v) => secretStrings(v, inSecret));
  }
  return [];
}

/** A stand-in for the serialized dynamic provider every resource's inputs carry. */
export const PROVIDER_BLOB = "exports.handler = __f0;\nfunction __f0() { return require('pulumi-svc/provider').handler('webhooks:Endpoint'); }";
