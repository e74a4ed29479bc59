/**
 * Creates whose outcome is unknown, held to the invariants in provider/README.md (no
 * silent duplicate, no orphan; when unsure, fail naming the candidates). A POST that
 * was sent and then lost its connection, or got a 5xx, may or may not have made the
 * object; sending it again blindly could make a duplicate, and giving up could leave
 * an orphan. So, for every kind that can be listed, the engine lists the objects and
 * looks for the one the create made: same declared fields (those the service
 * returns), created since the request was sent (on the service's clock, as its
 * answers' `Date` headers bound it), held by no resource of the stack
 * (claims.ts), and not the answer of an earlier run's create (create-journal.ts).
 *
 * - A lost answer (no answer at all): the create may still be in flight inside the
 *   service, so the engine keeps looking (first after IN_FLIGHT_GRACE_MS, then every
 *   POLL_MS) until the reconcile window (`svc:reconcileWindowSeconds`) has passed since
 *   the request was sent; only then does it decide that nothing was made and send the
 *   create again. Never a second create inside the window.
 * - A 5xx answer: the service answered, so it looks once; when nothing is there it
 *   sends the create again at once, then keeps watching until the window has passed:
 *   an object matching the lost create that appears meanwhile may be the first
 *   attempt's (a create that acted behind a gateway's 5xx) or another stack's or
 *   person's identical one made meanwhile. The provider cannot tell, so it deletes
 *   nothing: the create keeps its own object and fails naming the other (invariant 2).
 * - Look-alike resources (several resources declaring the same fields) whose answers
 *   were lost share the matching candidates one each; a candidate is taken only once
 *   no create of the kind still in flight could turn out to own it.
 * - More candidates than lost look-alikes (someone else made an identical object), or
 *   candidates of an interrupted run the engine cannot tell apart: the create fails
 *   naming every candidate's id and what to do (adopt one with the resource's adopt
 *   setting, delete the others, run again).
 * - An earlier run killed while this create was in flight (the journal holds its
 *   entry): before sending, the engine looks for that object the same way and adopts
 *   it, waiting out the window from when the interrupted create was sent.
 * - An earlier run killed after this create was answered but perhaps before its engine
 *   saved the answer (an unsaved answer in the journal, no engine has named it since):
 *   the object is read by its id and adopted when it is still the one answered. The
 *   answer is matched by the resource (`identity`: stack, project, name and create-only
 *   values), not by every value: the updatable ones the user edited since are applied
 *   after adopting. Several unsaved answers for one resource: thrown, naming them.
 * A definition says how to list and match (`reconcile`), or `reconcile: false` to
 * keep the plain unknown-outcome error.
 */
import { SvcUnknownOutcomeError, isApiError, type SvcClient } from "../client";
import { CREATE_RESENDS } from "../client/retry";
import { record } from "../client/stats";
import { reconcileWindowSeconds } from "../config";
import { canonicalJson } from "../../rules/event-schema";
import { RESOURCE_KEY } from "./internal-keys";
import { claimsOf, type KindClaims } from "./claims";
import { createJournal, JOURNAL_SCOPE, type CreateJournal, type HeldObject, type Unsaved } from "./create-journal";
import { fieldEqual } from "./diff";
import { note } from "./errors";
import type { Props, ReconcileSpec, ResourceDefinition } from "./fields";
import { jsonEqual } from "./json";

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

/** What a look for a lost create's object found. */
type Found = { found: Props; id: string } | { ambiguous: string[] } | { none: true };

/** One create and everything its reconciliation needs. */
interface CreateCall {
  def: ResourceDefinition;
  client: SvcClient;
  body: Props;
  inputs: Props;
  idOf: (response: Props) => string;
  claims: KindClaims;
  fingerprint: string;
  /** What names the resource (createIdentity), when the inputs say which resource it is. */
  identity?: string;
  /** The connection, as the journal names it. */
  connection: string;
  /** The kind can be listed: an unknown outcome is looked for (`reconcile: false`: it is thrown). */
  reconciles: boolean;
  journal?: CreateJournal;
  windowMs: number;
}

