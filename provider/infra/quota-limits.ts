/**
 * A project's quota limits for one service, set by an admin (spec document 3,
 * `PATCH /api/v1/quota/{service}`, admin only), as data for the generic engine.
 *
 * The limits always exist, so this is a singleton: create reads them (kept in
 * `limitsBefore`) and writes the declared ones, update is ONE PATCH with only the
 * entries that changed, delete restores the defaults with `POST .../reset` (which
 * drops every override of the service, in every region). Only the declared quota
 * names are managed: `limits` in the outputs is every limit of the service, and the
 * diff compares the declared entries with it.
 *
 * The id is `<service>` or `<service>/<region>`.
 */
import { z } from "zod";
import { quotaLimitsViolations, serviceViolations } from "../../rules/quota";
import type { OperationContext, Props, ResourceDefinition } from "../engine/fields";
import { unlessUnreachable } from "../engine/remote-checks";

const quotaPath = (service: string) => `/api/v1/quota/${encodeURIComponent(service)}`;

function parseId(id: string): { service: string; region: string | undefined } {
  const [service, region] = id.split("/");
  return { service: service!, region: region || undefined };
}

/** `GET /api/v1/quota/{service}` limits (in a region), once per process per connection; undefined when unreadable. */
export async function currentLimits(ctx: OperationContext, service: string, region: unknown): Promise<Record<string, number> | undefined> {
  const r = typeof region === "string" && region !== "" ? region : undefined;
  try {
    return await ctx.cached(`infra:quota:${service}:${r ?? ""}`, async () => {
      const res = await ctx.client.request<{ limits: Record<string, number> }>({ method: "GET", path: quotaPath(service), query: { region: r } });
      return res.body.limits;
    });
  } catch (err) {
    return unlessUnreachable(err);
  }
}

/** The declared entries of a limits map that differ from `current` (all of them when nothing is known). */
function changedEntries(declared: unknown, current: unknown): Record<string, unknown> {
  const have = (current ?? {}) as Record<string, unknown>;
  return Object.fromEntries(Object.entries((declared ?? {}) as Record<string, unknown>).filter(([name, value]) => have[name] !== value));
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
    prior: (remote) => ({ limits: remote.limits ?? null }),
    // The API restores defaults (every override of the service), not arbitrary values.
    async restore(ctx, _prior, props) {
      await ctx.client.request({ method: "POST", path: `${quotaPath(parseId(ctx.id).service)}/reset`, body: scopeBody(props) });
    },
  },
  hooks: {
    // One PATCH with only the changed entries, in the declared project and region.
    adjustPlan: (calls, olds, news) =>
      calls.map((call) => (call.kind === "patch" ? { ...call, body: { limits: changedEntries(news.limits, olds.limits), ...scopeBody(news) } } : call)),

    explainError(err, operation) {
      if (err.code === "forbidden")
        return `Setting quota limits is admin only: the infrastructure key in use lacks the iam:write scope (it may not ${operation} quota limits). Use an admin key, e.g. through a profile; members file a svc.infra.QuotaRequest instead.`;
      return undefined;
    },
  },
};
