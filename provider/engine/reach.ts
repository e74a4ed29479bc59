/**
 * Where an object lives, and whether the key in use can see it (issue 35, item 1). A 404
 * means "gone" only to a key of the object's workspace (and, for a key confined to a
 * project, of its project): a key of another workspace gets 404 for every object of this
 * stack, and a refresh that took that for deletions would empty the state while the
 * objects stay live, held by no state.
 *
 * Where an entry lives (`whereRecorded`) is known only from an answer that proves it:
 * - the key's reach when it made the entry (create: the write went there), kept under
 *   WORKSPACE_KEY in the outputs; the Check of a create reads it into the inputs
 *   (CREATED_IN_KEY), so that a pending create of a killed run says where it went, and
 *   `pulumi-svc recover` finds "nothing there" only with a key of that place;
 * - what the service answered for the entry itself: the workspace's own id
 *   (WorkspaceSettings' `workspaceId`), an infrastructure object's `projectId`;
 * - a read answered under the key for an entry the state holds, when the answer is that
 *   object: its id is the service's own (not a name or a scope, which any workspace may
 *   hold), or it carries the creation time the state recorded. A setting answers for
 *   whatever workspace the key reaches: its read proves nothing.
 * The operations that may find an entry gone or write it (read on refresh and import,
 * update, delete) first compare what the connection's key reaches with it; Check of an
 * existing resource reads the reach and its Diff compares, so the `up` that installs
 * another workspace's key fails its preview, before anything is stored. Each fails
 * naming both. A key whose reach cannot be read (its identity read failed) does nothing to
 * an entry the state holds: read, update, delete and Diff fail, saying to run again. Where
 * the entry's side is unknown (a state written before this release), the safe side is taken: a 404
 * never drops an entry the state holds (the read fails, naming what to do), an entry
 * addressed by a name or a scope is never changed, a setting's delete puts nothing back,
 * and an object addressed by the service's id is read first (a 404 fails; an answer
 * proves it). No upgrader (upgrade.ts): an upgrader is pure and cannot ask the service.
 *
 * What names a key's reach, per product (shared/spec, emulator):
 * - Webhooks: `GET /v1/auth/me` answers `workspace_id`, and `project_id` for a key
 *   confined to a project. One read per connection and operation (the operation's read
 *   cache, shared with confined-key.ts).
 * - Inboxes: no route names the workspace. Its audit log is never deleted (spec 3), so
 *   its OLDEST entry is the workspace's for good: two reads (the log's `total`, then the
 *   entry at `total - 1`), once per connection and operation. An empty log is a workspace
 *   where no inbox was ever made: never the one of an object this stack holds (it is
 *   compared as such, and read again, not cached, as a create may write its first entry).
 * - Infrastructure: a key acts on its own project (spec 1), which a quota read answers
 *   (`project_id`): the same read the kinds' checks make (quota-limits.ts `keyProject`).
 */
import { isApiError } from "../client";
import { apiKeysIn, PRODUCTS, profileOf, profileTable, settingNames, type ConfigSource, type Product } from "../config";
import { keyProject } from "../infra/quota-limits";
import { contextOrNone, operationContext, type Reach } from "./engine-operation";
import { missingPathMessage, note, PartialFailure } from "./errors";
import type { OperationContext, Props, ResourceDefinition } from "./fields";
import { CREATED_IN_KEY, WORKSPACE_KEY } from "./internal-keys";
import type { Operations } from "./operations";
import { remoteChecksSkipped } from "./remote-checks";
import { containsUnknown } from "./unknown";

/** Reads the key's reach; `props` are the entry's (an infrastructure key's project is answered by a read of the entry's quota service). */
type ReachReader = (ctx: OperationContext, props: Props | undefined) => Promise<Reach | undefined>;