/** What a create got: the service's answer, or an object found by listing (`found`: its write-only fields are not known to be applied). */
export interface Created {
  object: Props;
  found: boolean;
  /** Found as an unsaved answer to an earlier create of this resource, whose updatable values may have been edited since: every changed field is applied. */
  declaredSince: boolean;
  /**
   * After a create sent again: objects matching it that appeared before the window
   * passed, held by no resource. Each may be the lost attempt's or someone else's; the
   * create keeps its own object and fails naming them (lateLookAlikesMessage).
   */
  lateLookAlikes: string[];
}

/**
 * The states of one create's reconciliation. Each arrow is one function below. The
 * transport never repeats a create (a POST is not safe to repeat); whether to send it
 * again is decided here, within client/retry.ts's CREATE_RESENDS:
 *
 *   resume ──(journal: an interrupted or unsaved earlier create found)──▶ adopted
 *     │
 *     ▼
 *   send ──(answered)──▶ answered ──(after a resend: late look-alikes named)──▶ done
 *     │ (refused: nothing made) ──▶ thrown
 *     ▼ (unknown outcome: no answer, or a 5xx)
 *   answerLost ──look──▶ adopted | ambiguous (thrown, naming the candidates)
 *     │ (nothing found)
 *     ▼
 *   resend: send again, at most CREATE_RESENDS.afterLostAnswer times after lost
 *     answers and CREATE_RESENDS.after5xx after 5xx answers; past them, thrown.
 */
type Attempt =
  | { state: "answered"; object: Props }
  | { state: "answerLost"; lost: SvcUnknownOutcomeError; sentAt: number; entry: JournalEntry | undefined; stopLooking: () => void };

type JournalEntry = ReturnType<CreateJournal["sent"]>;

/** How many creates were sent so far, and since when an object of a lost one may appear. */
interface Sends {
  resends: number;
  failedAnswers: number;
  /** When the first lost attempt was sent: an object made by it may appear until the window has passed. */
  lostSince?: number;
}

/**
 * POST the create; on an unknown outcome, adopt what it made, send it again, or fail
 * naming the candidates (the states above).
 */
export async function createReconciled(def: ResourceDefinition, client: SvcClient, body: Props, inputs: Props, idOf: (response: Props) => string): Promise<Created> {
  const reconciles = def.reconcile !== false;
  const c: CreateCall = {
    def,
    client,
    body,
    inputs,
    idOf,
    claims: claimsOf(client, def.kind),
    fingerprint: client.fingerprint(`${def.kind}\n${canonicalJson(body)}`),
    identity: createIdentity(def, client, body, inputs),
    connection: client.fingerprint(JOURNAL_SCOPE),
    reconciles,
    journal: reconciles ? createJournal() : undefined,
    windowMs: reconciles ? reconcileWindowSeconds() * 1000 : 0,
  };
  const resumed = await resumeInterrupted(c);
  if (resumed) return { object: resumed, found: true, declaredSince: false, lateLookAlikes: [] };
  const unsaved = await adoptUnsavedAnswer(c);
  if (unsaved) return { object: unsaved, found: true, declaredSince: true, lateLookAlikes: [] };

  const sends: Sends = { resends: 0, failedAnswers: 0 };
  for (;;) {
    const attempt = await send(c);
    if (attempt.state === "answered") {
      const lateLookAlikes = sends.lostSince === undefined ? [] : await watchForLateLookAlikes(c, sends.lostSince, sends.resends);
      return { object: attempt.object, found: false, declaredSince: false, lateLookAlikes };
    }
    const adopted = await lookForLost(c, attempt);
    if (adopted) return { object: adopted, found: true, declaredSince: false, lateLookAlikes: [] };
    resendOrGiveUp(c, attempt, sends);
  }
}

/**
 * One POST. Answered: its object is held at once. Refused: nothing was made, thrown.
 * Unknown outcome: the create starts looking (counted as lost) before it stops counting
 * as in flight, so a look-alike's look never sees it as neither.
 */
