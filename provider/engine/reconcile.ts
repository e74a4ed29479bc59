/**
 * Creates whose outcome is unknown. A POST that was sent and then lost its
 * connection, or got a 5xx, may or may not have made the object; sending it again
 * blindly could make a duplicate, and giving up could leave an orphan. So, for every
 * kind that can be listed, the engine lists the objects after the unknown outcome
 * and looks for the one the create made: same declared fields (those the service
 * returns), created since the request was sent, not an object this process already
 * knows. Then:
 *   - exactly one: adopted (the create's answer is the listed object);
 *   - none: the create never happened; it is sent again (a few times at most);
 *   - several: fail, naming every candidate's id, so a person picks one with the
 *     resource's adopt setting and deletes the others.
 * After a dropped connection the listing waits IN_FLIGHT_GRACE_MS first, so that a
 * create still in flight inside the service has landed by then.
 * A definition says how to list and match (`reconcile`), or `reconcile: false` to
 * keep the plain unknown-outcome error.
 */
import { SvcUnknownOutcomeError, type SvcClient } from "../client";
import { record } from "../client/stats";
import { fieldEqual } from "./diff";
import type { Props, ResourceDefinition } from "./fields";
import { jsonEqual } from "./json";

/** How a kind lists its objects and recognises the one a create made. */
export interface ReconcileSpec {
  /** Where to list (default: the create path, with `project_id` when the create body has one). */
  list?(body: Props, inputs: Props): { path: string; query?: Record<string, string | undefined> };
  /** Is this listed object the one `body` would have made? Default: every returned field sent on create is equal. */
  matches?(remote: Props, body: Props, inputs: Props): boolean;
}

/** Creates sent again after finding nothing, before giving up with the unknown outcome. */
const MAX_RESENDS = 4;
/**
 * After a dropped connection (no answer), how long to wait before listing: the create
 * may still be in flight inside the service, and a listing made at once would show
 * nothing yet and send the create again, making a duplicate. A 5xx needs no wait: the
 * service answered, so it is done with the request.
 */
export const IN_FLIGHT_GRACE_MS = 2_000;
/** Clock difference tolerated between this machine and the service when comparing creation times. */
const CLOCK_SKEW_MS = 120_000;

/** Ids this process created or adopted, per kind: never taken for another create's object. */
const known = new Map<string, Set<string>>();

export function rememberId(kind: string, id: string): void {
  let ids = known.get(kind);
  if (!ids) known.set(kind, (ids = new Set()));
  ids.add(id);
}

/**
 * POST the create; on an unknown outcome, list and adopt, send again, or fail naming
 * the candidates. Returns the create's answer (or the adopted object as listed).
 */
export async function createReconciled(def: ResourceDefinition, client: SvcClient, body: Props, inputs: Props, idOf: (response: Props) => string): Promise<Props> {
  for (let resends = 0; ; resends++) {
    const sentAt = Date.now();
    let unknown: SvcUnknownOutcomeError;
    try {
      const response = (await client.request<Props>({ method: "POST", path: def.paths.create, body, adoptHint: def.adoptHint })).body ?? {};
      rememberId(def.kind, idOf(response));
      return response;
    } catch (err) {
      if (!(err instanceof SvcUnknownOutcomeError) || def.reconcile === false) throw err;
      unknown = err;
    }
    if (unknown.unanswered) await new Promise((resolve) => setTimeout(resolve, IN_FLIGHT_GRACE_MS));
    let candidates: Props[];
    try {
      candidates = await findCreated(def, client, body, inputs, sentAt, idOf);
    } catch (listErr) {
      // Still unknown: the same error, saying why the object could not be looked for.
      throw new SvcUnknownOutcomeError(unknown.method, unknown.path, unknown.requestId, unknown.what, `${def.adoptHint} (Looking for it by listing the ${def.noun}s failed: ${(listErr as Error).message})`);
    }
    if (candidates.length === 1) {
      const id = idOf(candidates[0]!);
      rememberId(def.kind, id);
      record.reconciled({ kind: def.kind, path: def.paths.create, result: "adopted", id });
      return candidates[0]!;
    }
    if (candidates.length > 1) {
      const ids = candidates.map(idOf);
      record.reconciled({ kind: def.kind, path: def.paths.create, result: "ambiguous", candidates: ids });
      throw new Error(
        `${unknown.message}\nAfter that, ${ids.length} ${def.noun}s matching this resource were found, created since the request was sent: ${ids.join(", ")}. ` +
          `One of them is probably the one this create made. Adopt one (${def.adoptHint}) and delete the others.`,
      );
    }
    if (resends >= MAX_RESENDS) throw unknown;
    record.reconciled({ kind: def.kind, path: def.paths.create, result: "recreated" });
  }
}

async function findCreated(def: ResourceDefinition, client: SvcClient, body: Props, inputs: Props, sentAt: number, idOf: (r: Props) => string): Promise<Props[]> {
  const spec = def.reconcile || {};
  const where = spec.list ? spec.list(body, inputs) : { path: def.paths.create, query: typeof body.project_id === "string" ? { project_id: body.project_id } : {} };
  const items = await client.listAll<Props>(where.path, where.query);
  const matches = spec.matches ?? ((remote: Props, b: Props) => sameDeclaredFields(def, remote, b));
  const mine = known.get(def.kind);
  return items.filter((item) => {
    if (!matches(item, body, inputs)) return false;
    if (mine?.has(idOf(item))) return false;
    const created = typeof item.created_at === "string" ? Date.parse(item.created_at) : Number.NaN;
    return Number.isNaN(created) || created >= sentAt - CLOCK_SKEW_MS;
  });
}

/** Every field the create sent that the service returns (write-only ones aside) has the sent value. */
export function sameDeclaredFields(def: ResourceDefinition, remote: Props, body: Props): boolean {
  for (const spec of Object.values(def.fields)) {
    if (!spec.api || spec.writeOnly || spec.mode === "action" || spec.mode === "local" || !(spec.api in body)) continue;
    const sent = body[spec.api];
    const got = remote[spec.api];
    if (spec.equal ? !fieldEqual(spec, sent, got) : !contains(got, sent)) return false;
  }
  return true;
}

/** `got` holds everything `sent` says (objects may carry more keys, e.g. defaults the service added). */
function contains(got: unknown, sent: unknown): boolean {
  if (sent === null || sent === undefined) return got === null || got === undefined;
  if (Array.isArray(sent)) return Array.isArray(got) && got.length === sent.length && sent.every((s, i) => contains(got[i], s));
  if (typeof sent === "object") {
    if (!got || typeof got !== "object" || Array.isArray(got)) return false;
    return Object.entries(sent as Props).every(([k, v]) => contains((got as Props)[k], v));
  }
  return jsonEqual(got, sent);
}