/** Webhooks: the key's own answer. The cache key is confined-key.ts's, so both share one call. */
async function webhooksReach(ctx: OperationContext): Promise<Reach | undefined> {
  const me = await ctx.cached("webhooks:auth-me", async () => (await ctx.client.request<{ workspace_id?: unknown; project_id?: unknown }>({ method: "GET", path: "/v1/auth/me" })).body);
  if (typeof me?.workspace_id !== "string") return undefined;
  return typeof me.project_id === "string" && me.project_id !== "" ? { workspace: me.workspace_id, project: me.project_id } : { workspace: me.workspace_id };
}
/** Inboxes: the workspace's oldest audit entry (see the header). An empty log is not cached: the next create writes its first entry. */
async function inboxesReach(ctx: OperationContext): Promise<Reach | undefined> {
  try {
    const oldest = await ctx.cached("inboxes:audit-oldest", async () => {
      const audit = (query: Record<string, string>) => ctx.client.request<{ data?: { id?: unknown }[]; total?: unknown }>({ method: "GET", path: "/v1/audit", query });
      // Newest first and only growing: the entry at offset total-1 is the oldest only when no
      // entry came between the two reads (a create of this run, or anyone's), which the second
      // page's own total tells; else read again at the new end.
      let total = (await audit({ limit: "1" })).body?.total;
      for (let reads = 0; reads < 5; reads++) {
        if (typeof total !== "number" || total < 1) throw new EmptyAuditLog();
        const page = (await audit({ limit: "1", offset: String(total - 1) })).body;
        const id = page?.data?.[0]?.id;
        if (typeof page?.total === "number" && page.total !== total) {
          total = page.total;
          continue;
        }
        if (typeof id !== "string") throw new EmptyAuditLog();
        return id;
      }
      throw new Error("The Inboxes audit log kept growing while its oldest entry was read (it names the key's workspace): run again.");
    });
    return { workspace: `${AUDIT}${oldest}` };
  } catch (err) {
    if (err instanceof EmptyAuditLog) return { workspace: NO_INBOX_EVER };
    throw err;
  }
}

class EmptyAuditLog extends Error {}

/** Inboxes' workspaces are named by their oldest audit entry; an empty log by this (never recorded). */
const AUDIT = "audit:";
const NO_INBOX_EVER = AUDIT;

/** The workspace a reach names for good: none for an Inboxes workspace whose log is empty (two such keys are not known to be one account). */
export const knownWorkspace = (reach: Reach | undefined): string | undefined => (reach && reach.workspace !== NO_INBOX_EVER ? reach.workspace : undefined);

/** Infrastructure: the key's own project (an object's `projectId` is one too). */
const PROJECT = "project:";
async function infraReach(ctx: OperationContext, props: Props | undefined): Promise<Reach | undefined> {
  const project = await keyProject(ctx, typeof props?.service === "string" ? props.service : "compute", props?.region);
  return project === undefined ? undefined : { workspace: `${PROJECT}${project}` };
}

const READERS: Record<Product, ReachReader> = { webhooks: webhooksReach, inboxes: inboxesReach, infra: infraReach };

/** The reach of the context's key, or undefined when it cannot be read (see the header). */
export async function reachOf(def: { product: Product }, ctx: OperationContext, props?: Props): Promise<Reach | undefined> {
  let reach: Reach | Error;
  try {
    reach = (await READERS[def.product](ctx, props)) ?? new Error("the service's answer named no workspace");
  } catch (err) {
    // A wrong address answers the identity read 404 without details: said as for any call (errors.ts).
    reach = isApiError(err) && err.missingPath ? new Error(missingPathMessage(def, err, profileOf(props))) : err instanceof Error ? err : new Error(String(err));
  }
  ctx.operation.reaches.set(ctx.connectionId, reach);
  return reach instanceof Error ? undefined : reach;
}

/**
 * Why nothing is done to an entry the state holds when the key's reach could not be read:
 * a 404 could not be told from another workspace's, nor a write from one into another.
 */
function reachUnknown(def: ResourceDefinition, id: string, outputs: Props | undefined, why: Error | undefined): string {
  return `This stack's ${def.noun} ${id} was not read, changed or deleted: where the key of \`${keyOf(def, outputs)}\` belongs could not be read (${why?.message ?? "not read"}), and without it a 404 cannot be told from another workspace's, nor a write from one into another workspace. Run again; if it persists, check the key and the service's URL. Nothing was changed or forgotten.`;
}

