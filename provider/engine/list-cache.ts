/**
 * Batched reads for refresh. A refresh reads every resource of the stack, one
 * `read()` each; for N objects of one kind that is N GETs. When reads of a kind come
 * in a burst (at least BURST_READS within BURST_WINDOW_MS, as in a refresh), the
 * engine instead lists the kind once (every page: ceil(N/200) calls) and serves the
 * following reads from that listing.
 *
 * Correctness:
 * - the listing lives in this operation only (claims.ts `reads`), while the burst goes on (no gap over
 *   BURST_WINDOW_MS between reads) and for LISTING_TTL_MS at most: one refresh;
 * - any write made through the same client invalidates it (the client counts writes);
 * - an id the listing does not hold is read with a GET as before (404: gone), so an
 *   object created after the listing, or deleted out of band, is judged by the service;
 * - a kind whose listing fails (a key that cannot list) falls back to GETs for good;
 * - a kind with more than MAX_LISTED objects in the workspace is not listed: a small
 *   stack in a big shared workspace reads its objects with GETs instead of paging
 *   through everyone's (the first page, which tells the total, is the only extra call).
 */
import { ListTooLongError } from "../client";
import type { OperationContext, Props, ResourceDefinition } from "./fields";
import { objectId } from "./values";

export const BURST_READS = 3;
export const BURST_WINDOW_MS = 1_000;
export const LISTING_TTL_MS = 10_000;
/** Objects of a kind beyond which a burst reads with GETs (10 pages of 200). */
export const MAX_LISTED = 2_000;


/**
 * The object `id` as the current listing of its kind shows it, or undefined when the
 * read should be a GET (no burst, no listing, not listed, or listing failed).
 */
export async function readFromListing(def: ResourceDefinition, ctx: OperationContext, id: string): Promise<Props | undefined> {
  // SVC_BATCHED_READS=0 turns batching off (one GET per read, as before; the benchmark's "before").
  // Only kinds listed at their create path in offset pages (no own `reconcile.list`) are batched.
  if (def.reconcile?.list || def.singleton || process.env.SVC_BATCHED_READS === "0") return undefined;
  const { client } = ctx;
  const s = ctx.operation.claims(ctx, def.kind).reads;
  if (s.unlistable) return undefined;
  const now = Date.now();
  let listing = s.listing;
  // Kept only while the burst goes on, for one refresh at most, and never past a write of ours.
  if (listing && (listing.writes !== client.writeCount || now - listing.at > LISTING_TTL_MS || now - listing.lastUsed > BURST_WINDOW_MS)) listing = s.listing = undefined;
  if (!listing) {
    s.recent = s.recent.filter((t) => now - t <= BURST_WINDOW_MS);
    s.recent.push(now);
    if (s.recent.length < BURST_READS) return undefined;
    s.recent = [];
    const writes = client.writeCount;
    const items = client.listAll<Props>(def.paths.create, {}, 200, MAX_LISTED).then((list) => new Map(list.map((item) => [objectId(def, item), item] as const)));
    listing = s.listing = { writes, at: now, lastUsed: now, items };
  }
  listing.lastUsed = now;
  try {
    return (await listing.items).get(id);
  } catch (err) {
    // Too many to list: this burst reads with GETs (the failed listing stays until the burst ends).
    if (err instanceof ListTooLongError) return undefined;
    s.unlistable = true;
    s.listing = undefined;
    return undefined;
  }
}
