/**
 * Request validation: zod schemas for bodies and queries, with zod's issues mapped
 * onto the spec's `validation_error` entries (`loc`, `type`, `msg`, `params`).
 * The entry types follow the spec's examples (`missing`, `string_too_long`,
 * `too_short`, `greater_than_equal`, ...), which are pydantic's names.
 */
import { z } from "zod";
import { validationError, type ValidationEntry } from "./errors";

type Where = "body" | "query" | "path";

function entryFor(issue: z.core.$ZodIssue, where: Where, input: unknown): ValidationEntry {
  const loc = [where, ...issue.path.map((p) => (typeof p === "symbol" ? String(p) : p))];
  switch (issue.code) {
    case "invalid_type": {
      if (valueAt(input, issue.path) === undefined) return { loc, type: "missing", msg: "Field required" };
      // zod names the JSON type (number for integer fields too); integer rules report int_type themselves.
      const expected = String(issue.expected);
      return { loc, type: `${expected}_type`, msg: `Input should be a valid ${expected}` };
    }
    case "too_small": {
      const min = Number(issue.minimum);
      if (issue.origin === "string") return { loc, type: "string_too_short", msg: `String should have at least ${min} characters`, params: { count: min } };
      if (issue.origin === "array" || issue.origin === "set") return { loc, type: "too_short", msg: `List should have at least ${min} items`, params: { count: min } };
      return issue.inclusive
        ? { loc, type: "greater_than_equal", msg: `Input should be greater than or equal to ${min}`, params: { limit: min } }
        : { loc, type: "greater_than", msg: `Input should be greater than ${min}`, params: { limit: min } };
    }
    case "too_big": {
      const max = Number(issue.maximum);
      if (issue.origin === "string") return { loc, type: "string_too_long", msg: `String should have at most ${max} characters`, params: { count: max } };
      if (issue.origin === "array" || issue.origin === "set") return { loc, type: "too_long", msg: `List should have at most ${max} items`, params: { count: max } };
      return issue.inclusive
        ? { loc, type: "less_than_equal", msg: `Input should be less than or equal to ${max}`, params: { limit: max } }
        : { loc, type: "less_than", msg: `Input should be less than ${max}`, params: { limit: max } };
    }
    case "invalid_value":
      return { loc, type: "enum", msg: `Input should be ${issue.values.map((v) => `'${String(v)}'`).join(" or ")}` };
    case "unrecognized_keys":
      return { loc: [...loc, issue.keys[0] ?? ""], type: "extra_forbidden", msg: "Extra inputs are not permitted" };
    case "invalid_format":
      return { loc, type: issue.format === "url" ? "url_parsing" : `${issue.format}_parsing`, msg: issue.message };
    case "custom": {
      // Rules written with .superRefine carry their spec entry type and params.
      const params = issue.params as { type?: string; params?: Record<string, unknown> } | undefined;
      const entry: ValidationEntry = { loc, type: params?.type ?? "value_error", msg: issue.message };
      if (params?.params) entry.params = params.params;
      return entry;
    }
    default:
      return { loc, type: "value_error", msg: issue.message };
  }
}

function valueAt(input: unknown, path: PropertyKey[]): unknown {
  let v: unknown = input;
  for (const p of path) {
    if (v === null || typeof v !== "object") return undefined;
    v = (v as Record<PropertyKey, unknown>)[p];
  }
  return v;
}

/** Parse `input` with `schema`, or throw a 422 `validation_error` whose entries are located under `where`. */
export function parse<S extends z.ZodType>(schema: S, input: unknown, where: Where = "body"): z.output<S> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  throw validationError(result.error.issues.map((i) => entryFor(i, where, input)));
}

/**
 * Add a spec-typed entry from inside `.superRefine`, e.g.
 * `addEntry(ctx, ["custom_headers"], "webhooks.custom_header_managed", "...")`.
 */
export function addEntry(ctx: z.RefinementCtx, path: (string | number)[], type: string, message: string, params?: Record<string, unknown>) {
  ctx.addIssue({ code: "custom", path, message, params: { type, params } });
}

/** The standard `limit`/`offset` list query of Webhooks and Inboxes: default 50, maximum 200. */
export const LIST_DEFAULT_LIMIT = 50;
export const LIST_MAX_LIMIT = 200;
export const offsetPageQuery = z.object({
  limit: z.coerce.number().int().min(1).max(LIST_MAX_LIMIT).default(LIST_DEFAULT_LIMIT),
  offset: z.coerce.number().int().min(0).default(0),
});

/** Slice a list into the `{data, total, limit, offset}` page shape of Webhooks and Inboxes. */
export function offsetPage<T>(items: T[], page: { limit: number; offset: number }) {
  return { data: items.slice(page.offset, page.offset + page.limit), total: items.length, limit: page.limit, offset: page.offset };
}
