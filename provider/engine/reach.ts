/**
 * Where an object lives, and whether the key in use can see it (issue 35, item 1). A 404
 * means "gone" only to a key of the object's workspace (and, for a key confined to a
 * project, of its project): a key of another workspace gets 404 for every object of this
 * stack, and a refresh that took that for deletions would empty the state while the
 * objects stay live, held by no state.
 *
 * So each object's outputs record its workspace under WORKSPACE_KEY, as the service names
 * it (`where`), and the operations that may find an object gone (read on refresh and
 * import, delete, update) first compare what the connection's key reaches with it; Check
 * of an existing resource reads the reach and its Diff compares, so the `up` that installs
 * another workspace's key fails its preview, before anything is stored. Each fails naming
 * both. A state written before the key was recorded learns it on its next read (the
 * engine's refresh compares inputs, which do not change; nothing is written to the
 * service); until then nothing is compared. No upgrader (upgrade.ts) and no new shape:
 * an upgrader is pure and cannot ask the service, and an absent key is a valid state.
 *
 * What names a workspace, per product (shared/spec, emulator):
 * - Webhooks: `GET /v1/auth/me` answers `workspace_id`, and `project_id` for a key
 *   confined to a project. One read per connection and operation (the operation's read
 *   cache, shared with confined-key.ts).
 * - Inboxes: no route names the workspace. Its audit log is never deleted (spec 3), so
 *   its OLDEST entry is the workspace's for good: two reads (the log's `total`, then the
 *   entry at `total - 1`), once per connection and operation. An empty log is a workspace
 *   where no inbox was ever made: never the one of an object this stack holds (it is
 *   compared as such, and read again, not cached, as a create may write its first entry).
 * - Infrastructure: nothing is recorded; quotas and quota requests are addressed by the
 *   key's own project (provider/infra), so a 404 there is not a question of reach.
 * A reach that cannot be read (a key without the read scope, a fault) compares nothing: the
 * operation goes on as before, and the service's own answer decides.
 */
import { profileOf, settingNames, type Product } from "../config";
import { operationContext } from "./engine-operation";
import type { OperationContext, Props, ResourceDefinition } from "./fields";
import { WORKSPACE_KEY } from "./internal-keys";
import type { Operations } from "./operations";

/** What a key reaches: its workspace as the product names it, and the project it is confined to (none: every project). */
export interface Reach {
  workspace: string;
  project?: string;
}

type ReachReader = (ctx: OperationContext) => Promise<Reach | undefined>;

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

const READERS: Partial<Record<Product, ReachReader>> = { webhooks: webhooksReach, inboxes: inboxesReach };

/**
 * Resolved reaches, per operation and connection (`connectionId`: a context object is not
 * one per connection when the key comes from the environment), for Diff, which cannot wait.
 */
const resolved = new WeakMap<OperationContext["operation"], Map<string, Reach | null>>();
const resolvedIn = (ctx: OperationContext) => {
  let byConnection = resolved.get(ctx.operation);
  if (!byConnection) resolved.set(ctx.operation, (byConnection = new Map()));
  return byConnection;
};

/** The reach of the context's key, or undefined when the product records none or it cannot be read (see the header). */
export async function reachOf(def: { product: Product }, ctx: OperationContext): Promise<Reach | undefined> {
  const read = READERS[def.product];
  if (!read) return undefined;
  let reach: Reach | undefined;
  try {
    reach = await read(ctx);
  } catch {
    reach = undefined;
  }
  resolvedIn(ctx).set(ctx.connectionId, reach ?? null);
  return reach;
}

/** How the messages name a workspace: Inboxes' by its oldest audit entry. */
function named(workspace: string): string {
  if (workspace === NO_INBOX_EVER) return "a workspace where no inbox was ever made (its audit log is empty)";
  return workspace.startsWith(AUDIT) ? `the workspace whose oldest audit entry is ${workspace.slice(AUDIT.length)}` : `workspace ${workspace}`;
}

/** The project an object lives in, as its outputs say (undefined: none recorded, or workspace-wide). */
const projectOf = (outputs: Props) => (typeof outputs.projectId === "string" && outputs.projectId !== "" ? outputs.projectId : undefined);