async function send(c: CreateCall): Promise<Attempt> {
  const sentAt = Date.now();
  const entry = c.journal?.sent(c.def.kind, c.fingerprint, sentAt, c.identity);
  const inFlight = c.claims.sending();
  let response: Props;
  try {
    response = (await c.client.request<Props>({ method: "POST", path: c.def.paths.create, body: c.body, adoptHint: c.def.adoptHint })).body ?? {};
  } catch (err) {
    if (err instanceof SvcUnknownOutcomeError && c.reconciles) {
      const stopLooking = c.claims.looking(c.fingerprint);
      inFlight();
      return { state: "answerLost", lost: err, sentAt, entry, stopLooking };
    }
    inFlight();
    // A refusal made nothing; an unknown outcome of a kind that cannot be listed stays open for the next run.
    if (entry && !(err instanceof SvcUnknownOutcomeError)) await c.journal!.settle(entry);
    throw err;
  }
  let id: string;
  try {
    id = c.idOf(response);
    c.claims.hold(id);
  } finally {
    inFlight(); // before watching for extras, which waits for every create in flight
  }
  if (entry) await c.journal!.settle(entry, heldObject(c, id, response));
  return { state: "answered", object: response };
}

/**
 * Look for what a lost create made. No answer: until the window has passed (the create
 * may still land inside the service). A 5xx: the service is done with it, one look.
 * Found: adopted. Several candidates: thrown, naming them (the journal entry stays open,
 * so after the others are deleted the next run adopts the one left). None: undefined.
 */
async function lookForLost(c: CreateCall, attempt: Extract<Attempt, { state: "answerLost" }>): Promise<Props | undefined> {
  const { lost, sentAt, entry } = attempt;
  let result: Found;
  try {
    const deadline = lost.unanswered ? sentAt + c.windowMs : 0;
    result = await lookFor(c, sentAt, deadline, Math.min(deadline, sentAt + IN_FLIGHT_GRACE_MS));
  } catch (listErr) {
    // Still unknown: the same error, saying why the object could not be looked for.
    throw new SvcUnknownOutcomeError(lost.method, lost.path, lost.requestId, lost.what, `${c.def.adoptHint} (Looking for it by listing the ${c.def.noun}s failed: ${(listErr as Error).message})`);
  } finally {
    attempt.stopLooking();
  }
  if ("found" in result) {
    if (entry) await c.journal!.settle(entry, heldObject(c, result.id, result.found));
    record.reconciled({ kind: c.def.kind, path: c.def.paths.create, result: "adopted", id: result.id });
    return result.found;
  }
  if ("ambiguous" in result) {
    record.reconciled({ kind: c.def.kind, path: c.def.paths.create, result: "ambiguous", candidates: result.ambiguous });
    throw new Error(`${lost.message}\nAfter that, ${ambiguityMessage(c.def, result.ambiguous, "created since the request was sent")}`);
  }
  if (entry) await c.journal!.settle(entry);
  return undefined;
}

/** Nothing was made: send again within the limits, or throw (the service keeps failing it, or the answers keep getting lost). */
function resendOrGiveUp(c: CreateCall, attempt: Extract<Attempt, { state: "answerLost" }>, sends: Sends): void {
  const { lost, sentAt } = attempt;
  if (!lost.unanswered && ++sends.failedAnswers > CREATE_RESENDS.after5xx) throw repeatedFailure(c.def, lost, sends.failedAnswers);
  if (sends.resends >= CREATE_RESENDS.afterLostAnswer) throw lost;
  sends.resends++;
  sends.lostSince ??= sentAt;
  record.reconciled({ kind: c.def.kind, path: c.def.paths.create, result: "recreated" });
}

/**
 * An earlier run was killed while sending this very create (same kind, body and
 * credentials; the journal holds it, unsettled): the next create looks for what it made
 * and adopts it. Preview checks that refuse an existing look-alike (an event type's
 * name, an open quota request) let it pass, or the rerun after a kill could never adopt.
 */
export function interruptedCreatePending(def: ResourceDefinition, client: SvcClient, body: Props, inputs: Props): boolean {
  if (def.reconcile === false) return false;
  const journal = createJournal();
  const fingerprint = client.fingerprint(`${def.kind}\n${canonicalJson(body)}`);
  return (journal?.untaken(def.kind, fingerprint) ?? 0) + (journal?.unsavedCount(def.kind, fingerprint, createIdentity(def, client, body, inputs)) ?? 0) > 0;
}

