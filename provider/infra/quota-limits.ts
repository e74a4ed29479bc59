/**
 * A project's quota limits for one service, set by an admin (spec document 3,
 * `PATCH /api/v1/quota/{service}`, admin only), as data for the generic engine.
 *
 * The limits always exist, so this is a singleton: create reads them and writes the
 * declared ones, update is ONE PATCH with only the entries that changed. A resource
 * manages only the quota names it declares, in its own region and project:
 * `limitsBefore` keeps what each declared name was before the resource first wrote it,
 * and delete (or a name removed from `limits`) PATCHes those values back, in that
 * region and project alone, only for the names that still hold what the resource
 * wrote (another stack's or an admin's value since is left, with a warning). `POST .../reset` is never sent: it drops every override of
 * the service in every region (other resources' limits, an admin's raise, approved
 * quota requests). `limits` in the outputs is every limit of the service in the
 * region, and the diff compares the declared entries with it.
 *
 * The id is `<service>` or `<service>/<region>`. `region` applies to the per-region
 * quotas only: a project-wide one (`vcpu`, `ram_gb`, ...) is one figure whatever the
 * region. Two QuotaLimits of a program setting one quota fail the preview. So an import
 * declares one scope's figures: `<service>/<region>` that region's per-region quotas,
 * `<service>` the project-wide ones (`readInputs`).
 */
import { z } from "zod";
import { countedRegion, hasRegionalQuota, QUOTA_SCOPES, QUOTA_SERVICES, quotaLimitsViolations, serviceViolations } from "../../rules/quota";
import { defineResource, type ChangedSetting, type Fields, type InputsOf, type OutputsOf, type CheckFailure, type FieldDiff, type OperationContext, type PlannedCall, type Props } from "../engine/fields";
import { readForCheck } from "../engine/remote-checks";
import { containsUnknown } from "../engine/unknown";

const quotaPath = (service: string) => `/api/v1/quota/${encodeURIComponent(service)}`;

/** The services with quotas to limit. */
const LIMITED_SERVICES = Object.keys(QUOTA_SERVICES).filter((service) => Object.keys(QUOTA_SERVICES[service]!).length > 0);
const notAnId = (id: string) => `QuotaLimits id ${JSON.stringify(id)} is not \`<service>\` or \`<service>/<region>\` (e.g. \`compute\`, \`compute/us-east-1\`), with a service of ${LIMITED_SERVICES.join(", ")}`;

/**
 * The service and region of an id, `<service>` or `<service>/<region>`. An id of another shape that an earlier release
 * stored (it imported ids as given) is read by its first two parts, so that its stack is still managed; `pulumi
 * import` refuses such ids (`readInputs`). An unknown service is no quota anybody holds: refused.
 */
function parseId(id: string): { service: string; region: string | undefined; wellFormed: boolean } {
  const [service = "", region, ...rest] = id.split("/");
  if (!(service in QUOTA_SERVICES)) throw new Error(`${notAnId(id)}.`);
  return { service, region: region || undefined, wellFormed: rest.length === 0 && region !== "" };
}

/** `GET /api/v1/quota/{service}` (in a region) of the key's own project, once per operation per connection; undefined when unreadable. */
async function keyQuota(ctx: OperationContext, service: string, region: unknown): Promise<{ project_id: string; limits: Record<string, number> } | undefined> {
  const r = typeof region === "string" && region !== "" ? region : undefined;
  return readForCheck(ctx, `infra:quota:${service}:${r ?? ""}`, async () => {
    const res = await ctx.client.request<{ project_id: string; limits: Record<string, number> }>({ method: "GET", path: quotaPath(service), query: { region: r } });
    return res.body;
  });
}

/** The key's own project, as a quota read of `service` answers it (engine/reach.ts: where an infrastructure key reaches); undefined when unreadable. */
export const keyProject = async (ctx: OperationContext, service: string, region: unknown): Promise<string | undefined> => (await keyQuota(ctx, service, region))?.project_id;