/**
 * Why the key cannot see where the object of these outputs lives, or undefined when it can,
 * or when either side is not known.
 */
export function outOfReach(def: ResourceDefinition, reach: Reach | undefined, id: string, outputs: Props | undefined): string | undefined {
  const recorded = outputs?.[WORKSPACE_KEY];
  if (!reach || typeof recorded !== "string") return undefined;
  const key = settingNames(def.product, "ApiKey", profileOf(outputs)).configKey;
  const fix = `set the right key in \`${key}\`, or, if these objects were really moved or deleted, remove them from the state with \`pulumi state delete\`. Nothing was changed or forgotten.`;
  if (recorded !== reach.workspace)
    return `The key of \`${key}\` belongs to ${named(reach.workspace)}; this stack's ${def.noun} ${id} lives in ${named(recorded)}: ${fix}`;
  const project = projectOf(outputs!);
  if (reach.project && project && project !== reach.project)
    return `The key of \`${key}\` is confined to project ${reach.project} of ${named(reach.workspace)}; this stack's ${def.noun} ${id} lives in project ${project}: ${fix}`;
  return undefined;
}

/** The reach Check read for this context, for Diff (undefined: none read, or not known). */
export function reachRead(ctx: OperationContext | undefined): Reach | undefined {
  return (ctx && resolvedIn(ctx).get(ctx.connectionId)) ?? undefined;
}

/**
 * A kind's operations that record where each object lives and fail, naming both, where
 * the key cannot see it: before read, update and delete, and in Diff (from the reach the
 * Check of the existing resource read). A product with no reader is served as it is.
 */
export function reaching(ops: Operations): Operations {
  const def = ops.definition as ResourceDefinition;
  if (!READERS[def.product]) return ops;
  const ctxOf = (props: Props | undefined) => operationContext(def, profileOf(props));
  /** The reach of the key these props choose, failing when it cannot see the object. */
  const guard = async (id: string, outputs: Props | undefined): Promise<Reach | undefined> => {
    const reach = await reachOf(def, ctxOf(outputs));
    const why = outOfReach(def, reach, id, outputs);
    if (why) throw new Error(why);
    return reach;
  };
  const recorded = (outputs: Props, reach: Reach | undefined): Props => {
    const workspace = knownWorkspace(reach);
    return workspace ? { ...outputs, [WORKSPACE_KEY]: workspace } : outputs;
  };
  return {
    ...ops,
    async check(req) {
      const res = await ops.check(req);
      // An existing resource: its Diff compares (the key may have changed since).
      if (Object.keys(req.olds).length > 0) {
        try {
          await reachOf(def, ctxOf(res.inputs));
        } catch {
          // A connection that cannot be made: check has said why.
        }
      }
      return res;
    },
    diff(req) {
      let ctx: OperationContext | undefined;
      try {
        ctx = ctxOf(req.news);
      } catch {
        ctx = undefined;
      }
      const why = outOfReach(def, reachRead(ctx), req.id, req.olds);
      if (why) throw new Error(why);
      return ops.diff(req);
    },
    async create(req) {
      const res = await ops.create(req);
      // Read after the create: an Inboxes workspace's first create writes its first audit entry.
      return { ...res, outputs: recorded(res.outputs, await reachOf(def, ctxOf(req.inputs))) };
    },
    async read(req) {
      const reach = await guard(req.id, req.outputs);
      const res = await ops.read(req);
      if (res.gone) return res;
      // Kept as recorded; learnt by a state that has none (the object was just read with this key).
      const workspace = req.outputs?.[WORKSPACE_KEY];
      return { ...res, outputs: typeof workspace === "string" ? { ...res.outputs, [WORKSPACE_KEY]: workspace } : recorded(res.outputs, reach) };
    },
    async update(req) {
      const reach = await guard(req.id, req.olds);
      const res = await ops.update(req);
      return { ...res, outputs: typeof req.olds[WORKSPACE_KEY] === "string" ? { ...res.outputs, [WORKSPACE_KEY]: req.olds[WORKSPACE_KEY] } : recorded(res.outputs, reach) };
    },
    async delete(req) {
      await guard(req.id, req.outputs);
      return ops.delete(req);
    },
  };
}
