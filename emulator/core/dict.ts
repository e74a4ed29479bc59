/**
 * Maps keyed by user input (ids, names, tokens, header names) are null-prototype
 * objects: a key such as `__proto__`, `constructor` or `hasOwnProperty` is then an
 * ordinary missing key, never an inherited member that a lookup would take for a
 * stored record. They stay plain JSON for `--state-file`.
 *
 * The rule: every `Record<string, T>` in the state is made with `dict()`, and a state
 * file is read with `parseState`, which gives every object it reads a null prototype.
 */
export type Dict<T> = Record<string, T>;

export function dict<T>(entries?: Iterable<readonly [string, T]>): Dict<T> {
  const out = Object.create(null) as Dict<T>;
  if (entries) for (const [k, v] of entries) out[k] = v;
  return out;
}

/** JSON.parse giving every object a null prototype (so stored maps stay safe after a restart). */
export function parseNullProto(text: string): unknown {
  return JSON.parse(text, (_key, value: unknown) =>
    value !== null && typeof value === "object" && !Array.isArray(value) ? dict(Object.entries(value as object)) : value,
  );
}

/** An own member of a fixed table (e.g. a closed list of service names), never an inherited one. */
export function own<T>(table: Readonly<Record<string, T>>, key: string): T | undefined {
  return Object.hasOwn(table, key) ? table[key] : undefined;
}