/** How the messages name a workspace: Inboxes' by its oldest audit entry, an infrastructure key's by its project. */
function named(workspace: string): string {
  if (workspace === NO_INBOX_EVER) return "a workspace where no inbox was ever made (its audit log is empty)";
  if (workspace.startsWith(PROJECT)) return `project ${workspace.slice(PROJECT.length)}`;
  return workspace.startsWith(AUDIT) ? `the workspace whose oldest audit entry is ${workspace.slice(AUDIT.length)}` : `workspace ${workspace}`;
}

/** The project an object lives in, as its outputs say (undefined: none recorded, or workspace-wide). */
const projectOf = (outputs: Props) => (typeof outputs.projectId === "string" && outputs.projectId !== "" ? outputs.projectId : undefined);

/**
 * Where the entry of these outputs lives, from what proved it (see the header), or
 * undefined when nothing did (a state written before this release).
 */
export function whereRecorded(def: ResourceDefinition, outputs: Props | undefined): string | undefined {
  const recorded = outputs?.[WORKSPACE_KEY];
  if (typeof recorded === "string") return recorded;
  if (def.product === "infra") return outputs && projectOf(outputs) ? `${PROJECT}${projectOf(outputs)}` : undefined;
  return typeof outputs?.workspaceId === "string" ? outputs.workspaceId : undefined;
}

/** Whether the entry's id is the service's own: no other workspace holds an object answering to it. A setting's (a scope) and a named entry's are not. */
const addressedById = (def: ResourceDefinition) => !def.singleton && !Object.values(def.fields).some((field) => field.uniqueName === true);

/** Whether this answer to a read of the entry of `outputs` is that entry (see the header). */
const isTheEntry = (def: ResourceDefinition, outputs: Props, answer: Props) =>
  addressedById(def) || (def.singleton === undefined && typeof outputs.createdAt === "string" && answer.createdAt === outputs.createdAt);

const keyOf = (def: ResourceDefinition, outputs: Props | undefined) => settingNames(def.product, "ApiKey", profileOf(outputs)).configKey;

/**
 * Why the key cannot see where the object of these outputs lives, or undefined when it can,
 * or when either side is not known.
 */
export function outOfReach(def: ResourceDefinition, reach: Reach | undefined, id: string, outputs: Props | undefined): string | undefined {
  const recorded = whereRecorded(def, outputs);
  if (!reach || recorded === undefined) return undefined;
  const key = keyOf(def, outputs);
  const fix = `set the right key in \`${key}\` (or in \`${settingNames(def.product, "ApiKey", profileOf(outputs)).envVar}\`, where the key comes from the environment), or, if these objects were really moved or deleted, remove them from the state with \`pulumi state delete <urn>\` (\`pulumi stack --show-urns\` lists them). \`pulumi refresh\` and \`pulumi destroy\` use the keys the last \`pulumi up\` stored, a failed one too: once the key is right, run \`pulumi up\` (or \`pulumi refresh --run-program\`). Nothing was changed or forgotten.`;
  if (recorded !== reach.workspace)
    return `The key of \`${key}\` belongs to ${named(reach.workspace)}; this stack's ${def.noun} ${id} lives in ${named(recorded)}: ${fix}`;
  const project = projectOf(outputs!);
  if (reach.project && project && project !== reach.project)
    return `The key of \`${key}\` is confined to project ${reach.project} of ${named(reach.workspace)}; this stack's ${def.noun} ${id} lives in project ${project}: ${fix}`;
  return undefined;
}

/** The key of `svc:...` as the messages name it, with where it reaches. */
const theKey = (def: ResourceDefinition, reach: Reach, outputs: Props | undefined) => `the key of \`${keyOf(def, outputs)}\` (it belongs to ${named(reach.workspace)})`;