/**
 * What names a create's resource, whatever its updatable values: an HMAC (under the key,
 * as the fingerprint) of the kind, the resource's stack, project and name (the SDK's
 * RESOURCE_KEY input) and the create-only values of the body (a different one is another
 * object, made by a replacement). Undefined when the inputs do not say which resource.
 */
function createIdentity(def: ResourceDefinition, client: SvcClient, body: Props, inputs: Props): string | undefined {
  const resource = inputs[RESOURCE_KEY];
  if (typeof resource !== "string") return undefined;
  const createOnly = Object.values(def.fields).filter((spec) => spec.mode === "createOnly" && spec.api !== undefined && spec.api in body);
  const values = Object.fromEntries(createOnly.map((spec) => [spec.api!, body[spec.api!]]));
  return client.fingerprint(`${def.kind}\nresource\n${resource}\n${canonicalJson(values)}`);
}

/** The service answered 5xx to every attempt, and no attempt made an object (each was looked for). */
function repeatedFailure(def: ResourceDefinition, last: SvcUnknownOutcomeError, attempts: number): Error {
  return new Error(
    `${last.method} ${last.path}: the service failed this create ${attempts} times (last: ${last.what}; request id ${last.requestId}), and no ${def.noun} was made ` +
      `(looked for after each attempt). It was not sent again: a create the service fails every time is usually refused for a value it cannot handle. ` +
      `Check the ${def.noun}'s inputs, then run again.`,
  );
}

/** Invariant 2: the candidates and what to do (`how` says how to adopt, when no message above has said it). */
function ambiguityMessage(def: ResourceDefinition, ids: string[], since: string, how = "as said above"): string {
  return (
    `${ids.length} ${def.noun}s matching this resource were found, ${since}, and held by no other resource of the stack: ${ids.join(", ")}. ` +
    `One of them is probably the one this create made; the provider cannot tell which, so it adopted none and made no other. ` +
    `Adopt one (${how}) and delete the others that are extras, or delete all but one and run again on this machine: its create journal lets the next run adopt the one left. ` +
    `Check each before deleting it: an identical ${def.noun} may be another stack's or a person's.`
  );
}

/**
 * An earlier run was killed while it was sending this same create (the journal holds
 * the entry): look for the object it may have made, until the window has passed since
 * it was sent. Undefined when there was none, or it made nothing.
 */
async function resumeInterrupted(c: CreateCall): Promise<Props | undefined> {
  const earlier = c.journal?.take(c.def.kind, c.fingerprint);
  if (!earlier) return undefined;
  const stopLooking = c.claims.looking(c.fingerprint);
  let result: Found;
  try {
    result = await lookFor(c, earlier.sentAt, earlier.sentAt + c.windowMs, 0);
  } finally {
    stopLooking();
  }
  if ("found" in result) {
    await c.journal!.settleEarlier(earlier.ref, c.def.kind, c.fingerprint, heldObject(c, result.id, result.found), c.identity);
    record.reconciled({ kind: c.def.kind, path: c.def.paths.create, result: "resumed", id: result.id });
    note(`The ${c.def.noun} ${result.id} was made by a create of an earlier run that was interrupted before it recorded it: adopted instead of creating another.`);
    return result.found;
  }
  if ("ambiguous" in result) {
    record.reconciled({ kind: c.def.kind, path: c.def.paths.create, result: "ambiguous", candidates: result.ambiguous });
    throw new Error(`An earlier run was interrupted while creating this ${c.def.noun} (${new Date(earlier.sentAt).toISOString()}); ${ambiguityMessage(c.def, result.ambiguous, "created since then", c.def.adoptHint)}`);
  }
  await c.journal!.settleEarlier(earlier.ref, c.def.kind, c.fingerprint);
  return undefined;
}

/**
 * An earlier run answered a create of this resource and ended without its engine
 * closing it, and no engine has named that object since: the answer may never have been
 * saved (a `pulumi` killed between the two). Matched by the resource (`identity`), or, for
 * answers journaled without one, by the same body. Each object is read by its id; one
 * still there and still the one answered (same `created_at`) is adopted instead of
 * making another (createNew then applies what the program declares now). Several:
 * thrown, naming them (invariant 2). A resource of this run that turns out to hold the
 * adopted one fails when the engine names it (claims.ts `holdId`).
 */
