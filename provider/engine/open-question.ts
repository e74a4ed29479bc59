/**
 * A lost create whose candidates nothing proves this resource's (reconcile.ts
 * `UnresolvedCreate`) is kept in the state as an open question, so that no later run,
 * on any machine, passes over it (provider/README.md, "Ownership"): the create fails
 * as a partial failure with a placeholder id, and the engine stores the entry with the
 * candidates in its outputs. Then, in later runs:
 * - refresh reads it as it is (there is no object to read);
 * - its Diff answers replace (the engine creates before it deletes); the replacement's
 *   create (claims.ts `openQuestions`, by the resource's identity) fails again naming
 *   the candidates there now (listed again: the question is the declared fields and the
 *   send time, not the first run's list), until the user adopts one (`adoptId`) or
 *   deletes them;
 * - its delete fails the same way while candidates are left that no resource of the
 *   operation holds (the replacement that adopted one comes first), else deletes nothing.
 */
import { completeOutputs, createBody, keptValues } from "./values";
import { PartialFailure } from "./errors";
import type { OperationContext, Props, ResourceDefinition } from "./fields";
import { OWNER_KEY, UNRESOLVED_KEY } from "./internal-keys";
import { candidates, listObjects, unprovenMessage, type UnresolvedCreate } from "./reconcile";

const PREFIX = "unresolved-create-";

/** Is this state entry's id a placeholder for an open question? */
export const isOpenQuestion = (id: string) => id.startsWith(PREFIX);

interface Question {
  candidates: string[];
  /** The service's time when the lost create was sent, at the earliest (reconcile.ts `UnresolvedCreate`). */
  since: string;
}

/** The failure that keeps the question in the state: a placeholder id, the declared values and the candidates as outputs. */
export function keepQuestion(def: ResourceDefinition, err: UnresolvedCreate, news: Props): PartialFailure {
  const token = typeof news[OWNER_KEY] === "string" ? String(news[OWNER_KEY]) : `${Date.now()}`;
  const question: Question = { candidates: err.candidates, since: new Date(err.since).toISOString() };
  const outputs = completeOutputs(def, { ...keptValues(def, news), [UNRESOLVED_KEY]: question });
  return new PartialFailure(err.message, `${PREFIX}${token}`, outputs);
}

/** The question an entry's outputs keep, if any. */
export function questionOf(outputs: Props | undefined): Question | undefined {
  const q = outputs?.[UNRESOLVED_KEY] as Question | undefined;
  return q && Array.isArray(q.candidates) ? q : undefined;
}

/**
 * The question again, before a create (the replacement of its entry) or a delete: fails
 * naming the candidates still there; none left, the question is answered (they were
 * extras, deleted by the user) and the caller goes on.
 */
export async function askAgain(def: ResourceDefinition, ctx: OperationContext, question: Question, declared: Props, doing: "create" | "delete"): Promise<void> {
  // Listed afresh (an object the lost create made late is named too, not only those the first run saw), held by no
  // resource of this operation (one that adopted a candidate comes first), with the declared values `declared`.
  const body = createBody(def, declared);
  const items = await listObjects(def, ctx.client, body, declared);
  const left = candidates(def, items, ctx.operation.claims(ctx, def.kind).held, body, declared, Date.parse(question.since));
  if (left.length === 0) return;
  const what =
    doing === "create"
      ? `An earlier run's create of this ${def.noun} lost its answer (${question.since}), and`
      : `This resource was never made: an earlier run's create lost its answer (${question.since}), and`;
  throw new Error(`${what} ${unprovenMessage(def, left)}`);
}
