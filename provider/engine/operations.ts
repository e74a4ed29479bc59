/**
 * The engine's operations on one kind: check, diff, create, read, update and delete as
 * typed functions of a definition (a table of fields plus a few hooks) and the
 * connection its `profile` input chooses from the process's settings (config.ts: what
 * the front end's configure gave, else the environment). They know nothing of how Pulumi calls them:
 * the dynamic provider (resource-provider.ts) is one front end over them, a native
 * provider can be another. Nothing here knows any particular resource.
 *
 * Values are camelCase, as the program declares them: `Inputs` are declared inputs,
 * `Outputs` what the state keeps (every field present, write-only values as last
 * applied), both named by the kind's fields (`F`, its table: fields.ts `InputsOf`), so
 * a caller that knows the kind cannot misspell one. A create or update that did part of its work throws a `PartialFailure`
 * whose properties are the outputs the state must keep.
 */
import { isApiError } from "../client";
import { InvalidSettingError, MissingSettingError, profileOf, reconcileWindowSeconds } from "../config";
import { canonicalJson } from "../../rules/event-schema";
import { withArticle } from "../../rules/names";
import { adoptionIdOf, adoptionInputOf, differsMessage, notOnExistingMessage, readToAdopt } from "./adoption";
import { checkInputs } from "./check";
import { named } from "./claims";
import { declared, diffFields, fieldChanged, fieldEqual } from "./diff";
import { contextOrNone, currentOperation, operationContext } from "./engine-operation";
import { explainApiError, note, PartialFailure } from "./errors";
import { asIs, fieldEntries, type ApplyContext, type ChangedSetting, type CheckFailure, type Fields, type InputsOf, type OperationContext, type OutputsOf, type PlannedCall, type Props, type ResourceDefinition } from "./fields";
import { readFromListing } from "./list-cache";
import { planUpdate } from "./plan";
import { FOUND_KEY, OWNER_KEY, RESOURCE_KEY, UNRESOLVED_KEY } from "./internal-keys";
import { askAgain, isOpenQuestion, keepQuestion, questionOf } from "./open-question";
import { markedBody, markedOwner, newOwnerToken, ownerField, ownerMark, ownerTokenOf } from "./owner";
import { createReconciled, UnresolvedCreate } from "./reconcile";
import { remoteCheckFailures, remoteChecksSkipped } from "./remote-checks";
import { containsUnknown, UNKNOWN } from "./unknown";
import { completeOutputs, createBody, fieldRoles, keptValues, objectId, rebuildInputs, remoteFields, writeOnlyAsRead } from "./values";

/** Declared inputs (camelCase), as the program gives them. */
export type Inputs<F extends Fields = Fields> = InputsOf<F>;
/** What the state keeps of a resource (camelCase): every field present. */
export type Outputs<F extends Fields = Fields> = OutputsOf<F>;

export type CreateRequest<F extends Fields = Fields> = { inputs: Inputs<F> };
type Created = { id: string; outputs: Outputs };
/** The object as the service shows it, or `gone` when it no longer exists (deleted outside Pulumi). */
export type ReadResponse<F extends Fields = Fields> = { gone: true } | { gone: false; id: string; outputs: Outputs<F>; inputs: Inputs<F> };
export interface DiffResponse {
  changes: boolean;
  /** The fields that changed, those replacing included (the native front end's detailed diff; the dynamic one has no place for it). */
  diffs: string[];
  replaces: string[];
  deleteBeforeReplace: boolean;
}

/**
 * A kind's operations, its values named by the fields of its table `F`. `olds` are the
 * stored outputs, except check's: the previous inputs, empty for a resource not created
 * yet (and on the engine's second Check of a replacement). Check answers the inputs with
 * defaults filled in; read's `outputs` are undefined for an object the state does not hold.
 */
export interface Operations<F extends Fields = Fields> {
  readonly definition: ResourceDefinition<F>;
  check(req: { olds: Inputs<F>; news: Inputs<F> }): Promise<{ inputs: Inputs<F>; failures: CheckFailure[] }>;
  diff(req: { id: string; olds: Outputs<F>; news: Inputs<F> }): DiffResponse;
  create(req: CreateRequest<F>): Promise<{ id: string; outputs: Outputs<F> }>;
  read(req: { id: string; outputs?: Outputs<F> }): Promise<ReadResponse<F>>;
  update(req: { id: string; olds: Outputs<F>; news: Inputs<F> }): Promise<{ outputs: Outputs<F> }>;
  delete(req: { id: string; outputs: Outputs<F> }): Promise<void>;
}

/**
 * The operations of a kind. Inside, the engine walks the table by name whatever the
 * kind, so its values are plain `Props`; the kind's names are checked at the edges.
 */
