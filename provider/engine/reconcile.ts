/**
 * Creates whose outcome is unknown (provider/README.md, "Ownership", rules 1 and 2): a
 * POST sent and then answered 5xx or not at all may or may not have made the object.
 * For every kind that can be listed (`reconcile`; `false`: the unknown-outcome error is
 * thrown), the engine lists the objects until the reconcile window has passed since the
 * send (the create may still be in flight inside the service), and takes the object
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
import type { KindClaims } from "./claims";
import { fieldEqual } from "./diff";
import type { OperationContext, Props, ResourceDefinition } from "./fields";
import { jsonEqual } from "./json";
import { markedOwner } from "./owner";
import { objectId } from "./values";

/**
 * After a dropped connection (no answer), how long to wait before the first look: a
 * create still in flight inside the service usually lands by then.
 */
export const IN_FLIGHT_GRACE_MS = 2_000;
/** Between looks while the reconcile window lasts. */
const POLL_MS = 1_500;
/**
 * Clock difference tolerated between this machine and the service when comparing
 * creation times, only for a service whose answers carry no `Date` header (its clock
 * is then unknown). With `Date`, the bound learnt from the answers is used instead.
 */
const UNDATED_CLOCK_SKEW_MS = 120_000;

/** One create and everything its reconciliation needs. */
interface CreateCall {
  def: ResourceDefinition;
  client: SvcClient;
  body: Props;
  inputs: Props;
  claims: KindClaims;
  /** The owner token the body writes on the object (owner.ts), when it is marked. */
  token: string | undefined;
  /** The kind can be listed: an unknown outcome is looked for (`reconcile: false`: it is thrown). */
  reconciles: boolean;
  windowMs: number;
}

/** What a create got: the service's answer, or its own object found by listing (`found`: its write-only fields are not known to be applied). */
export interface Created {
  object: Props;
  found: boolean;
}

/**
 * A lost create whose candidates cannot be proven this resource's: the create fails
 * naming them, and the state keeps the question (operations.ts) so that no later run
 * passes over it.
 */
export class UnresolvedCreate extends Error {
  constructor(
    message: string,
    readonly candidates: string[],
    readonly sentAt: number,
  ) {
    super(message);
  }
}

/**
 * The states of one create's reconciliation. Each arrow is one function below. The
 * transport never repeats a create (a POST is not safe to repeat); whether to send it
 * again is decided here, within client/retry.ts's CREATE_RESENDS:
 *
 *   send ──(answered)──▶ done
 *     │ (refused: nothing made) ──▶ thrown
 *     ▼ (unknown outcome: no answer, or a 5xx)
 *   answerLost ──look──▶ its own object (marked) | UnresolvedCreate (unmarked candidates)
 *     │ (nothing found)
 *     ▼
 *   resend: send again, at most CREATE_RESENDS.afterLostAnswer times after lost
 *     answers and CREATE_RESENDS.after5xx after 5xx answers; past them, thrown.
 */
type Attempt = { state: "answered"; object: Props } | { state: "answerLost"; lost: SvcUnknownOutcomeError; sentAt: number };

/** How many creates were sent again so far, and how many of them the service answered 5xx. */
interface Sends {
  resends: number;
  failedAnswers: number;
}

/**
 * POST the create; on an unknown outcome, take its own object, send it again, or fail
 * naming the candidates (the states above).
 */
export async function createReconciled(def: ResourceDefinition, { operation, client }: OperationContext, body: Props, inputs: Props): Promise<Created> {
  const reconciles = def.reconcile !== false;
  const c: CreateCall = {
    def,
    client,
    body,
    inputs,
    claims: operation.claims(client, def.kind),
    token: markedOwner(def, body),
    reconciles,
    windowMs: reconciles ? reconcileWindowSeconds() * 1000 : 0,
  };
  const sends: Sends = { resends: 0, failedAnswers: 0 };
  for (;;) {
    const attempt = await send(c);
    if (attempt.state === "answered") return { object: attempt.object, found: false };
    const found = await lookForLost(c, attempt);
    if (found) return { object: found, found: true };
    resendOrGiveUp(c, attempt, sends);
  }
}