/** Where each API key of the stack config reaches, by its config key (`svc:webhooksApiKey`, a profile's): kept in the provider's own state. */
export type ReachRecord = Record<string, Reach>;

/**
 * Why the stack config's key of a product (stack-wide or a profile's) now reaches another place than the key it
 * replaces, and where each key reaches now (`reached`, to keep for the next run): judged once per provider, where the
 * engine gives the provider's old config (the native plugin's CheckConfig), so the preview fails before any step. Per
 * resource, Check and Diff compare (above); but `pulumi up --replace <urn>` gives the replaced resource's Check no old
 * inputs and calls no Diff (the engine's step_generator.go, `isTargetedReplace`), so nothing a resource keeps is
 * compared before its create.
 *
 * Where the old key reached is what the provider's stored config recorded (`recorded`: the last run's `reached`), so
 * that it is known when the old key no longer answers (revoked by a rotation); else it is read with the old key. An
 * unchanged key with a record is not read again. A move: another workspace; another project than the one a confined key
 * replaced; a key confined to a project replacing one of every project (this stack's objects may be in others); an
 * Inboxes key of a workspace where no inbox was ever made replacing one that had (a log only grows: not the same
 * workspace). Nothing is judged where the old key's place is unknown (no record, and it no longer answers or named no
 * workspace for good). A new key whose reach cannot be read fails, saying to run again. A key from the environment has
 * no old value to compare (README "Limits"). `explicitProvider`: the name of the program's provider resource this config
 * is (undefined: the default provider, configured by the stack config), so that a message names the setting as the
 * user sets it.
 */
export async function movedKeys(olds: ConfigSource, news: ConfigSource, recorded: ReachRecord = {}, explicitProvider?: string): Promise<{ reasons: string[]; reached: ReachRecord }> {
  const before = new Set(apiKeysIn(olds));
  const after = new Set(apiKeysIn(news));
  const profiles = [undefined, ...Object.keys(profileTable(news))];
  const reasons: string[] = [];
  const reached: ReachRecord = {};
  for (const product of PRODUCTS) {
    for (const profile of profiles) {
      const { configKey, envVar } = settingNames(product, "ApiKey", profile);
      if (!after.has(configKey)) continue;
      // How the user sets this key: the stack config (the default provider), or a property of their provider resource.
      const setting = explicitProvider === undefined ? `\`${configKey}\`` : `\`${configKey.replace(/^svc:/, "")}\` of provider \`${explicitProvider}\``;
      const newCtx = contextOrNone(product, profile, news);
      if (!newCtx) continue;
      const oldCtx = before.has(configKey) ? contextOrNone(product, profile, olds) : undefined;
      const kept = knownWorkspace(recorded[configKey]) !== undefined ? recorded[configKey] : undefined;
      // The same connection (the key unchanged): nothing to compare, and nothing to read where it is recorded.
      const unchanged = oldCtx !== undefined && oldCtx.connectionId === newCtx.connectionId;
      if (unchanged && kept) {
        reached[configKey] = kept;
        continue;
      }
      const to = await reachOf({ product }, newCtx);
      if (knownWorkspace(to)) reached[configKey] = to!;
      if (unchanged || !oldCtx) continue;
      const from = kept ?? (await reachOf({ product }, oldCtx));
      const was = knownWorkspace(from);
      // The old key unread for another cause than its being refused (a revoked key: a rotation): nothing says where
      // this stack's objects are, and a targeted replacement would create wherever the new key reaches.
      const oldWhy = from ? undefined : reachRead(oldCtx);
      if (oldWhy instanceof Error && !isApiError(oldWhy, 401) && !isApiError(oldWhy, 403)) {
        reasons.push(`Where the key ${setting} had before belongs could not be read (${oldWhy.message}), nor is it recorded, so a change to a key of another workspace cannot be told from a rotation. Run again; if it persists, check the service's URL. Nothing was changed.`);
        continue;
      }
      if (!was) continue;
      // The new key unread (its identity read failed): it might be another workspace's, where a targeted replacement would create.
      if (!to) {
        const why = reachRead(newCtx);
        reasons.push(`Where the new key of ${setting} belongs could not be read (${why instanceof Error ? why.message : "not read"}); the key it replaces reached ${named(was)}, and with a key of another workspace, objects this stack made there would be made again in that one. Run again; if it persists, check the key and the service's URL. Nothing was changed.`);
        continue;
      }
      // What the user may mean: keep the old place, or move on purpose (the record only knows where the old key reached,
      // not whether this stack still holds objects made with it).
      const meant =
        explicitProvider === undefined
          ? `run one \`pulumi up\` with the new key in ${envVar} instead of the config (\`pulumi config rm ${configKey}\`), then set it in the config again`
          : `declare the provider under a new name, without \`aliases\` (a new provider has no old key to compare)`;
      const fix = (keep: string) => `${keep}. If the move is meant (this stack holds no ${product} object made with the old key any more: \`pulumi stack --show-urns\`), ${meant}. Nothing was changed.`;
      const lost = `a key that cannot see them would find them gone on refresh, and an up would make them again where it reaches`;
      if (to.workspace !== was)
        reasons.push(`The key of ${setting} was changed to one of ${named(to.workspace)}; the key it replaces reached ${named(was)}, where any ${product} object this stack made with it lives: ${lost}. ${fix(`To keep them, set a key of ${named(was)} in ${setting}`)}`);
      else if (from!.project && to.project && from!.project !== to.project)
        reasons.push(`The key of ${setting} was changed to one confined to project ${to.project} of ${named(was)}; the key it replaces was confined to project ${from!.project}, where any ${product} object this stack made with it lives: ${lost}. ${fix(`To keep them, set a key that reaches project ${from!.project} in ${setting}`)}`);
      else if (!from!.project && to.project)
        reasons.push(`The key of ${setting} was changed to one confined to project ${to.project} of ${named(was)}; the key it replaces reaches every project of it, so ${product} objects this stack made with it may be in others: ${lost}. ${fix(`To keep them, set a key of every project of ${named(was)} in ${setting}`)}`);
    }
  }
  return { reasons, reached };
}

