/**
 * Creates whose outcome is unknown (provider/README.md, "Ownership", rules 1 and 2): a
 * POST sent and then answered 5xx or not at all may or may not have made the object.
 * The engine lists the kind (`reconcile` says how, when not at its create path) until the
 * reconcile window has passed since the send (the create may still be in flight inside
 * the service), and takes the object
 * carrying this resource's owner mark (owner.ts). Unmarked objects with the declared
 * fields, created since the send (on the service's clock, as its answers' `Date`
 * headers bound it) and held by no resource of the stack, are candidates that nothing
 * proves this create's: the create fails naming them (`UnresolvedCreate`) and the state
 * keeps the question (open-question.ts). Nothing found: the create is sent again.
 */
import { SvcUnknownOutcomeError, type SvcClient } from "../client";
import { CREATE_RESENDS } from "../client/retry";
import { record } from "../client/stats";
import { reconcileWindowSeconds } from "../config";
import { withArticle } from "../../rules/names";
import { fieldEqual } from "./diff";
import type { OperationContext, Props, ResourceDefinition } from "./fields";
import { jsonEqual } from "./json";
import { markedOwner } from "./owner";
import { objectId } from "./values";

/**
 * After a dropped connection (no answer), how long to wait before the first look: a
 * create still in flight inside the service usually lands by then.
 */
const IN_FLIGHT_GRACE_MS = 2_000;
/** Between looks while the reconcile window lasts. */
const POLL_MS = 1_500;
/**
 * Clock difference tolerated between this machine and the service when comparing
 * creation times, only for a service whose answers carry no `Date` header (its clock
 * is then unknown). With `Date`, the bound learnt from the answers is used instead.
 */
const UNDATED_CLOCK_SKEW_MS = 120_000;

/** What a create got: the service's answer, or its own object found by listing (`found`: its write-only fields are not known to be applied). */
export interface Created {
  object: Props;
  found: boolean;
}

/**
 * A lost create whose candidates cannot be proven this resource's: the create fails
 * naming them, and the state keeps the question (open-question.ts) so that no later run
 * passes over it. `since`: the service's time when the create was sent, at the earliest.
 */
export class UnresolvedCreate extends Error {
  constructor(
    message: string,
    readonly candidates: string[],
    readonly since: number,
  ) {
    super(message);
  }
}

/**
 * POST the create. The transport never repeats a create (a POST is not safe to repeat):
 * on an unknown outcome (no answer, or a 5xx) this looks for what it made (`lookForLost`),
 * and only when nothing was made sends it again, at most CREATE_RESENDS.afterLostAnswer
 * times after lost answers and CREATE_RESENDS.after5xx after 5xx answers.
 */
export async function createReconciled(def: ResourceDefinition, ctx: OperationContext, body: Props, inputs: Props): Promise<Created> {
  const { client } = ctx;
  const claims = ctx.operation.claims(ctx, def.kind);
  for (let resends = 0, failedAnswers = 0; ; resends++) {
    const sentAt = Date.now();
    let lost: SvcUnknownOutcomeError;
    try {
      const response = (await client.request<Props>({ method: "POST", path: def.paths.create, body, adoptHint: def.adoptHint })).body ?? {};
      claims.hold(objectId(def, response));
      return { object: response, found: false };
    } catch (err) {
      if (!(err instanceof SvcUnknownOutcomeError)) throw err;
      lost = err;
    }
    const found = await lookForLost(def, client, claims.held, body, inputs, lost, sentAt);
    if (found) {
      claims.hold(objectId(def, found));
      return { object: found, found: true };
    }
    if (!lost.unanswered && ++failedAnswers > CREATE_RESENDS.after5xx) throw repeatedFailure(def, lost, failedAnswers);
    if (resends >= CREATE_RESENDS.afterLostAnswer) throw lost;
    record.reconciled({ kind: def.kind, path: def.paths.create, result: "recreated" });
  }
}

/**
 * Look for what a lost create made, until the reconcile window has passed since the send
 * (the create may still land inside the service). Its own (marked) object: returned.
 * Unmarked candidates, once the window has passed (the create's own object may land after
 * another's look-alike, and the question must name both): UnresolvedCreate. None: undefined.
 */