async function adoptUnsavedAnswer(c: CreateCall): Promise<Props | undefined> {
  const take = () => c.journal?.takeUnsaved(c.def.kind, c.fingerprint, c.connection, c.identity) ?? [];
  for (let answers = take(); answers.length > 0; answers = take()) {
    const there: { answer: Unsaved; object: Props }[] = [];
    for (const answer of answers) {
      if (c.claims.held.has(answer.id)) continue;
      let object: Props | undefined;
      try {
        object = (await c.client.request<Props>({ method: "GET", path: c.def.paths.item(answer.id) })).body ?? {};
      } catch (err) {
        if (!isApiError(err, 404)) throw err;
      }
      if (!object || (answer.createdAt !== undefined && object.created_at !== answer.createdAt)) await c.journal!.settleEarlier(answer.ref, c.def.kind, c.fingerprint);
      else there.push({ answer, object });
    }
    // The engine may have named one for a resource of this run while they were read.
    const unheld = there.filter(({ answer }) => !c.claims.held.has(answer.id));
    if (unheld.length > 1) {
      const ids = unheld.map(({ answer }) => answer.id);
      record.reconciled({ kind: c.def.kind, path: c.def.paths.create, result: "ambiguous", candidates: ids });
      throw new Error(`Earlier runs that were killed before they saved their answers made ${c.def.noun}s for this resource; ${ambiguityMessage(c.def, ids, "answered to its creates", c.def.adoptHint)}`);
    }
    const [adopted] = unheld;
    if (!adopted) continue;
    const { answer, object } = adopted;
    c.claims.hold(answer.id);
    c.claims.adoptedUnsaved.add(answer.id);
    await c.journal!.settleEarlier(answer.ref, c.def.kind, c.fingerprint, heldObject(c, answer.id, object), c.identity);
    record.reconciled({ kind: c.def.kind, path: c.def.paths.create, result: "resumed", id: answer.id });
    note(`The ${c.def.noun} ${answer.id} was made by this resource's create in an earlier run that was killed before it saved the answer: adopted (and brought to the declared values) instead of creating another.`);
    return object;
  }
  return undefined;
}

/**
 * Look for the object of a create sent at `sentAt`, first at `firstLookAt`, again
 * every POLL_MS while nothing is found, until `deadline`.
 */
async function lookFor(c: CreateCall, sentAt: number, deadline: number, firstLookAt: number): Promise<Found> {
  await sleepUntil(firstLookAt);
  for (;;) {
    const result = await c.claims.exclusive(() => takeCandidate(c, sentAt));
    if (!("none" in result) || Date.now() >= deadline) return result;
    await sleepUntil(Math.min(deadline, Date.now() + POLL_MS));
  }
}

/** One look: list, let the creates in flight settle, take an unheld candidate if it is clearly this create's. */
async function takeCandidate(c: CreateCall, sentAt: number): Promise<Found> {
  const candidates = await unheldCandidates(c, sentAt);
  if (candidates.length === 0) return { none: true };
  // Look-alikes whose answers were lost (in this run, or in an interrupted one) share the candidates;
  // more candidates than they are: ambiguous.
  const owners = c.claims.lostCount(c.fingerprint) + (c.journal?.untaken(c.def.kind, c.fingerprint) ?? 0);
  if (candidates.length > owners) return { ambiguous: candidates.map(c.idOf) };
  const oldest = candidates.sort((a, b) => createdAt(a) - createdAt(b))[0]!;
  const id = c.idOf(oldest);
  c.claims.hold(id);
  return { found: oldest, id };
}

/**
 * After a create sent again following a 5xx: until the window has passed since the
 * first lost attempt, watch for objects matching it that no resource holds. One may be
 * the lost attempt's, landed late (then it is an extra), or another stack's or person's
 * identical object made meanwhile (then it is theirs): nothing tells them apart, so none
 * is deleted. Stops early once `lostAttempts` of them are seen. Their ids.
 */