/**
 * Why the key of `reach` cannot judge what a pending create of these inputs made (`pulumi-svc recover`): the
 * create's Check recorded another place for its key (CREATED_IN_KEY), or none, or this key's reach is unread.
 * Undefined: this key sees where the create went, so finding nothing there means it made nothing.
 */
export function blindToCreate(def: ResourceDefinition, reach: Reach | undefined, inputs: Props, ctx?: OperationContext): string | undefined {
  const created = inputs[CREATED_IN_KEY] as Reach | undefined;
  const key = keyOf(def, inputs);
  const unread = () => {
    const why = reachRead(ctx);
    return `where the key of \`${key}\` belongs could not be read (${why instanceof Error ? why.message : "not read"})`;
  };
  if (created === undefined)
    return `the state does not say where the create went (it was checked before this release recorded it, with \`svc:skipRemoteChecks\`, or in an Inboxes workspace where no inbox was ever made); ${reach ? `the key of \`${key}\` belongs to ${named(reach.workspace)}${reach.project ? `, project ${reach.project}` : ""}` : unread()}`;
  if (!reach) return unread();
  if (reach.workspace !== created.workspace) return `the create was made with a key of ${named(created.workspace)}; the key of \`${key}\` belongs to ${named(reach.workspace)}`;
  if (reach.project !== undefined && reach.project !== created.project)
    return `the create was made with a key ${created.project ? `confined to project ${created.project}` : "of every project"} of ${named(created.workspace)}; the key of \`${key}\` is confined to project ${reach.project}`;
  return undefined;
}

/** Why a 404 does not drop an entry the state holds when either side is unknown. */
function notProvenGone(def: ResourceDefinition, reach: Reach, id: string, outputs: Props): string {
  const recorded = whereRecorded(def, outputs);
  const where = recorded === undefined ? "the state does not say where it lives (it was written before this release recorded it)" : `it lives in ${named(recorded)}`;
  return `This stack's ${def.noun} ${id} was not found with ${theKey(def, reach, outputs)}, and ${where}: a key of another workspace or project finds nothing either. If the key is the right one and the ${def.noun} was deleted, remove it from the state with \`pulumi state delete <urn>\` (\`pulumi stack --show-urns\` lists them); else set the right key in \`${keyOf(def, outputs)}\`. Nothing was changed or forgotten.`;
}