async function lookForLost(def: ResourceDefinition, client: SvcClient, held: ReadonlySet<string>, body: Props, inputs: Props, lost: SvcUnknownOutcomeError, sentAt: number): Promise<Props | undefined> {
  const token = markedOwner(def, body);
  const deadline = sentAt + reconcileWindowSeconds() * 1000;
  await sleepUntil(Math.min(deadline, sentAt + IN_FLIGHT_GRACE_MS));
  for (;;) {
    let items: Props[];
    try {
      items = await listObjects(def, client, body, inputs);
    } catch (listErr) {
      // Still unknown: the same error, saying why the object could not be looked for.
      throw new SvcUnknownOutcomeError(lost.method, lost.path, lost.requestId, lost.what, `${def.adoptHint} (Looking for it by listing the ${def.noun}s failed: ${(listErr as Error).message})`);
    }
    const own = token === undefined ? undefined : items.find((item) => markedOwner(def, item) === token);
    if (own) {
      record.reconciled({ kind: def.kind, path: def.paths.create, result: "adopted", id: objectId(def, own) });
      return own;
    }
    if (Date.now() >= deadline) {
      const since = client.serviceClock.earliestAt(sentAt) ?? sentAt - UNDATED_CLOCK_SKEW_MS;
      const ids = token === undefined ? candidates(def, items, held, body, inputs, since) : [];
      if (ids.length === 0) return undefined;
      record.reconciled({ kind: def.kind, path: def.paths.create, result: "ambiguous", candidates: ids });
      throw new UnresolvedCreate(`${lost.message}\nAfter that, ${unprovenMessage(def, ids)}`, ids, since);
    }
    await sleepUntil(Math.min(deadline, Date.now() + POLL_MS));
  }
}

/** The service answered 5xx to every attempt, and no attempt made an object (each was looked for). */
function repeatedFailure(def: ResourceDefinition, last: SvcUnknownOutcomeError, attempts: number): Error {
  return new Error(
    `${last.method} ${last.path}: the service failed this create ${attempts} times (last: ${last.what}; request id ${last.requestId}), and no ${def.noun} was made ` +
      `(looked for after each attempt). It was not sent again: a create the service fails every time is usually refused for a value it cannot handle. ` +
      `Check the ${def.noun}'s inputs, then run again.`,
  );
}

/** Invariant 2: the unproven candidates and what to do. */
export function unprovenMessage(def: ResourceDefinition, ids: string[]): string {
  const owner = def.ownerField ? ` (it was not marked as this resource's: the program sets \`${def.ownerField}\`, where an unset one carries the owner mark)` : "";
  return (
    `${ids.length === 1 ? `${withArticle(def.noun)} matching this resource was found` : `${ids.length} ${def.noun}s matching this resource were found`}, created since the request was sent and held by no other resource of the stack: ${ids.join(", ")}. ` +
    `It may be the one this create made, or another stack's or person's identical ${def.noun}; nothing proves which${owner}, so the provider took none and made no other. ` +
    `The state keeps this question until it is answered: adopt the one that is this resource's (${def.adoptHint.replace(/\.$/, "")}), or delete those that are this stack's extras, then run \`pulumi up\` again. ` +
    `If none is this stack's, run \`pulumi state delete <this resource's URN>\` and \`pulumi up\`: a new one is made.`
  );
}

const sleepUntil = (at: number) => (at > Date.now() ? new Promise((resolve) => setTimeout(resolve, at - Date.now())) : Promise.resolve());

/**
 * The ids of the unmarked objects of `items` that may be a create's (sent when the
 * service's clock read `since` at the earliest): the declared fields (or the definition's
 * own match), created since, held by no resource of the operation. The same judgement
 * asks an earlier run's question again (open-question.ts), with that run's `since`.
 */
export function candidates(def: ResourceDefinition, items: Props[], held: ReadonlySet<string>, body: Props, inputs: Props, since: number): string[] {
  const matches = def.reconcile?.matches ?? ((remote: Props, b: Props) => sameDeclaredFields(def, remote, b));
  return items.filter((item) => matches(item, body, inputs) && !held.has(objectId(def, item)) && !createdBefore(item, since)).map((item) => objectId(def, item));
}

/** Every object of the kind where the create would have made it (the definition's `reconcile.list`, else the create path). */
export async function listObjects(def: ResourceDefinition, client: SvcClient, body: Props, inputs: Props): Promise<Props[]> {
  const where = def.reconcile?.list ? def.reconcile.list(body, inputs) : { path: def.paths.create, query: typeof body.project_id === "string" ? { project_id: body.project_id } : {} };
  return "cursor" in where && where.cursor ? client.listAllByCursor<Props>(where.path, where.query) : client.listAll<Props>(where.path, where.query);
}

/**
 * Was `item` certainly created before the service's clock read `at`? Then no request sent
 * by then made it. A `created_at` in whole seconds may be up to a second early. Undated
 * objects are never ruled out.
 */
function createdBefore(item: Props, at: number): boolean {
  if (typeof item.created_at !== "string") return false;
  const created = Date.parse(item.created_at);
  if (Number.isNaN(created)) return false;
  const latest = /\.\d/.test(item.created_at) ? created : created + 999;
  return latest < at;
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