/** One POST. Answered: its object is held at once. Refused: nothing was made, thrown. */
async function send(c: CreateCall): Promise<Attempt> {
  const sentAt = Date.now();
  const inFlight = c.claims.sending();
  try {
    const response = (await c.client.request<Props>({ method: "POST", path: c.def.paths.create, body: c.body, adoptHint: c.def.adoptHint })).body ?? {};
    c.claims.hold(objectId(c.def, response));
    return { state: "answered", object: response };
  } catch (err) {
    if (err instanceof SvcUnknownOutcomeError && c.reconciles) return { state: "answerLost", lost: err, sentAt };
    throw err;
  } finally {
    inFlight();
  }
}

/**
 * Look for what a lost create made, until the window has passed (the create may still
 * land inside the service). Its own (marked) object: returned. Unmarked candidates:
 * UnresolvedCreate. None: undefined.
 */
async function lookForLost(c: CreateCall, attempt: Extract<Attempt, { state: "answerLost" }>): Promise<Props | undefined> {
  const { lost, sentAt } = attempt;
  const deadline = sentAt + c.windowMs;
  await sleepUntil(Math.min(deadline, sentAt + IN_FLIGHT_GRACE_MS));
  for (;;) {
    let look: { own?: Props; candidates: Props[] };
    try {
      look = await lookOnce(c, sentAt);
    } catch (listErr) {
      // Still unknown: the same error, saying why the object could not be looked for.
      throw new SvcUnknownOutcomeError(lost.method, lost.path, lost.requestId, lost.what, `${c.def.adoptHint} (Looking for it by listing the ${c.def.noun}s failed: ${(listErr as Error).message})`);
    }
    if (look.own) {
      const id = objectId(c.def, look.own);
      c.claims.hold(id);
      record.reconciled({ kind: c.def.kind, path: c.def.paths.create, result: "adopted", id });
      return look.own;
    }
    // Unmarked candidates are judged once the window has passed: the create's own object
    // may land after another's look-alike, and the question must name both.
    if (Date.now() >= deadline && look.candidates.length > 0) {
      const ids = look.candidates.map((item) => objectId(c.def, item));
      record.reconciled({ kind: c.def.kind, path: c.def.paths.create, result: "ambiguous", candidates: ids });
      throw new UnresolvedCreate(`${lost.message}\nAfter that, ${unprovenMessage(c.def, ids)}`, ids, sentAt);
    }
    if (Date.now() >= deadline) return undefined;
    await sleepUntil(Math.min(deadline, Date.now() + POLL_MS));
  }
}

/** Nothing was made: send again within the limits, or throw (the service keeps failing it, or the answers keep getting lost). */
function resendOrGiveUp(c: CreateCall, attempt: Extract<Attempt, { state: "answerLost" }>, sends: Sends): void {
  const { lost } = attempt;
  if (!lost.unanswered && ++sends.failedAnswers > CREATE_RESENDS.after5xx) throw repeatedFailure(c.def, lost, sends.failedAnswers);
  if (sends.resends >= CREATE_RESENDS.afterLostAnswer) throw lost;
  sends.resends++;
  record.reconciled({ kind: c.def.kind, path: c.def.paths.create, result: "recreated" });
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
    `${ids.length === 1 ? `${/^[aeiou]/.test(def.noun) ? "an" : "a"} ${def.noun} matching this resource was found` : `${ids.length} ${def.noun}s matching this resource were found`}, created since the request was sent and held by no other resource of the stack: ${ids.join(", ")}. ` +
    `It may be the one this create made, or another stack's or person's identical ${def.noun}; nothing proves which${owner}, so the provider took none and made no other. ` +
    `The state keeps this question until it is answered: adopt the one that is this resource's (${def.adoptHint.replace(/\.$/, "")}), or delete those that are this stack's extras, then run \`pulumi up\` again. ` +
    `If none is this stack's, run \`pulumi state delete <this resource's URN>\` and \`pulumi up\`: a new one is made.`
  );
}