/**
 * The project a quota write acts on, as the engine operation counts claims in it: `projectId`
 * when given, else the key's own (from the quota read the checks make anyway), so two
 * profiles or keys of one project are one account; the connection when unreadable.
 */
export async function projectAccount(ctx: OperationContext, service: string, region: unknown, projectId: unknown): Promise<string> {
  const project = typeof projectId === "string" ? projectId : await keyProject(ctx, service, region);
  return project === undefined ? ctx.connectionId : `infra project ${project}`;
}

/** The current limits of `service` (in a region) for the key's project; undefined when unreadable. */
export async function currentLimits(ctx: OperationContext, service: string, region: unknown): Promise<Record<string, number> | undefined> {
  return (await keyQuota(ctx, service, region))?.limits;
}

/**
 * A preview failure on `projectId` when it names another project than the key's: an
 * infrastructure key acts on its own project only (403 `forbidden`, reason `project`).
 * The key's project comes from the quota read the other checks make anyway.
 */
export async function otherProjectThanKey(ctx: OperationContext, noun: string, inputs: Pick<QuotaLimitsInputs, "service" | "region" | "projectId">): Promise<CheckFailure[]> {
  const { service, region, projectId } = inputs;
  if (typeof projectId !== "string" || [service, region, projectId].some(containsUnknown) || serviceViolations(service).length > 0) return [];
  const own = await keyProject(ctx, service as string, region);
  if (own === undefined || own === projectId) return [];
  return [
    {
      property: "projectId",
      reason: `The infrastructure key in use acts on project ${own} only, and this ${noun} names project ${projectId}: the service refuses it (403 forbidden, reason project). Omit projectId (or set it to "${own}"), or use a key created in project ${projectId} (a profile).`,
    },
  ];
}

/** The declared entries of a limits map that differ from `current` (all of them when nothing is known). */
function changedEntries(declared: unknown, current: unknown): Record<string, unknown> {
  const have = (current ?? {}) as Record<string, unknown>;
  return Object.fromEntries(Object.entries((declared ?? {}) as Record<string, unknown>).filter(([name, value]) => have[name] !== value));
}

type Limits = Record<string, unknown>;
const limitsOf = (value: unknown): Limits => (value && typeof value === "object" ? (value as Limits) : {});
/** What the names this resource manages were before it first wrote them (`limitsBefore.limits`). */
const before = (outputs: QuotaLimitsOutputs): Limits => limitsOf(limitsOf(outputs.limitsBefore).limits);

/** Names the state manages that the program no longer declares, with the values to write back. */
function givenBack(olds: QuotaLimitsOutputs, news: QuotaLimitsInputs): Limits {
  const declared = limitsOf(news.limits);
  return Object.fromEntries(Object.entries(before(olds)).filter(([name]) => !(name in declared)));
}

/**
 * Shape 1 (0.1.0) kept every limit of the service in `limitsBefore`, not which names
 * the resource declared. The names whose value differs from the one found are the
 * ones it wrote (a name declared at its earlier value needs nothing written back).
 */
export function limitsBeforeOfDeclaredNames(outputs: Props): Props {
  const found = before(outputs);
  const now = limitsOf(outputs.limits);
  if (!outputs.limitsBefore || typeof outputs.limitsBefore !== "object") return outputs;
  return { ...outputs, limitsBefore: { limits: Object.fromEntries(Object.entries(found).filter(([name, value]) => now[name] !== value)) } };
}

/**
 * Preview: a quota this resource declares that another QuotaLimits of the program sets
 * too (a project-wide one from any region, a per-region one in the same region): each
 * `up` would write back its own value. Resources are told apart by their names in the
 * program (`resourceName`, set by the SDK; absent from older state: not checked), and
 * the project by its id, an omitted `projectId` being the key's own. With the region
 * unknown at preview, the project-wide names are checked still.
 */