/** Why an entry addressed by a name or a scope, whose place no answer proved, is not changed. */
function notProvenHere(def: ResourceDefinition, reach: Reach, id: string, outputs: Props): string {
  return `This stack's ${def.noun} ${id} is not changed with ${theKey(def, reach, outputs)}: the state was written before this release recorded where each entry lives, and the service answers for such an entry (a setting, or one known by its name) in whatever workspace the key reaches, so nothing proves it is this stack's. If the key is the right one, remove the entry with \`pulumi state delete <urn>\` (\`pulumi stack --show-urns\` lists them) and run \`pulumi up\` (it is taken over again, and where it lives recorded); else set the right key in \`${keyOf(def, outputs)}\`. Nothing was changed or forgotten.`;
}

/** The reach Check read for this context, for Diff: an Error when it could not be read, undefined when none was read. */
function reachRead(ctx: OperationContext | undefined): Reach | Error | undefined {
  return ctx?.operation.reaches.get(ctx.connectionId);
}

/**
 * A kind's operations that record where each entry lives and fail, naming both, where
 * the key cannot see it: before read, update and delete, and in Diff (from the reach the
 * Check of the existing resource read); and that take the safe side where either is not
 * known (see the header).
 */
export function reaching(ops: Operations): Operations {
  const def = ops.definition as ResourceDefinition;
  const ctxOf = (props: Props | undefined) => operationContext(def, profileOf(props));
  /**
   * The reach of the key these inputs choose, for Check: the one read already in the operation if any (an Inboxes
   * workspace's empty log is not cached, and the kind's own check read it; a failed read is read again); undefined
   * when unreadable, or when no connection can be made (check has said why).
   */
  const keyReach = async (inputs: Props): Promise<Reach | undefined> => {
    const ctx = contextOrNone(def.product, profileOf(inputs));
    if (!ctx) return undefined;
    const read = reachRead(ctx);
    return read && !(read instanceof Error) ? read : reachOf(def, ctx, inputs);
  };
  /** The reach of the key the outputs of an entry the state holds choose, failing when it cannot see the entry, or cannot be read. */
  const guard = async (id: string, outputs: Props): Promise<Reach> => {
    const ctx = ctxOf(outputs);
    const reach = await reachOf(def, ctx, outputs);
    if (!reach) throw new Error(reachUnknown(def, id, outputs, reachRead(ctx) as Error | undefined));
    const why = outOfReach(def, reach, id, outputs);
    if (why) throw new Error(why);
    return reach;
  };
  /** The outputs with where the entry lives, when the outputs do not prove it already. */
  const recorded = (outputs: Props, workspace: string | undefined): Props =>
    workspace === undefined || whereRecorded(def, outputs) !== undefined ? outputs : { ...outputs, [WORKSPACE_KEY]: workspace };
  const read: Operations["read"] = async (req) => {
    const outputs = req.outputs !== undefined && Object.keys(req.outputs).length > 0 ? req.outputs : undefined;
    if (!outputs) {
      // An import: the state holds nothing yet; it reads by the service's id, so an answer is the entry's own.
      const reach = await reachOf(def, ctxOf(req.outputs), req.outputs);
      const res = await ops.read(req);
      return res.gone ? res : { ...res, outputs: recorded(res.outputs, knownWorkspace(reach)) };
    }
    const reach = await guard(req.id, outputs);
    const res = await ops.read(req);
    const where = whereRecorded(def, outputs);
    if (res.gone) {
      if (where === undefined) throw new Error(notProvenGone(def, reach, req.id, outputs));
      return res;
    }
    // Kept as recorded; learnt where the answer is the entry's own.
    if (where !== undefined) return { ...res, outputs: recorded(res.outputs, typeof outputs[WORKSPACE_KEY] === "string" ? where : undefined) };
    if (isTheEntry(def, outputs, res.outputs)) return { ...res, outputs: recorded(res.outputs, knownWorkspace(reach)) };
    // Not proven the entry: the creation time it is known by stays the state's, so another workspace's namesake never becomes its proof.
    return typeof outputs.createdAt === "string" ? { ...res, outputs: { ...res.outputs, createdAt: outputs.createdAt } } : res;
  };
  return {
    ...ops,
    async check(req) {
      const res = await ops.check(req);
      const created = req.olds[CREATED_IN_KEY];
      if (Object.keys(req.olds).length > 0) {
        // An existing resource keeps where it was created; its Diff compares the key's reach now (it may have changed since).
        if (created !== undefined) res.inputs[CREATED_IN_KEY] = created;
        await keyReach(res.inputs);
      } else if (res.failures.length === 0 && !containsUnknown(res.inputs) && !remoteChecksSkipped()) {
        // A create: where its key reaches goes into the inputs the engine's pending create holds (CREATED_IN_KEY).
        const reach = await keyReach(res.inputs);
        if (knownWorkspace(reach)) res.inputs[CREATED_IN_KEY] = { ...reach };
      }
      return res;
    },
    diff(req) {
      const reach = reachRead(contextOrNone(def.product, profileOf(req.news)));
      if (reach instanceof Error) throw new Error(reachUnknown(def, req.id, req.olds, reach));
      const why = outOfReach(def, reach, req.id, req.olds);
      if (why) throw new Error(why);
      const diff = ops.diff(req);
      // The update would be refused (below): say so at preview.
      if (diff.changes && diff.replaces.length === 0 && whereRecorded(def, req.olds) === undefined && !addressedById(def) && reach)
        throw new Error(notProvenHere(def, reach, req.id, req.olds));
      return diff;
    },
    async create(req) {
      // Where its Check found the key reaching (the same key: one operation); else read after the create (an Inboxes
      // workspace's first create writes its first audit entry).
      const checked = req.inputs[CREATED_IN_KEY] as Reach | undefined;
      const where = async () => checked?.workspace ?? knownWorkspace(await reachOf(def, ctxOf(req.inputs), req.inputs));
      try {
        const res = await ops.create(req);
        return whereRecorded(def, res.outputs) !== undefined ? res : { ...res, outputs: recorded(res.outputs, await where()) };
      } catch (err) {
        // A partial failure is a state entry too (an object made part way, an open question's placeholder): where it lives with it.
        if (err instanceof PartialFailure && whereRecorded(def, err.properties) === undefined) Object.assign(err.properties, recorded(err.properties, await where()));
        throw err;
      }
    },
    read,
    async update(req) {
      const reach = await guard(req.id, req.olds);
      const where = whereRecorded(def, req.olds);
      if (where === undefined && !addressedById(def)) throw new Error(notProvenHere(def, reach, req.id, req.olds));
      const res = await ops.update(req);
      // Updated by the service's id under this key: the object is where the key reaches.
      return { ...res, outputs: recorded(res.outputs, where ?? knownWorkspace(reach)) };
    },
    async delete(req) {
      const reach = await guard(req.id, req.outputs);
      if (whereRecorded(def, req.outputs) === undefined) {
        if (def.singleton) {
          note(`This stack's ${def.noun} was left as it is (nothing put back) with ${theKey(def, reach, req.outputs)}: the state was written before this release recorded which workspace it is in, and a setting answers for whatever workspace the key reaches. Put it back by hand if it should be.`);
          return;
        }
        // A 404 of the delete would be taken for "already gone": read it first (a 404 fails; an answer proves where it lives, or not).
        const found = await read({ id: req.id, outputs: req.outputs });
        if (found.gone || whereRecorded(def, found.outputs) === undefined) throw new Error(notProvenHere(def, reach, req.id, req.outputs));
      }
      return ops.delete(req);
    },
  };
}
