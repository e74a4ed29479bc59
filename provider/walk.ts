/**
 * How the read functions (functions.ts, and the SDK's others) walk an offset-paged list (`{data, total, limit,
 * offset}`) while objects keep arriving. The rule (`npm run generate` puts it, from point
 * 1 on, on the reference page docs/reference/functions.md):
 *
 * 1. Every walk keeps each object once (by id; an event type, which has none, by
 *    project and name). An object that arrives while the walk runs pushes
 *    the ones below it down a page, so the next page repeats some already read:
 *    they are dropped (the newest copy of their fields is kept, in the place first
 *    seen). An arrival never makes a walk skip an object, since it only moves the
 *    rest further down.
 * 2. A newest-first list with an inclusive `until` bound (deliveries, inbox messages)
 *    is first asked for its newest item (one request, `limit=1`), and then walked with
 *    `until` fixed at that item's time: the result is the list as it stood when the
 *    walk began, and objects arriving during the walk are left for the next call.
 *    (Without the bound a busy list could keep the walk going as long as arrivals
 *    outpace it.)
 * 3. Pages overlap, and each page after the first must hold an object already read:
 *    then nothing lies between what was read and the new page. An object deleted
 *    during the walk moves the rest up; when a page holds nothing already read, the
 *    walk steps back a page, reads on from there and doubles the overlap (from one
 *    object up to half a page), so deletions never make it miss another object.
 *    Objects deleted during the walk may or may not come back.
 */
import type { SvcClient, RequestOptions } from "./client";

type Item = Record<string, unknown>;

/** What tells two items of a list apart. */
export type ItemKey = (item: Item) => unknown;
const byId: ItemKey = (item) => item["id"];

/** Each key once, in the order first seen, with the fields last read. */
function unique<T extends Item>(items: T[], key: ItemKey): T[] {
  const seen = new Map<unknown, T>();
  for (const item of items) seen.set(key(item), item);
  return [...seen.values()];
}

const PAGE_SIZE = 200;

/** Every item of an offset-paged list, each once (rules 1 and 3). */
export async function walkList<T extends Item>(client: SvcClient, path: string, query: RequestOptions["query"] = {}, key: ItemKey = byId): Promise<T[]> {
  const items: T[] = [];
  const read = new Set<unknown>();
  let overlap = 1;
  for (let offset = 0; ; ) {
    const page = await client.request<{ data?: T[]; total?: number }>({ method: "GET", path, query: { ...query, limit: PAGE_SIZE, offset } });
    // An answer that is no list page must not pass for an empty list.
    if (!Array.isArray(page.body?.data)) throw new Error(`GET ${path} did not answer a list page ({data, total, limit, offset}).`);
    const data = page.body.data;
    if (offset > 0 && !data.some((item) => read.has(key(item)))) {
      // Deletions moved everything read before this page: read on from a page earlier, with more overlap.
      offset = Math.max(0, offset - (PAGE_SIZE - 1));
      overlap = Math.min(overlap * 2, PAGE_SIZE / 2);
      continue;
    }
    items.push(...data);
    for (const item of data) read.add(key(item));
    const end = offset + data.length;
    if (data.length < PAGE_SIZE || (typeof page.body.total === "number" && end >= page.body.total)) return unique(items, key);
    offset = end - overlap;
  }
}

/**
 * Every item of a newest-first list with an inclusive `until`, as it stood when the
 * walk began (rule 2). `timeField` is the field `until` bounds (`created_at`,
 * `received_at`).
 */
export async function walkNewestFirst<T extends Item>(client: SvcClient, path: string, query: RequestOptions["query"], timeField: string): Promise<T[]> {
  const head = await client.request<{ data?: T[] }>({ method: "GET", path, query: { ...query, limit: 1, offset: 0 } });
  const newest = head.body?.data?.[0]?.[timeField];
  if (typeof newest !== "string") return walkList<T>(client, path, query);
  return walkList<T>(client, path, { ...query, until: newest });
}