async function claimedTwice(inputs: QuotaLimitsInputs, ctx: OperationContext): Promise<CheckFailure[]> {
  const { service, region, projectId, limits, resourceName } = inputs;
  if ([service, projectId, limits].some(containsUnknown) || typeof service !== "string" || typeof resourceName !== "string") return [];
  const regionKnown = !containsUnknown(region);
  const names = Object.keys(limitsOf(limits)).filter((name) => regionKnown || QUOTA_SCOPES[name] === "project");
  if (names.length === 0) return [];
  const project = await projectAccount(ctx, service, regionKnown ? region : undefined, projectId);
  const twin = claimQuotas(ctx.operation, resourceName, ["infra:QuotaLimits", project, service], regionKnown ? region : undefined, names);
  if (!twin) return [];
  const scope = QUOTA_SCOPES[twin.name] === "project" ? "project-wide (one figure for every region)" : `of region ${String(countedRegion(twin.name, region))}`;
  return [
    {
      property: `limits.${twin.name}`,
      reason: `QuotaLimits "${twin.by}" of this program also sets ${twin.name} of ${service}, which is ${scope}: each \`pulumi up\` would write back the other's value. Declare ${twin.name} in one QuotaLimits only.`,
    },
  ];
}

/** Scope members every write to a quota takes besides the limits. */
const scopeBody = (props: QuotaLimitsOutputs) => ({
  ...(typeof props.projectId === "string" ? { admin_project: props.projectId } : {}),
  ...(typeof props.region === "string" ? { region: props.region } : {}),
});

const quotaLimitsFields = {
  service: { mode: "createOnly", api: "service", input: z.string().min(1), required: true, description: "`compute`, `block-storage`, `network`, `dns` or `iam`. Changing it REPLACES the resource." },
  // The key's project when omitted (a key acts on its own project only).
  projectId: { mode: "createOnly", api: "project_id", input: z.string().min(1), whenOmitted: "unmanaged", description: "Omit for the key's project." },
  // The default region when omitted; null for a service with only project-wide quotas.
  region: { mode: "createOnly", api: "region", input: z.string().min(1).regex(/^[^/]+$/, "A region name holds no `/`."), whenOmitted: "unmanaged", outputType: z.string().nullable(), description: "Region of the per-region quotas (e.g. `vms`); omit for the default region (or a service with only project-wide quotas). Project-wide quotas (`vcpu`, `ram_gb`, `block_storage_gb`, ...) are one figure whatever the region: two QuotaLimits of a program setting the same one fail the preview." },
  limits: {
    mode: "patch",
    api: "limits",
    input: z.record(z.string(), z.number().int()),
    // Only the declared names are managed: equal when each has the declared value.
    equal: (declared, current) => Object.keys(changedEntries(declared, current)).length === 0,
    required: true,
    description: "Quota name → limit. Only the names given are managed: create and every change are ONE PATCH with the entries that differ; a name removed here is written back to the value it had before this resource first set it (in this region and project only).",
    outputDescription: "Every limit of the service as the service reports it (the declared ones included).",
  },
  profile: { mode: "createOnly", input: z.string().min(1), description: "Connection profile holding an admin key (see `QuotaRequestArgs.profile`). Changing it REPLACES the resource." },
  resourceName: { mode: "local", input: z.string().min(1), checkOnly: true, description: "The resource's name in the program, set by the SDK: tells two QuotaLimits of one program apart at preview." },
  limitsBefore: { mode: "output", type: z
      .object({ limits: z.record(z.string(), z.number().int()).describe("Quota name → the value delete writes back.") })
      .meta({ title: "QuotaLimitsBefore", description: "What each declared quota name was before the resource first set it." })
      .nullable(), description: "What each declared quota name was before this resource first set it: what delete writes back." },
} satisfies Fields;
type QuotaLimitsInputs = InputsOf<typeof quotaLimitsFields>;
type QuotaLimitsOutputs = OutputsOf<typeof quotaLimitsFields>;