async function watchForLateLookAlikes(c: CreateCall, lostSince: number, lostAttempts: number): Promise<string[]> {
  const deadline = lostSince + c.windowMs;
  const seen = new Set<string>();
  for (;;) {
    // Lost look-alikes still looking get their candidates first.
    const unheld = await c.claims.exclusive(async () => (c.claims.lostCount(c.fingerprint) > 0 ? [] : unheldCandidates(c, lostSince)));
    for (const item of unheld) seen.add(c.idOf(item));
    if (seen.size >= lostAttempts || Date.now() >= deadline) break;
    await sleepUntil(Math.min(deadline, Date.now() + POLL_MS));
  }
  for (const id of seen) record.reconciled({ kind: c.def.kind, path: c.def.paths.create, result: "late-look-alike", id });
  return [...seen];
}

/** The failure of a create that kept its own object while look-alikes appeared late (invariant 2: named, none deleted). */
export function lateLookAlikesMessage(def: ResourceDefinition, id: string, late: string[]): string {
  return (
    `The ${def.noun} ${id} was made by this create, sent again after the service answered a 5xx. Meanwhile ${late.length === 1 ? "another matching " + def.noun + " appeared" : late.length + " other matching " + def.noun + "s appeared"}, held by no resource of the stack: ${late.join(", ")}. ` +
    `Each is either made by the first attempt (then it is an extra: delete it) or someone else's identical ${def.noun} made meanwhile (then leave it). The provider cannot tell, so it deleted nothing. ` +
    `${id} is kept in the state; check ${late.length === 1 ? "that one" : "those"}, then run again.`
  );
}

/** What the journal keeps of an object a create got: its connection, id and `created_at`. */
const heldObject = (c: CreateCall, id: string, object: Props): HeldObject => ({
  connection: c.connection,
  id,
  ...(typeof object.created_at === "string" ? { createdAt: object.created_at } : {}),
});

const createdAt = (item: Props) => (typeof item.created_at === "string" ? Date.parse(item.created_at) : Number.NaN) || 0;

const sleepUntil = (at: number) => (at > Date.now() ? new Promise((resolve) => setTimeout(resolve, at - Date.now())) : Promise.resolve());

/** The candidates no resource holds, judged once the creates in flight when the listing came back have settled (one may own a listed object). */
async function unheldCandidates(c: CreateCall, since: number): Promise<Props[]> {
  const items = await listCandidates(c, since);
  await c.claims.settled();
  return items.filter((item) => !c.claims.held.has(c.idOf(item)));
}

/** Listed objects that match the create's body, created since `sentAt`, that no earlier run's create got as its answer. */
async function listCandidates(c: CreateCall, sentAt: number): Promise<Props[]> {
  const { def, body, inputs } = c;
  const spec = def.reconcile || {};
  const where = spec.list ? spec.list(body, inputs) : { path: def.paths.create, query: typeof body.project_id === "string" ? { project_id: body.project_id } : {} };
  const items = "cursor" in where && where.cursor ? await c.client.listAllByCursor<Props>(where.path, where.query) : await c.client.listAll<Props>(where.path, where.query);
  const matches = spec.matches ?? ((remote: Props, b: Props) => sameDeclaredFields(def, remote, b));
  const answeredEarlier = c.journal?.answeredEarlier(def.kind, c.connection);
  return items.filter((item) => {
    if (!matches(item, body, inputs)) return false;
    const id = c.idOf(item);
    // Held by an earlier run's resource: the same object, not a later one that took its id (a name).
    if (answeredEarlier?.has(id) && [undefined, item.created_at].includes(answeredEarlier.get(id))) return false;
    return !createdBefore(c.client, item, sentAt);
  });
}

/**
 * Was `item` certainly created before this machine's clock read `sentAt`? Then no
 * request sent at `sentAt` made it. Judged on the service's clock (service-clock.ts):
 * the service read at least `earliest` when the request was sent, and an object it
 * made for the request is dated at or after that. A `created_at` in whole seconds
 * may be up to a second early. Undated objects are never ruled out.
 */
function createdBefore(client: SvcClient, item: Props, sentAt: number): boolean {
  if (typeof item.created_at !== "string") return false;
  const created = Date.parse(item.created_at);
  if (Number.isNaN(created)) return false;
  const latest = /\.\d/.test(item.created_at) ? created : created + 999;
  return latest < (client.serviceClock.earliestAt(sentAt) ?? sentAt - UNDATED_CLOCK_SKEW_MS);
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
