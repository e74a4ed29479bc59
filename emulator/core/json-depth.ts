/**
 * How deep a JSON text nests, measured on the text without parsing or recursion, so a
 * body nested 6,000 levels is refused with a 422 naming the bound instead of
 * overflowing the stack of whatever walks it later (fingerprints, schemas, copies).
 */

/** Deepest nesting accepted in a request body (our decision; the spec states none). */
export const MAX_JSON_DEPTH = 64;

const OPEN_OBJECT = 0x7b, OPEN_ARRAY = 0x5b, CLOSE_OBJECT = 0x7d, CLOSE_ARRAY = 0x5d, QUOTE = 0x22, BACKSLASH = 0x5c;

/** True when `text` opens more than `limit` objects or arrays inside one another. */
export function nestsDeeperThan(text: Buffer | string, limit = MAX_JSON_DEPTH): boolean {
  const bytes = typeof text === "string" ? Buffer.from(text) : text;
  let depth = 0;
  let inString = false;
  for (let i = 0; i < bytes.length; i++) {
    const c = bytes[i];
    if (inString) {
      if (c === BACKSLASH) i++;
      else if (c === QUOTE) inString = false;
    } else if (c === QUOTE) inString = true;
    else if (c === OPEN_OBJECT || c === OPEN_ARRAY) {
      if (++depth > limit) return true;
    } else if (c === CLOSE_OBJECT || c === CLOSE_ARRAY) depth--;
  }
  return false;
}

/** The 422 entry of a body over the bound. */
export const tooDeepEntry = (limit = MAX_JSON_DEPTH) => ({
  loc: ["body"],
  type: "json_too_deep",
  msg: `JSON nests deeper than ${limit} levels`,
  params: { limit },
});
