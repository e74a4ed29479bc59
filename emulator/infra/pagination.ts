/**
 * Cursor pagination of the infrastructure lists (spec document 3, Pagination):
 * `limit` (default 50, maximum 200; above is 422), `cursor`, the standard filters
 * `created_after|before`, `updated_after|before` (RFC 3339, exclusive bounds),
 * `region`, `state`, and `sort` (`created_at`, `updated_at`, `name`, `-` for
 * descending; default `-created_at`). Response `{items, pagination: {next_cursor,
 * total_count: null}}`.
 *
 * A cursor is base64url JSON `{f, k}` plus an HMAC: `f` fingerprints the list, its
 * filters and its sort, `k` is the last item's position (sort value and id, so
 * items created meanwhile neither repeat nor shift the page). A cursor that was
 * altered or built is 422 `cursor_invalid`; one reused with other filters or sort
 * is 422 `cursor_mismatch`.
 */
import { createHash, createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import type { FastifyRequest } from "fastify";
import { z } from "zod";
import { validationError } from "../core/errors";
import { parse } from "../core/validation";
import type { Listed } from "./state";

export const CURSOR_DEFAULT_LIMIT = 50;
export const CURSOR_MAX_LIMIT = 200;
export const SORTS = ["created_at", "-created_at", "updated_at", "-updated_at", "name", "-name"] as const;

/** Per emulator process: cursors cannot be built outside it. */
const SECRET = randomBytes(32);
const RFC3339 = /^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;

const timestamp = z.string().transform((v, c) => {
  const t = Date.parse(v);
  if (!RFC3339.test(v) || Number.isNaN(t)) {
    c.addIssue({ code: "custom", message: "Input should be an RFC 3339 timestamp", params: { type: "datetime_parsing" } });
    return z.NEVER;
  }
  return t;
});

const listQuery = z.object({
  limit: z.coerce.number().int().min(1).max(CURSOR_MAX_LIMIT).default(CURSOR_DEFAULT_LIMIT),
  cursor: z.string().min(1).optional(),
  created_after: timestamp.optional(),
  created_before: timestamp.optional(),
  updated_after: timestamp.optional(),
  updated_before: timestamp.optional(),
  region: z.string().min(1).optional(),
  state: z.string().min(1).optional(),
  sort: z.enum(SORTS).default("-created_at"),
});
type ListQuery = z.output<typeof listQuery>;

const sign = (payload: string) => createHmac("sha256", SECRET).update(payload).digest();

function encodeCursor(fingerprint: string, key: [string, string]): string {
  const payload = Buffer.from(JSON.stringify({ f: fingerprint, k: key })).toString("base64url");
  return `${payload}.${sign(payload).toString("base64url")}`;
}

function decodeCursor(cursor: string, fingerprint: string): [string, string] {
  const invalid = () => validationError([{ loc: ["query", "cursor"], type: "cursor_invalid", msg: "The cursor is not one this list issued; start a new listing without cursor." }]);
  const [payload, mac, ...rest] = cursor.split(".");
  if (!payload || !mac || rest.length > 0) throw invalid();
  const given = Buffer.from(mac, "base64url");
  const expected = sign(payload);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw invalid();
  const decoded = JSON.parse(Buffer.from(payload, "base64url").toString("utf8")) as { f: string; k: [string, string] };
  if (decoded.f !== fingerprint) {
    throw validationError([{ loc: ["query", "cursor"], type: "cursor_mismatch", msg: "The cursor belongs to a listing with other filters or sort; changing them starts a new listing without cursor." }]);
  }
  return decoded.k;
}

function matches(item: Listed, q: ListQuery): boolean {
  const created = Date.parse(item.created_at);
  const updated = Date.parse(item.updated_at);
  return (
    (q.created_after === undefined || created > q.created_after) &&
    (q.created_before === undefined || created < q.created_before) &&
    (q.updated_after === undefined || updated > q.updated_after) &&
    (q.updated_before === undefined || updated < q.updated_before) &&
    (q.region === undefined || item.region === q.region) &&
    (q.state === undefined || item.state === q.state)
  );
}

/** One page of `items` (already limited to the caller's project) for the request's query; `view` renders an item. */
export function cursorPage<T extends Listed>(req: FastifyRequest, list: string, items: T[], view: (item: T) => unknown) {
  const q = parse(listQuery, req.query, "query");
  const { limit: _limit, cursor, ...filters } = q;
  const fingerprint = createHash("sha256").update(JSON.stringify([list, filters])).digest("base64url");
  const field = q.sort.replace(/^-/, "") as "created_at" | "updated_at" | "name";
  const dir = q.sort.startsWith("-") ? -1 : 1;
  const keyOf = (i: T): [string, string] => [i[field], i.id];
  const cmp = (a: [string, string], b: [string, string]) => dir * (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0);

  let rows = items.filter((i) => matches(i, q)).sort((a, b) => cmp(keyOf(a), keyOf(b)));
  if (cursor !== undefined) {
    const after = decodeCursor(cursor, fingerprint);
    rows = rows.filter((i) => cmp(keyOf(i), after) > 0);
  }
  const page = rows.slice(0, q.limit);
  const more = rows.length > q.limit;
  return {
    items: page.map(view),
    pagination: { next_cursor: more ? encodeCursor(fingerprint, keyOf(page[page.length - 1]!)) : null, total_count: null },
  };
}