export function operationsFor<F extends Fields>(definition: ResourceDefinition<F>): Operations<F> {
  const def: ResourceDefinition = definition;
  const idField = def.idField ?? "id";

  const withItem = (ctx: OperationContext, id: string): ApplyContext => ({ ...ctx, id, def, itemPath: def.paths.item(id) });
  /** What the operation knows of this kind's objects on the context's connection (claims.ts). */
  const claimsIn = (ctx: OperationContext) => ctx.operation.claims(ctx, def.kind);
  /** Every id the engine names is held by a resource of the stack: never another create's candidate (claims.ts). */
  const applyContext = (id: string, props: Props | undefined): ApplyContext => {
    const ctx = operationContext(def, profileOf(props));
    claimsIn(ctx).hold(id);
    return withItem(ctx, id);
  };
  const contextOf = (props: Props) => contextOrNone(def.product, profileOf(props));
  const roles = fieldRoles(def);

  /** Run planned calls in order; each success marks its fields applied in `outputs`. */
  async function runCalls(ctx: ApplyContext, calls: PlannedCall[], news: Inputs, outputs: Outputs): Promise<Props> {
    let current = outputs;
    for (const call of calls) {
      const idInBody = def.paths.idInBody && call.kind === "patch" ? { [def.paths.idInBody]: ctx.id } : undefined;
      const body = idInBody ? { ...idInBody, ...(call.body as Props) } : call.body;
      // An id in the body is the only one: the item path's query names it for GET and DELETE alone.
      const itemPath = idInBody ? ctx.itemPath.split("?")[0]! : ctx.itemPath;
      const res = await ctx.client.request<Props>({ method: call.method, path: itemPath + call.path, body, safeToRepeat: call.safeToRepeat });
      current = absorbResponse(call, res.body ?? {}, news, current);
    }
    return current;
  }

  function absorbResponse(call: PlannedCall, response: Props, news: Inputs, outputs: Outputs): Props {
    const next: Props = { ...outputs, ...keptValues(def, news, (n) => call.fields.includes(n)) };
    // A whole object in the answer (a singleton's write answers the whole setting).
    if (response[idField] !== undefined || def.singleton) Object.assign(next, remoteFields(def, response));
    else
      for (const name of call.fields) {
        const spec = def.fields[name]!;
        if (spec.writeOnly || spec.mode === "action") continue;
        next[name] = spec.api && spec.api in response ? (spec.codec ?? asIs).fromApi(response[spec.api]) : (news[name] ?? null);
      }
    return { ...next, ...def.hooks?.extraOutputs?.(response, next) };
  }

  /**
   * A call failed. When the object is the resource's (`keep`), the state keeps it with
   * what was applied (a partial failure); otherwise the error alone, and the state keeps
   * what it had.
   */
  function failPartway(err: unknown, id: string, outputs: Outputs, news: Inputs, operation: "create" | "update" | "adopt", keep: boolean): never {
    const error = isApiError(err) ? explainApiError(def, err, operation, news, id) : (err as Error);
    if (!keep) throw error;
    throw completed(new PartialFailure(`The ${def.noun} ${id} exists but was not fully brought to the declared state: ${error.message}`, id, outputs));
  }

  /** A partial failure with every output present (a hook's may lack some). */
  const completed = (failure: PartialFailure) => new PartialFailure(failure.message, failure.id, completeOutputs(def, failure.properties));

  async function converge(ctx: ApplyContext, calls: PlannedCall[], olds: Props | undefined, news: Inputs, outputs: Outputs, operation: "create" | "update" | "adopt", created: boolean): Promise<Props> {
    let current = outputs;
    // Does a failure leave an object the state must keep? A created or adopted object: at once.
    // An update: once one of its calls succeeded (before, the state's values still hold).
    // A singleton taken over: once one of its writes succeeded (before, nothing is the resource's).
    let keepOnFailure = operation !== "update" && !def.singleton;
    for (const call of calls) {
      try {
        current = await runCalls(ctx, [call], news, current);
        keepOnFailure = true;
      } catch (err) {
        failPartway(err, ctx.id, current, news, operation, keepOnFailure);
      }
    }
    const complete = completeOutputs(def, current);
    if (!def.hooks?.afterApply) return complete;
    let after: Props;
    try {
      after = await def.hooks.afterApply(ctx, { created, olds, news, outputs: complete });
    } catch (err) {
      throw err instanceof PartialFailure ? completed(err) : err;
    }
    // Most of the time the hook has nothing to do and hands the outputs back as they were.
    return after === complete ? complete : completeOutputs(def, after);
  }

  /**
   * diff names the resource's id too; it needs no connection, so one that cannot be made is
   * left for the operations. A diff that does not replace the object keeps it for this
   * resource (claims.ts `kept`): no other resource's delete removes it (or, a setting,
   * puts back what it found), and no other resource of the program may adopt it.
   */
  function holdNamedId(id: string, olds: Props, news: Inputs, replaced: boolean): void {
    const ctx = contextOf(olds);
    if (!ctx) return;
    const claims = claimsIn(ctx);
    claims.hold(id);
    // Its delete in this operation is a replacement's: the old object, declared by no program.
    if (replaced) return void claims.replaced.add(id);
    // Only a Diff of a resource the program declares keeps its object (claims.ts, the keepers).
    const name = nameOf(news);
    const counts = !("resourceName" in def.fields) || (name !== undefined && ctx.operation.checkedNames.has(`${def.kind}\u0000${name}`));
    const clash = claims.kept(id, { olds, adopts: adoptionId(news) === id, name }, counts);
    if (clash) throw twoResourcesOnOne(id, `${named(clash.adopter)} declares adopting it (${adoptionInput})`);
  }

  /** The input that asks for adoption, as errors name it. */
  const adoptionInput = adoptionInputOf(def);
  const nameOf = (inputs: Props) => (typeof inputs.resourceName === "string" ? inputs.resourceName : undefined);

  /** One object, one resource (provider/README.md, "Ownership", the keepers' row). */
  const twoResourcesOnOne = (id: string, why: string) =>
    new Error(
      `The ${def.noun} ${id} would be held by two resources of this stack: ${why}. Removing either later would delete it from the other. ` +
        `Keep one: remove the other from the program, or move its state to the new name with an alias (\`aliases: [{ name: "<old name>" }]\`) instead of adopting, then run again.`,
    );

  /** A clash of the adoption these inputs declare with a resource that keeps or adopts the object, if any. */
  function adoptionClash(ctx: OperationContext, inputs: Inputs): string | undefined {
    const id = adoptionId(inputs);
    // Not known yet at preview (an output of another resource, whole or part of an event type's id): the update checks again.
    if (id === undefined || id.includes(UNKNOWN)) return undefined;
    const clash = claimsIn(ctx).adopting(id, nameOf(inputs));
    return clash && twoResourcesOnOne(id, `${adoptionInput} asks for it, and ${clash}`).message;
  }

  /** The id to adopt: the definition's own rule, else the `adoptId` input. */
  const adoptionId = (news: Inputs): string | undefined => adoptionIdOf(def, news);

  async function create({ inputs: news }: CreateRequest): Promise<Created> {
    if (def.singleton) return takeOver(news);
    const adoptId = adoptionId(news);
    if (adoptId === undefined) return createNew(news);
    // Again, as at preview: under `--skip-preview` the holder's Diff may come between this resource's check and its create.
    const ctx = operationContext(def, profileOf(news));
    const clash = adoptionClash(ctx, news);
    if (clash) throw new Error(clash);
    const adopted = await adopt(adoptId, news);
    // The object is this resource's now: the delete of a resource that held it before must not remove it, in this
    // run (it keeps it: claims.ts \`kept\`) or a later one (it carries this resource's owner mark now, where it can: \`marking\`).
    claimsIn(ctx).kept(adopted.id, { olds: adopted.outputs, adopts: true, name: nameOf(news) }, true);
    return adopted;
  }

  async function createNew(news: Inputs): Promise<Created> {
    const ctx = operationContext(def, profileOf(news));
    // The replacement of an entry that keeps an open question (its Diff recorded it): answered first.
    const identity = news[RESOURCE_KEY];
    const question = typeof identity === "string" ? questionOf(claimsIn(ctx).openQuestions.get(identity)) : undefined;
    if (question) await askAgain(def, ctx, question, news, "create");
    const body = markedBody(def, createBody(def, news), news);
    let response: Props;
    let found: boolean;
    try {
      // An unknown outcome is reconciled by a listing: take this create's own object, or send it again.
      ({ object: response, found } = await createReconciled(def, ctx, body, news));
    } catch (err) {
      if (err instanceof UnresolvedCreate) throw keepQuestion(def, err, news);
      throw isApiError(err) ? explainApiError(def, err, "create", news) : err;
    }
    const id = objectId(def, response);
    const created: Props = { ...remoteFields(def, response), ...keptValues(def, news) };
    // An object found by listing matched every field the service shows, not the write-only ones:
    // those that can be written are written, so the resource never claims values it may not carry.
    if (found) for (const [name] of roles.rewritableWriteOnly) created[name] = null;
    const outputs = { ...created, ...def.hooks?.extraOutputs?.(response, created) };
    // Fields create does not take (e.g. status) are applied right after, only when they differ;
    // on an object an earlier run's create of this resource made, every field the program changed since.
    const applyLater = (name: string) => def.fields[name]!.onCreate === false || (found && def.fields[name]!.writeOnly === true);
    const anyLater = found || roles.afterCreate.some(([name, spec]) => fieldChanged(spec, name, outputs, news));
    const later = anyLater ? planUpdate(def, outputs, news).filter((c) => c.fields.every(applyLater)) : [];
    // This resource's now: another resource of the program adopting it in this run (an adoptId that is this one's
    // output, known only at update) fails its check (claims.ts `adopting`), before any write.
    claimsIn(ctx).made.set(id, nameOf(news));
    return { id, outputs: await converge(withItem(ctx, id), later, undefined, news, outputs, "create", true) };
  }

  /** The object as the service shows it, or undefined when it is gone (404); another refusal is explained as `operation`'s. */
  async function getItem(ctx: ApplyContext, operation: "read" | "adopt" | "delete", props: Props): Promise<Props | undefined> {
    try {
      return (await ctx.client.request<Props>({ method: "GET", path: ctx.itemPath })).body ?? {};
    } catch (err) {
      if (isApiError(err, 404)) return undefined;
      throw isApiError(err) ? explainApiError(def, err, operation, props, ctx.id) : err;
    }
  }

  /** Bring an existing object (adoptId) to the declared state with PATCH/PUT instead of POST. */
  async function adopt(id: string, news: Inputs): Promise<Created> {
    const ctx = applyContext(id, news);
    // A 404 fails naming the id, the key's setting, the code and the request id (adoption.ts), unless the kind creates it then.
    const remote = await readToAdopt(ctx, news);
    if (!remote) return createNew(news);
    // Kept from the inputs as a create keeps them, but a create-only value the service holds (compared below): the
    // provider's own settings (`profile` too: else the next Diff replaced the adopted object) and the applied actions.
    const olds: Props = { ...remoteFields(def, remote), ...keptValues(def, news, (n) => roles.providerSide.has(n) || (def.fields[n]!.mode !== "createOnly" && !def.fields[n]!.writeOnly)) };
    for (const [name, spec] of fieldEntries(def)) {
      if (spec.mode !== "createOnly" || !spec.api) continue;
      const { managed, value } = declared(spec, news, name);
      if (!managed || (value === null && !def.adoption?.replaceWhenDifferent)) continue;
      // Check refuses it first (adoption.ts `adoptionConflicts`).
      if (spec.writeOnly) throw new Error(notOnExistingMessage(def, id, name));
      if (fieldEqual(spec, value, olds[name])) continue;
      if (def.adoption?.replaceWhenDifferent) {
        // No update route for it: the adopted object is deleted and created as declared.
        await deleteItem(ctx, olds);
        return createNew(news);
      }
      throw new Error(differsMessage(def, id, name, olds[name], value));
    }
    const marked = marking(remote, news);
    const outs = await converge(ctx, planUpdate(def, olds, marked), olds, news, olds, "adopt", false);
    adoptionNotes(id, remote, news, marked !== news);
    return { id, outputs: outs };
  }

  /**
   * An adopted object gets the adopter's mark wherever its owner field is free: the program
   * leaves it unset, the field can be written, and the object shows it empty or marked by
   * another resource (one more field in the PATCH). The resource that held it before (a
   * rename over two runs) then sees, at its delete, that it is another's now. Text a person
   * wrote there is kept, and then nothing proves the adoption to an earlier holder: the run
   * says so (`unmarkedAdoption`).
   */
  function marking(remote: Props, news: Inputs): Inputs {
    const owner = ownerField(def);
    const token = ownerTokenOf(news);
    const marked = markedOwner(def, remote);
    const shown = owner && remote[owner.api];
    const free = marked !== undefined || shown === undefined || shown === null || shown === "";
    if (!owner?.rewritable || !token || !free || marked === token || (news[owner.name] !== undefined && news[owner.name] !== null)) return news;
    return { ...news, [owner.name]: ownerMark(token) };
  }

  /**
   * An update that clears the owner field the program leaves unset (a person wrote text there since, which refresh
   * showed) writes this resource's mark there again, which reads show as unset: else the object would stay unmarked.
   */
  function remarked(calls: PlannedCall[], news: Inputs): PlannedCall[] {
    const owner = ownerField(def);
    const token = ownerTokenOf(news);
    if (!owner?.rewritable || !token || (news[owner.name] !== undefined && news[owner.name] !== null)) return calls;
    return calls.map((call) => (call.fields.includes(owner.name) ? { ...call, body: { ...(call.body as Props), [owner.api]: ownerMark(token) } } : call));
  }

  /**
   * Two resources of the program on one whole setting (a singleton that manages all of it: not one that manages only the
   * names it declares, `notHeldBy`, which checks its own names) through one connection: each up would write back the
   * other's values and each delete put back what it found. Told apart by the SDK's resource identity (RESOURCE_KEY).
   */
  function settingTwins(ctx: OperationContext, inputs: Inputs): CheckFailure[] {
    const resource = inputs[RESOURCE_KEY];
    if (!def.singleton || def.singleton.notHeldBy || typeof resource !== "string" || containsUnknown(inputs)) return [];
    const id = def.singleton.idOf(inputs);
    const clash = ctx.operation.claimKeys(resource, [JSON.stringify([def.kind, ctx.connectionId, id])]);
    const name = (identity: string) => identity.split("::").pop();
    return clash
      ? [{ property: "", reason: `\`${name(resource)}\` and \`${name(clash.by)}\` of this program both declare the ${def.noun} ${id}: each \`pulumi up\` would write back the other's values, and each delete put back what it found. Declare it in one resource.` }]
      : [];
  }

  /** What an adoption tells the user about ownership: an object another resource marked, or one it cannot mark. */
  function adoptionNotes(id: string, remote: Props, news: Inputs, marks: boolean): void {
    const owner = ownerField(def);
    const marked = markedOwner(def, remote);
    if (marked !== undefined && marked !== ownerTokenOf(news))
      note(`${adoptionInput} ${id}: the ${def.noun} carried the owner mark of another resource (owner ${marked}), now this one's. If that resource is of another stack, both stacks now manage the ${def.noun}: remove it from one with \`pulumi state delete <urn>\` (a rename within this stack needs nothing more).`);
    else if (!marks && marked === undefined) {
      const why = !owner ? `${withArticle(def.noun)} carries no owner mark` : !owner.rewritable ? `its ${owner.name} cannot be written again` : `its ${owner.name} holds the program's or a person's text`;
      note(`${adoptionInput} ${id}: the ${def.noun} cannot be marked as this resource's (${why}), so a resource that held it before cannot tell it was adopted: its delete would delete it. Rename with \`aliases\` instead of adoption, or remove the old resource with \`pulumi state delete <urn>\` rather than destroying it.`);
    }
  }

  /** A setting as the service shows it now. */
  const readSetting = async (ctx: ApplyContext): Promise<Props> => (await ctx.client.request<Props>({ method: "GET", path: ctx.itemPath })).body ?? {};

  /** What a take-over keeps to put back on delete, from the setting as read before it writes. */
  function foundBefore(remote: Props, news: Inputs): Props {
    if (def.singleton!.prior) return def.singleton!.prior(remote, news);
    const found = remoteFields(def, remote);
    return Object.fromEntries(fieldEntries(def).filter(([n, spec]) => ["patch", "put"].includes(spec.mode) && n in found).map(([n]) => [n, found[n]]));
  }

  /**
   * A singleton's Check: the Check of its create (no old inputs) reads the value found
   * before the take-over into the inputs (FOUND_KEY), so that the engine's pending create
   * holds it in the state before the take-over writes (a run killed after the write loses
   * nothing: `pulumi-svc recover` makes it the resource's); an existing resource's inputs
   * keep theirs. Not read when the preview skips the service (`svc:skipRemoteChecks`), nor
   * for a replacement in the setting's scope (its delete puts the value back after this
   * Check): the take-over then reads it, and only its answer records it.
   */
  async function checkFound(ctx: OperationContext | undefined, olds: Props, inputs: Inputs, failures: CheckFailure[]): Promise<void> {
    delete inputs[FOUND_KEY];
    if (Object.keys(olds).length > 0) {
      if (olds[FOUND_KEY] !== undefined) inputs[FOUND_KEY] = olds[FOUND_KEY];
      return;
    }
    if (!ctx || failures.length > 0 || containsUnknown(inputs) || remoteChecksSkipped()) return;
    const id = def.singleton!.idOf(inputs);
    if (claimsIn(ctx).replaced.has(id)) return;
    try {
      inputs[FOUND_KEY] = foundBefore(await readSetting(withItem(ctx, id)), inputs);
    } catch (err) {
      failures.push({ property: "", reason: (isApiError(err) ? explainApiError(def, err, "create", inputs, id) : (err as Error)).message });
    }
  }

  /**
   * A singleton: write every declared field, keeping what its Check found there
   * (`checkFound`) to put back on delete; what it reads first when the Check did not.
   */
  async function takeOver(news: Inputs): Promise<Created> {
    const singleton = def.singleton!;
    const id = singleton.idOf(news);
    const ctx = applyContext(id, news);
    const checked = news[FOUND_KEY] as Props | undefined;
    // Read here only when its Check did not: the write answers with the whole setting.
    let remote: Props = {};
    if (checked === undefined)
      try {
        remote = await readSetting(ctx);
      } catch (err) {
        throw isApiError(err) ? explainApiError(def, err, "create", news, id) : err;
      }
    const prior = checked ?? foundBefore(remote, news);
    const outputs: Outputs = { ...remoteFields(def, remote), ...keptValues(def, news), [singleton.priorField]: prior };
    // Every declared field is written, even one that already has the value: the resource now owns it.
    const outs = await converge(ctx, planUpdate(def, {}, news), undefined, news, outputs, "create", true);
    claimsIn(ctx).takenOver.set(id, canonicalJson(prior));
    return { id, outputs: outs };
  }

  /** DELETE the item; 404 is already gone; a refusal may be waited out (onDeleteRefused). */
  async function deleteItem(ctx: ApplyContext, previous: Props, current?: Props): Promise<void> {
    await def.hooks?.beforeDelete?.(ctx, previous, current);
    for (;;) {
      try {
        await ctx.client.request({ method: "DELETE", path: ctx.itemPath });
        return;
      } catch (err) {
        if (isApiError(err, 404)) return; // already gone
        if (isApiError(err) && err.status === 409 && def.hooks?.onDeleteRefused) {
          if ((await def.hooks.onDeleteRefused(err, ctx, previous)) === "gone") return;
          continue;
        }
        throw isApiError(err) ? explainApiError(def, err, "delete", previous, ctx.id) : err;
      }
    }
  }

  /**
   * A singleton's delete: put back the values found before the take-over, where the
   * service still holds what this resource wrote (read first: another stack or a person
   * may have set it since, and putting back an older value would undo theirs). Nothing
   * is put back under another resource of the run that holds the setting now.
   */
  async function restore(ctx: ApplyContext, previous: Props, prior: unknown = previous[def.singleton!.priorField]): Promise<void> {
    const singleton = def.singleton!;
    // Read with Resource.get, or state from before the take-over was recorded: nothing to put back.
    if (!prior || typeof prior !== "object") return;
    const claims = claimsIn(ctx);
    const takenOver = claims.takenOver;
    const newOwner = takenOver.get(ctx.id);
    // Another resource of the stack that holds the setting now, and what it found.
    let holder: { name: string; found: unknown } | undefined;
    if (newOwner !== undefined && newOwner !== canonicalJson(prior)) {
      holder = { name: "another resource of this run (a rename or a replacement)", found: JSON.parse(newOwner) };
    } else {
      // A resource removed from the program that held the setting with one the program keeps (a rename over two runs).
      const keeper = claims.keptFrom(ctx.id, previous);
      if (keeper) holder = { name: named(keeper.name), found: (JSON.parse(keeper.olds) as Props)[singleton.priorField] };
      else takenOver.delete(ctx.id);
    }
    let toRestore = prior as Props;
    if (holder) {
      const rest = holder.found && typeof holder.found === "object" ? singleton.notHeldBy?.(toRestore, holder.found as Props) : undefined;
      if (rest === undefined || canonicalJson(rest) !== canonicalJson(toRestore)) heldByAnother(ctx.id, holder.name, prior, holder.found);
      if (rest === undefined) return;
      toRestore = rest;
    }
    try {
      const remote = await readSetting(ctx);
      const split = (singleton.unchangedSince ?? unchangedFields)(toRestore, previous, remote);
      const part = split.restore;
      // One already back at the value found (a person put it back) is as it should be: nothing to say.
      const changed = split.changed.filter((c) => canonicalJson(c.holds) !== canonicalJson(c.found));
      if (changed.length > 0) {
        const each = changed.map((c) => `${c.setting} holds ${JSON.stringify(c.holds)}, not what this resource wrote, and would have been put back to ${JSON.stringify(c.found)}`);
        note(`The ${def.noun} ${ctx.id} was changed since this resource wrote it (by another stack or a person): ${each.join("; ")}. Left as it is: putting back the value found before would undo that change.`);
      }
      if (Object.keys(part).length === 0) return;
      if (singleton.restore) await singleton.restore(ctx, part, previous);
      else await runCalls(ctx, planUpdate(def, {}, part), part, previous);
    } catch (err) {
      if (isApiError(err, 404)) return; // the scope is gone, and the setting with it
      throw isApiError(err) ? explainApiError(def, err, "delete", previous, ctx.id) : err;
    }
  }

  /** `unchangedSince` by default: each field of `prior` whose value the service holds as the outputs have it. */
  function unchangedFields(prior: Props, outputs: Props, remote: Props): { restore: Props; changed: ChangedSetting[] } {
    const now = remoteFields(def, remote);
    const restore: Props = {};
    const changed: ChangedSetting[] = [];
    for (const [name, found] of Object.entries(prior)) {
      const spec = def.fields[name];
      if (spec === undefined || !(name in now) || fieldEqual(spec, now[name], outputs[name])) restore[name] = found;
      else changed.push({ setting: name, holds: now[name], found });
    }
    return { restore, changed };
  }

  /**
   * The setting is held by another resource of the stack: left as that one declares it.
   * The value this one found is lost when the holder found another (this one's own write,
   * when it took over from this one: a rename without an alias): the holder puts back
   * what it found.
   */
  function heldByAnother(id: string, holder: string, found: unknown, holderFound: unknown): void {
    const lost =
      holderFound === undefined || canonicalJson(holderFound) === canonicalJson(found)
        ? ""
        : ` What this one found before it took the setting over, ${JSON.stringify(found)}, is put back by no resource now: the holder found ${JSON.stringify(holderFound)} (this one's own write, after a rename or a replacement) and puts that back on delete. ` +
          `To keep the value found before, rename with an alias (\`aliases: [{ name: "<old name>" }]\`) rather than a new name; otherwise set it back by hand after destroying the holder.`;
    note(`The ${def.noun} ${id} was not put back: ${holder} holds it now, and it keeps that resource's values.${lost}`);
  }

  /**
   * Write-only fields the object has but the resource never applied (an imported object: the service never returns
   * them), left out of the program: the service's value stays, unmanaged until the program sets one, so check does
   * not demand them as it does for a create. Not when the object is replaced: the new one needs them.
   */
  function unappliedWriteOnly(olds: Props, news: Props): Set<string> {
    const absent = (v: unknown) => v === undefined || v === null;
    if (Object.keys(olds).length === 0 || fieldEntries(def).some(([name, spec]) => spec.mode === "createOnly" && fieldChanged(spec, name, olds, news))) return new Set();
    return new Set(fieldEntries(def).filter(([name, spec]) => spec.writeOnly && absent(olds[name]) && absent(news[name])).map(([name]) => name));
  }

  /**
   * The object as the service shows it before a delete, read (one GET) when the state says
   * this resource marked it and another resource's adoption could have marked it since (an
   * owner field that can be written: \`marking\`): does it still carry this resource's mark?
   * Undefined when not read, or gone.
   */
  async function readIfMarked(ctx: ApplyContext, previous: Props): Promise<Props | undefined> {
    return ownerField(def)?.rewritable && ownerTokenOf(previous) !== undefined ? getItem(ctx, "delete", previous) : undefined;
  }

  /** The Diff of an open question's entry: replaced, so that its create asks again (open-question.ts). */
  function askedAgain(ctx: OperationContext | undefined, olds: Props, news: Inputs): DiffResponse {
    const identity = news[RESOURCE_KEY];
    if (ctx && typeof identity === "string") claimsIn(ctx).openQuestions.set(identity, olds);
    return { changes: true, diffs: [UNRESOLVED_KEY], replaces: [UNRESOLVED_KEY], deleteBeforeReplace: false };
  }

  const operations: Operations = {
    definition: def,

    async check({ olds, news }) {
      const checked = checkInputs(def, news);
      const inputs = checked.inputs;
      // A new resource (or a replacement's object, checked with no old inputs) gets its owner token; an existing one keeps its own.
      const token = ownerTokenOf(olds) ?? (Object.keys(olds).length === 0 && !def.singleton ? newOwnerToken() : undefined);
      if (token !== undefined) inputs[OWNER_KEY] = token;
      else delete inputs[OWNER_KEY];
      const unapplied = unappliedWriteOnly(olds, news);
      const failures = checked.failures.filter((f) => !unapplied.has(f.property));
      // This resource is the program's: its Diffs keep objects (a refresh's Diff of a removed one does not).
      const name = nameOf(inputs);
      if (name !== undefined) currentOperation().checkedNames.add(`${def.kind}\u0000${name}`);
      if (containsUnknown(inputs.profile)) return { inputs, failures };
      let ctx: OperationContext | undefined;
      try {
        ctx = operationContext(def, profileOf(inputs));
      } catch (err) {
        if (!(err instanceof MissingSettingError || err instanceof InvalidSettingError || (err as Error).message?.includes("svc:profiles"))) throw err;
        // Named on `profile` only when one is set: the default profile's settings are the stack's.
        failures.push({ property: profileOf(inputs) ? "profile" : "", reason: (err as Error).message });
      }
      if (!def.singleton) {
        try {
          reconcileWindowSeconds();
        } catch (err) {
          failures.push({ property: "", reason: (err as Error).message });
        }
      }
      if (ctx && failures.length === 0 && !def.singleton) {
        const clash = adoptionClash(ctx, inputs);
        if (clash) failures.push({ property: adoptionInput, reason: clash });
      }
      if (ctx && failures.length === 0) failures.push(...(await remoteCheckFailures(def, inputs, ctx, olds)));
      if (ctx && failures.length === 0) failures.push(...settingTwins(ctx, inputs));
      if (def.singleton) await checkFound(ctx, olds, inputs, failures);
      return { inputs, failures };
    },

    diff({ id, olds, news }) {
      const ctx = contextOf(news);
      if (isOpenQuestion(id)) return askedAgain(ctx, olds, news);
      const fields = diffFields(def, olds, news);
      const d = def.hooks?.adjustDiff ? def.hooks.adjustDiff(fields, olds, news, id, ctx) : fields;
      holdNamedId(id, olds, news, d.replaces.length > 0);
      // A setting replaced in its own scope (a profile change) is deleted first: its delete puts back the value it found,
      // then the replacement takes the setting over and finds that value. Created first, the replacement's write would
      // be undone by that delete wherever the two are not known to be one setting (another profile's key), and what it
      // found would be the old resource's write. Its create's Check, before the delete, must not read it (`checkFound`).
      const inScope = def.singleton !== undefined && d.replaces.length > 0 && !containsUnknown(news) && def.singleton.idOf(news) === id;
      if (inScope && ctx) claimsIn(ctx).replaced.add(id);
      const diffs = [...new Set([...d.changed, ...d.replaces])];
      return { changes: diffs.length > 0, diffs, replaces: d.replaces, deleteBeforeReplace: d.deleteBeforeReplace || inScope };
    },

    create,

    async read({ id, outputs: stored }) {
      const previous = stored ?? {};
      // An open question has no object to read: kept as it is.
      if (isOpenQuestion(id)) return { gone: false, id, outputs: previous, inputs: rebuildInputs(def, {}, previous) };
      const ctx = applyContext(id, previous);
      // A burst of reads (a refresh) is served from one paged listing of the kind.
      const remote = (await readFromListing(def, ctx, id)) ?? (await getItem(ctx, "read", previous));
      // Deleted outside Pulumi.
      if (!remote || def.hooks?.goneWhen?.(remote)) return { gone: true };
      // No state yet (an import or a get): no field but the profile its id may name (the upgrade marks a shape on anything).
      const noState = fieldEntries(def).every(([name]) => name === "profile" || previous[name] === undefined);
      // An import (or a get) of an object another resource marked: that resource's delete deletes it (rule 5 warns likewise for adoptId).
      const markedBy = noState ? markedOwner(def, remote) : undefined;
      if (markedBy !== undefined)
        note(`The ${def.noun} ${id} carries the owner mark of another Pulumi resource (owner ${markedBy}). If this is \`pulumi import\` into another stack, both stacks now manage it and that resource's destroy deletes it: import only what no stack holds, or remove it from the other stack with \`pulumi state delete <urn>\` first.`);
      // Write-only values go to the outputs too: diff compares the declared value with them.
      const learnt = writeOnlyAsRead(def, remote, previous);
      const outputs = completeOutputs(def, { ...keptValues(def, previous), ...previous, ...remoteFields(def, remote), ...learnt });
      const inputs = rebuildInputs(def, remote, { ...previous, ...learnt });
      // With no state, the inputs are what an import's generated code is to declare; with state, what refresh shows.
      return { gone: false, id, outputs, inputs: def.hooks?.readInputs ? def.hooks.readInputs(inputs as InputsOf<F>, id, noState ? undefined : (previous as OutputsOf<F>)) : inputs };
    },

    async update({ id, olds: previous, news: next }) {
      const ctx = applyContext(id, next);
      // Provider-side settings take effect without a call.
      const outputs = { ...previous, ...keptValues(def, next, (n) => roles.providerSide.has(n)) };
      const updated = await converge(ctx, remarked(planUpdate(def, previous, next), next), previous, next, outputs, "update", false);
      const givenBack = def.singleton?.givenBack?.(previous as OutputsOf<F>, next as InputsOf<F>);
      if (givenBack) await restore(ctx, previous, givenBack);
      return { outputs: updated };
    },

    async delete({ id, outputs: previous }) {
      const question = questionOf(previous);
      if (isOpenQuestion(id) && question) return askAgain(def, operationContext(def, profileOf(previous)), question, previous, "delete");
      const ctx = applyContext(id, previous);
      if (def.singleton) return restore(ctx, previous);
      const claims = claimsIn(ctx);
      // A resource removed from the program that held the object with the one that keeps or adopted it (a rename adopting it).
      const keeper = claims.keptFrom(id, previous);
      if (keeper) {
        note(`The ${def.noun} ${id} was not deleted: ${named(keeper.name)} holds it (e.g. renamed, with adoption). It stays, managed by that resource; this resource is removed from the state.`);
        return;
      }
      // Marked by another resource since (it adopted the object: a rename with \`up --target\`), on any machine.
      const current = await readIfMarked(ctx, previous);
      const markedBy = current && markedOwner(def, current);
      if (markedBy && markedBy !== ownerTokenOf(previous)) {
        note(`The ${def.noun} ${id} was not deleted: it carries the owner mark of another resource, which adopted it since (in this stack, a rename with adoption and \`pulumi up --target\`; or another stack's \`adoptId\`). It stays, managed by that resource; this resource is removed from the state.`);
        return;
      }
      await deleteItem(ctx, previous, current);
      claims.release(id);
    },
  };
  return { ...operations, definition } as Operations<F>;
}