export const quotaLimitsDefinition = defineResource({
  kind: "infra:QuotaLimits",
  description: "Quota limits. The resource manages only the quota names it declares, in its own region and project: `pulumi destroy` writes each of them back to the value it had before this resource first set it (one PATCH in that region and project), unless someone else changed it since (left as it is, with a warning). Other names, other regions and other resources' limits are left as they are; the service-wide `POST /api/v1/quota/{service}/reset` is never sent.",
  product: "infra",
  idDescription: "its scope: `<service>/<region>` (an import declares that region's per-region quotas, e.g. `vms`), or `<service>` (the project-wide ones, e.g. `vcpu` and `ram_gb`, with no region; `dns` and `iam` have only these)",
  noun: "quota limits",
  // 2: limitsBefore keeps only the names the resource manages (it writes them back on delete; 0.1.0 reset the whole service).
  upgrade: [limitsBeforeOfDeclaredNames],
  changeNote: "Admin keys only. Delete writes the declared names back to their earlier values, in their region only (project-wide quotas such as `vcpu` and `ram_gb` are one figure for every region: two QuotaLimits setting one fail the preview).",
  paths: {
    create: "/api/v1/quota",
    item: (id) => {
      const { service, region } = parseId(id);
      // A region means nothing to a service whose quotas are all project-wide (an earlier release imported `dns/<region>`).
      return `${quotaPath(service)}${region && hasRegionalQuota(service) ? `?region=${encodeURIComponent(region)}` : ""}`;
    },
  },
  adoptHint: "Quota limits always exist: running `pulumi up` again writes the declared ones.",
  fields: quotaLimitsFields,
  rules: (body) => {
    const service = serviceViolations(body.service);
    return service.length > 0 ? service : quotaLimitsViolations(body.service as string, body.limits);
  },
  singleton: {
    idOf: (inputs) => (typeof inputs.region === "string" ? `${String(inputs.service)}/${inputs.region}` : String(inputs.service)),
    priorField: "limitsBefore",
    // Only the declared names: the others are not this resource's to put back.
    prior: (remote, news) => {
      const found = limitsOf(remote.limits);
      return { limits: Object.fromEntries(Object.keys(limitsOf(news.limits)).filter((name) => name in found).map((name) => [name, found[name]])) };
    },
    // The values found before, PATCHed back in this resource's region and project (never a reset, which is service-wide).
    async restore(ctx, prior, props) {
      const limits = limitsOf(prior.limits);
      if (Object.keys(limits).length === 0) return;
      await ctx.client.request({ method: "PATCH", path: quotaPath(parseId(ctx.id).service), body: { limits, ...scopeBody(props) } });
    },
    // Another QuotaLimits of the same region holding the id manages its own names only: the others are still this one's.
    notHeldBy(prior, holderFound) {
      const theirs = limitsOf(holderFound.limits);
      const rest = Object.entries(limitsOf(prior.limits)).filter(([name]) => !(name in theirs));
      return rest.length > 0 ? { limits: Object.fromEntries(rest) } : undefined;
    },
    // A name removed from `limits`: its earlier value, put back as delete puts it back.
    givenBack(olds, news) {
      const names = givenBack(olds, news);
      return Object.keys(names).length > 0 ? { limits: names } : undefined;
    },
    // Per declared name: put back only those that still hold what this resource wrote (`limits` in the outputs).
    unchangedSince(prior, outputs, remote) {
      const now = limitsOf(remote.limits);
      const wrote = limitsOf(outputs.limits);
      const restore: Limits = {};
      const changed: ChangedSetting[] = [];
      for (const [name, found] of Object.entries(limitsOf(prior.limits))) {
        if (!(name in now) || now[name] === wrote[name]) restore[name] = found;
        else changed.push({ setting: `limits.${name}`, holds: now[name], found });
      }
      return { restore: { limits: restore }, changed };
    },
  },
  hooks: {
    async checkRemote(inputs, ctx) {
      const otherProject = await otherProjectThanKey(ctx, "quota limits resource", inputs);
      return otherProject.length > 0 ? otherProject : claimedTwice(inputs, ctx);
    },

    // A name removed from `limits` is a change: its earlier value is written back.
    adjustDiff(diff: FieldDiff, olds, news) {
      if (diff.changed.includes("limits") || Object.keys(givenBack(olds, news)).length === 0) return diff;
      return { ...diff, changed: [...diff.changed, "limits"] };
    },

    // One PATCH with only the changed entries, in the declared project and region (the names given back: `givenBack`).
    adjustPlan(calls, olds, news) {
      const limits = changedEntries(news.limits, olds.limits);
      const patch: PlannedCall = { kind: "patch", method: "PATCH", path: "", fields: ["limits"], safeToRepeat: true, label: "PATCH", body: { limits, ...scopeBody(news) } };
      const others = calls.filter((call) => call.kind !== "patch");
      return Object.keys(limits).length > 0 ? [patch, ...others] : others;
    },

    // limitsBefore follows the declared names: a new name keeps the value it had before this update, a removed one goes.
    async afterApply(_ctx, { created, olds, news, outputs }) {
      if (created || !olds) return outputs;
      const kept = before(olds);
      const current = limitsOf(olds.limits);
      const names = Object.keys(limitsOf(news.limits));
      return { ...outputs, limitsBefore: { limits: Object.fromEntries(names.map((name) => [name, name in kept ? kept[name] : current[name]])) } };
    },

    // A refresh declares the names the resource manages (`limitsBefore`'s: every declared name), so that it shows none
    // of the service's other figures as drift, nor a later change's preview them as removed. Where none is known (an
    // import; a 0.1.0 state whose declared names all held their earlier values) it declares its id's scope, as an
    // import does, so that every figure is one resource's: `<service>/<region>` that region's per-region quotas,
    // `<service>` the project-wide ones (no region: they have none). A service with per-region quotas only
    // (`network`) holds them under `<service>` too: those of the default region.
    readInputs(inputs, id, stored) {
      const all = limitsOf(inputs.limits);
      const managed = stored ? Object.keys(before(stored)).filter((name) => name in all) : [];
      if (managed.length > 0) return { ...inputs, limits: Object.fromEntries(managed.map((name) => [name, all[name]])) };
      const { service, region, wellFormed } = parseId(id);
      // Only `pulumi import` refuses an id: one an earlier release stored is still managed (`parseId`).
      if (!stored) {
        if (!LIMITED_SERVICES.includes(service)) throw new Error(`QuotaLimits id ${JSON.stringify(id)}: ${service} has no quotas to limit.`);
        if (!wellFormed) throw new Error(`${notAnId(id)}.`);
        if (region !== undefined && !hasRegionalQuota(service))
          throw new Error(`QuotaLimits id ${JSON.stringify(id)}: the quotas of ${service} are project-wide (one figure for every region): import it as \`${service}\`.`);
      }
      const scope = region === undefined || !hasRegionalQuota(service) ? "project" : "region";
      const names = Object.keys(all).filter((name) => QUOTA_SCOPES[name] === scope);
      if (names.length === 0) return inputs;
      const limits = Object.fromEntries(names.map((name) => [name, all[name]]));
      if (scope === "region") return { ...inputs, limits };
      const { region: _region, ...projectWide } = inputs;
      return { ...projectWide, limits };
    },

    explainError(err, operation) {
      if (err.code === "forbidden")
        return `Setting quota limits is admin only: the infrastructure key in use lacks the iam:write scope (it may not ${operation} quota limits). Use an admin key, e.g. through a profile; members file a svc.infra.QuotaRequest instead.`;
      return undefined;
    },
  },
});

/**
 * The operation's `claimKeys` (engine-operation.ts) for quotas: each of `names` in `scope` (kind, project, service: the
 * project as an account) and the region the quota is counted in (none for a project-wide one).
 */
export function claimQuotas(operation: OperationContext["operation"], resource: string, scope: unknown[], region: unknown, names: string[]): { name: string; by: string } | undefined {
  const keyOf = (name: string) => JSON.stringify([...scope, countedRegion(name, region), name]);
  const clash = operation.claimKeys(resource, names.map(keyOf));
  return clash && { name: names.find((n) => keyOf(n) === clash.key)!, by: clash.by };
}