/** One look: this create's own object (marked), else the unmarked candidates held by no resource. */
async function lookOnce(c: CreateCall, sentAt: number): Promise<{ own?: Props; candidates: Props[] }> {
  const items = await listObjects(c.def, c.client, c.body, c.inputs);
  if (c.token !== undefined) return { own: items.find((item) => markedOwner(c.def, item) === c.token), candidates: [] };
  // An object a create of this run made whose answer is still on its way would look unheld.
  await c.claims.settled();
  return { candidates: items.filter((item) => isCandidate(c, item, sentAt)) };
}

/**
 * An earlier run's unmarked lost create, asked again (open-question.ts): every object
 * that may be its own now, listed afresh (one made late is named too), held by no
 * resource of this operation. The earlier run's clock is not this client's: created
 * before `sentAt` is judged with the undated skew.
 */
export async function candidatesNow(def: ResourceDefinition, client: SvcClient, held: ReadonlySet<string>, body: Props, inputs: Props, sentAt: number): Promise<string[]> {
  const items = await listObjects(def, client, body, inputs);
  return items.filter((item) => unheldMatch(def, held, item, body, inputs) && !createdBeforeServiceTime(item, sentAt - UNDATED_CLOCK_SKEW_MS)).map((item) => objectId(def, item));
}

const sleepUntil = (at: number) => (at > Date.now() ? new Promise((resolve) => setTimeout(resolve, at - Date.now())) : Promise.resolve());

/** An unmarked object that may be the create's: same declared fields, created since it was sent, held by no resource of the stack. */
function isCandidate(c: CreateCall, item: Props, sentAt: number): boolean {
  return unheldMatch(c.def, c.claims.held, item, c.body, c.inputs) && !createdBefore(c.client, item, sentAt);
}

/** Has the declared fields (or the definition's own match) and no resource of the operation holds it. */
function unheldMatch(def: ResourceDefinition, held: ReadonlySet<string>, item: Props, body: Props, inputs: Props): boolean {
  const matches = (def.reconcile || {}).matches ?? ((remote: Props, b: Props) => sameDeclaredFields(def, remote, b));
  return matches(item, body, inputs) && !held.has(objectId(def, item));
}

/** Every object of the kind where the create would have made it (the definition's `reconcile.list`, else the create path). */
export async function listObjects(def: ResourceDefinition, client: SvcClient, body: Props, inputs: Props): Promise<Props[]> {
  const spec = def.reconcile || {};
  const where = spec.list ? spec.list(body, inputs) : { path: def.paths.create, query: typeof body.project_id === "string" ? { project_id: body.project_id } : {} };
  return "cursor" in where && where.cursor ? client.listAllByCursor<Props>(where.path, where.query) : client.listAll<Props>(where.path, where.query);
}

/**
 * Was `item` certainly created before this machine's clock read `sentAt`? Then no
 * request sent at `sentAt` made it. Judged on the service's clock (service-clock.ts):
 * the service read at least `earliest` when the request was sent, and an object it
 * made for the request is dated at or after that. A `created_at` in whole seconds
 * may be up to a second early. Undated objects are never ruled out.
 */
function createdBefore(client: SvcClient, item: Props, sentAt: number): boolean {
  return createdBeforeServiceTime(item, client.serviceClock.earliestAt(sentAt) ?? sentAt - UNDATED_CLOCK_SKEW_MS);
}

/** Was `item` certainly created before the service's clock read `at`? */
function createdBeforeServiceTime(item: Props, at: number): boolean {
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
