/**
 * A project's quota limits for one service, set by an admin (spec document 3,
 * `PATCH /api/v1/quota/{service}`, admin only), as data for the generic engine.
 *
 * The limits always exist, so this is a singleton: create reads them and writes the
 * declared ones, update is ONE PATCH with only the entries that changed. A resource
 * manages only the quota names it declares, in its own region and project:
 * `limitsBefore` keeps what each declared name was before the resource first wrote it,
 * and delete (or a name removed from `limits`) PATCHes those values back, in that
 * region and project alone. `POST .../reset` is never sent: it drops every override of
 * the service in every region (other resources' limits, an admin's raise, approved
 * quota requests). `limits` in the outputs is every limit of the service in the
 * region, and the diff compares the declared entries with it.
 *
 * The id is `<service>` or `<service>/<region>`.
 */
import { z } from "zod";
import { quotaLimitsViolations, serviceViolations } from "../../rules/quota";
import type { FieldDiff } from "../engine/fields";
import type { OperationContext, PlannedCall, Props, ResourceDefinition } from "../engine/fields";
import { readForCheck } from "../engine/remote-checks";

const quotaPath = (service: string) => `/api/v1/quota/${encodeURIComponent(service)}`;

function parseId(id: string): { service: string; region: string | undefined } {
  const [service, region] = id.split("/");
  return { service: service!, region: region || undefined };
}

/** `GET /api/v1/quota/{service}` limits (in a region), once per process per connection; undefined when unreadable. */
export async function currentLimits(ctx: OperationContext, service: string, region: unknown): Promise<Record<string, number> | undefined> {
  const r = typeof region === "string" && region !== "" ? region : undefined;
  return readForCheck(ctx, `infra:quota:${service}:${r ?? ""}`, async () => {
    const res = await ctx.client.request<{ limits: Record<string, number> }>({ method: "GET", path: quotaPath(service), query: { region: r } });
    return res.body.limits;
  });
}

/** The declared entries of a limits map that differ from `current` (all of them when nothing is known). */
function changedEntries(declared: unknown, current: unknown): Record<string, unknown> {
  const have = (current ?? {}) as Record<string, unknown>;
  return Object.fromEntries(Object.entries((declared ?? {}) as Record<string, unknown>).filter(([name, value]) => have[name] !== value));
}

type Limits = Record<string, unknown>;
const limitsOf = (value: unknown): Limits => (value && typeof value === "object" ? (value as Limits) : {});
/** What the names this resource manages were before it first wrote them (`limitsBefore.limits`). */
const before = (outputs: Props): Limits => limitsOf(limitsOf(outputs.limitsBefore).limits);

/** Names the state manages that the program no longer declares, with the values to write back. */
function givenBack(olds: Props, news: Props): Limits {
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

/** Scope members every write to a quota takes besides the limits. */
const scopeBody = (props: Props) => ({
  ...(typeof props.projectId === "string" ? { admin_project: props.projectId } : {}),
  ...(typeof props.region === "string" ? { region: props.region } : {}),
});

export const quotaLimitsDefinition: ResourceDefinition = {
  kind: "infra:QuotaLimits",
  product: "infra",
  noun: "quota limits",
  paths: {
    create: "/api/v1/quota",
    item: (id) => {
      const { service, region } = parseId(id);
      return `${quotaPath(service)}${region ? `?region=${encodeURIComponent(region)}` : ""}`;
    },
  },
  adoptHint: "Quota limits always exist: running `pulumi up` again writes the declared ones.",
  fields: {
    service: { mode: "createOnly", api: "service", input: z.string().min(1) },
    // The key's project when omitted (a key acts on its own project only).
    projectId: { mode: "createOnly", api: "project_id", input: z.string().min(1), whenOmitted: "unmanaged" },
    // The default region when omitted; null for a service with only project-wide quotas.
    region: { mode: "createOnly", api: "region", input: z.string().min(1), whenOmitted: "unmanaged" },
    limits: {
      mode: "patch",
      api: "limits",
      input: z.record(z.string(), z.number()),
      // Only the declared names are managed: equal when each has the declared value.
      equal: (declared, current) => Object.keys(changedEntries(declared, current)).length === 0,
    },
    profile: { mode: "createOnly", input: z.string().min(1) },
    limitsBefore: { mode: "output" },
  },
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
  },
  hooks: {
    // A name removed from `limits` is a change: its earlier value is written back.
    adjustDiff(diff: FieldDiff, olds, news) {
      if (diff.changed.includes("limits") || Object.keys(givenBack(olds, news)).length === 0) return diff;
      return { ...diff, changed: [...diff.changed, "limits"] };
    },

    // One PATCH with only the changed entries and the names given back, in the declared project and region.
    adjustPlan(calls, olds, news) {
      const limits = { ...givenBack(olds, news), ...changedEntries(news.limits, olds.limits) };
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

    explainError(err, operation) {
      if (err.code === "forbidden")
        return `Setting quota limits is admin only: the infrastructure key in use lacks the iam:write scope (it may not ${operation} quota limits). Use an admin key, e.g. through a profile; members file a svc.infra.QuotaRequest instead.`;
      return undefined;
    },
  },
};
