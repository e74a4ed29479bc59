/**
 * Preview's "not known yet" value. During preview, an input computed from another
 * resource's output that does not exist yet reaches check and diff as this string.
 */
export const UNKNOWN = "04da6b54-80e4-46f7-96ec-b56ff0331ba9";

export type PathSegment = string | number;

export const isUnknown = (v: unknown): boolean => v === UNKNOWN;

export function containsUnknown(v: unknown): boolean {
  if (v === UNKNOWN) return true;
  if (v === null || typeof v !== "object") return false;
  // Loops, not Object.values().some(): check runs this over every input of every resource.
  if (Array.isArray(v)) {
    for (const item of v) if (containsUnknown(item)) return true;
    return false;
  }
  for (const k in v) if (Object.hasOwn(v, k) && containsUnknown((v as Record<string, unknown>)[k])) return true;
  return false;
}

/** Paths (from the value's root) of every unknown inside it. */
export function unknownPaths(v: unknown, at: PathSegment[] = []): PathSegment[][] {
  if (v === UNKNOWN) return [at];
  if (!containsUnknown(v)) return []; // the common case (every value known): no walk that allocates
  // Past containsUnknown, v is an array or an object holding one.
  if (Array.isArray(v)) return v.flatMap((item, i) => unknownPaths(item, [...at, i]));
  return Object.entries(v as object).flatMap(([k, item]) => unknownPaths(item, [...at, k]));
}

/** Is `path` at or under one of `unknowns`? (A failure there cannot be decided yet.) */
export function touchesUnknown(path: PathSegment[], unknowns: PathSegment[][]): boolean {
  return unknowns.some((u) => u.length <= path.length && u.every((seg, i) => String(seg) === String(path[i])));
}

/** The value with every nested unknown string replaced by `""`, for rules that aggregate (sizes, counts). */
export function neutraliseUnknowns(v: unknown): unknown {
  if (v === UNKNOWN) return "";
  if (!containsUnknown(v)) return v; // nothing to replace: the value itself, not a copy
  if (Array.isArray(v)) return v.map(neutraliseUnknowns);
  return Object.fromEntries(Object.entries(v as object).map(([k, item]) => [k, neutraliseUnknowns(item)]));
}
