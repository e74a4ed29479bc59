/**
 * Outputs must be plain JSON: the dynamic-provider plugin throws on `undefined`,
 * bigint and functions, and turns Date and Map into `{}` (pulumi/pulumi#2205).
 */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

export function toPlainJson(v: unknown): Json {
  if (v === undefined || v === null) return null;
  if (typeof v === "string" || typeof v === "boolean") return v;
  if (typeof v === "number") return Number.isFinite(v) ? v : null;
  if (typeof v === "bigint") return Number(v);
  if (v instanceof Date) return v.toISOString();
  if (v instanceof Map) return toPlainJson(Object.fromEntries(v));
  if (Array.isArray(v)) return v.map(toPlainJson);
  if (typeof v === "object") {
    const out: { [key: string]: Json } = {};
    // for...in over own keys, not Object.entries(): no array per object (every output of every resource passes here).
    for (const k in v) {
      if (!Object.hasOwn(v, k)) continue;
      const item = (v as Record<string, unknown>)[k];
      if (typeof item !== "function") out[k] = toPlainJson(item);
    }
    return out;
  }
  return null;
}

/** Structural equality of JSON values; `undefined` and `null` are the same "not set". */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === undefined) a = null;
  if (b === undefined) b = null;
  if (a === b) return true;
  if (a === null || b === null || typeof a !== "object" || typeof b !== "object") return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const bb = b as unknown[];
    return a.length === bb.length && a.every((item, i) => jsonEqual(item, bb[i]));
  }
  const ao = a as Record<string, unknown>;
  const bo = b as Record<string, unknown>;
  // Two passes over own keys rather than a Set of both key lists: diff runs this on every field of every resource.
  for (const k in ao) if (Object.hasOwn(ao, k) && !jsonEqual(ao[k], bo[k])) return false;
  for (const k in bo) if (Object.hasOwn(bo, k) && !Object.hasOwn(ao, k) && bo[k] !== undefined && bo[k] !== null) return false;
  return true;
}
