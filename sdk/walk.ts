/**
 * How the SDK's data functions walk an offset-paged list (`{data, total, limit,
 * offset}`) while objects keep arriving. The rule (`npm run docs` puts it, from point
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
 *
 * Objects deleted during a walk can still be missed: the service's offsets give no
 * way to notice them.
 */
import type { SvcClient, RequestOptions } from "../provider/client";

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

/** Every item of an offset-paged list, each once (rule 1). */
export async function walkList<T extends Item>(client: SvcClient, path: string, query: RequestOptions["query"] = {}, key: ItemKey = byId): Promise<T[]> {
  return unique(await client.listAll<T>(path, query), key);
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
