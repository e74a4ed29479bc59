/**
 * Quotas: limits (defaults of rules/quota.ts, changed by admins or approved
 * requests) and usage counted from the project's resources.
 * GET /v1/quotas, GET /v1/quotas/usage, GET|PATCH /api/v1/quota/{service},
 * POST /api/v1/quota/{service}/reset, GET /api/v1/quota/{service}/usage.
 */
import type { FastifyInstance } from "fastify";
import { z } from "zod";
import type { EmulatorContext } from "../core/context";
import { ApiError, validationError } from "../core/errors";
import { objectBody, throwViolations } from "../core/violations";
import { parse } from "../core/validation";
import { DEFAULT_REGION, QUOTA_SCOPES, QUOTA_SERVICES, hasRegionalQuota, quotaLimitsViolations, quotaScopeLabel } from "../../rules/quota";
import { SCOPES, auth, ownProject } from "./common";
import { infraState } from "./state";
import { dict } from "../core/dict";

const scopeKey = (name: string, region: string) => (QUOTA_SCOPES[name] === "region" ? `region:${region}` : "project");

export function quotaLimit(ctx: EmulatorContext, projectId: string, name: string, region: string): number {
  const service = Object.values(QUOTA_SERVICES).find((names) => name in names)!;
  return infraState(ctx).limits[projectId]?.[scopeKey(name, region)]?.[name] ?? service[name]!;
}

/** Set limits (admin PATCH, approved request); names are already validated. */
export function setQuotaLimits(ctx: EmulatorContext, projectId: string, region: string, limits: Record<string, number>): void {
  const project = (infraState(ctx).limits[projectId] ??= dict());
  for (const [name, value] of Object.entries(limits)) (project[scopeKey(name, region)] ??= dict())[name] = value;
  ctx.store.changed();
}

/**
 * Current consumption. VMs count in every state but terminated (in `region`); vCPU
 * and RAM across the running VMs of every region; deleted snapshots do not count.
 */
export function quotaUsage(ctx: EmulatorContext, projectId: string, name: string, region: string): number {
  const s = infraState(ctx);
  const vms = Object.values(s.vms).filter((v) => v.project_id === projectId);
  const running = vms.filter((v) => v.state === "running");
  switch (name) {
    case "vms": return vms.filter((v) => v.region === region && v.state !== "terminated").length;
    case "vcpu": return running.reduce((n, v) => n + v.vcpu, 0);
    case "ram_gb": return running.reduce((n, v) => n + v.ram_gb, 0);
    case "snapshots": return Object.values(s.snapshots).filter((x) => x.project_id === projectId && x.region === region && x.state !== "deleted").length;
    default: return 0; // resources the emulator does not model
  }
}

/**
 * Infrastructure quota refusal (spec document 1): 429 with an empty Retry-After;
 * retrying does not help. Our code: `quota_exceeded`, with the quota, its scope,
 * the limit, the current usage and what was asked for.
 */
export function assertQuota(ctx: EmulatorContext, projectId: string, region: string, adding: Record<string, number>): void {
  for (const [name, amount] of Object.entries(adding)) {
    if (amount <= 0) continue;
    const limit = quotaLimit(ctx, projectId, name, region);
    const current = quotaUsage(ctx, projectId, name, region);
    if (current + amount > limit) {
      throw new ApiError(429, "quota_exceeded", `This would pass the ${name} quota (${limit}, ${quotaScopeLabel(name, region)}); delete something or have the quota raised.`,
        { reason: "quota", quota: name, scope: quotaScopeLabel(name, region), limit, current, requested: amount }, { "retry-after": "" });
    }
  }
}

/** Regions a project has a footprint in, plus the default region. */
function projectRegions(ctx: EmulatorContext, projectId: string): string[] {
  const s = infraState(ctx);
  const regions = new Set([DEFAULT_REGION]);
  for (const r of [...Object.values(s.vms), ...Object.values(s.snapshots)]) if (r.project_id === projectId) regions.add(r.region);
  for (const key of Object.keys(s.limits[projectId] ?? {})) if (key.startsWith("region:")) regions.add(key.slice(7));
  return [...regions].sort();
}

/** Every quota entry of the project: one per project-wide quota, one per region for per-region quotas. */
function quotaEntries(ctx: EmulatorContext, projectId: string) {
  const regions = projectRegions(ctx, projectId);
  return Object.entries(QUOTA_SERVICES).flatMap(([service, names]) =>
    Object.keys(names).flatMap((name) =>
      (QUOTA_SCOPES[name] === "region" ? regions : [DEFAULT_REGION]).map((region) => ({
        service,
        name,
        scope: quotaScopeLabel(name, region),
        region: QUOTA_SCOPES[name] === "region" ? region : null,
        limit: quotaLimit(ctx, projectId, name, region),
        usage: quotaUsage(ctx, projectId, name, region),
      })),
    ),
  );
}

const flag = z.string().optional().transform((v) => v !== undefined && v !== "false" && v !== "0");
const quotaQuery = z.object({ admin_domain: z.string().optional(), admin_project: z.string().optional(), region: z.string().min(1).optional(), defaults: flag });
const changeBody = z.object({ limits: z.unknown(), admin_project: z.string().nullable().optional(), admin_domain: z.string().nullable().optional(), region: z.string().min(1).nullable().optional() }).strict();
type ServiceParams = { Params: { service: string } };

function knownService(service: string): Record<string, number> {
  const names = QUOTA_SERVICES[service];
  if (!names) throw validationError([{ loc: ["path", "service"], type: "enum", msg: `Input should be one of ${Object.keys(QUOTA_SERVICES).join(", ")}` }]);
  return names;
}

/** `{service, project_id, region, <member>: {name: value}}`; region is null for a service with only project-wide quotas. */
function perService(service: string, projectId: string, region: string, member: "limits" | "usage", value: (name: string) => number) {
  const names = Object.keys(knownService(service));
  return {
    service,
    project_id: projectId,
    region: hasRegionalQuota(service) ? region : null,
    [member]: Object.fromEntries(names.map((n) => [n, value(n)])),
  };
}

export function registerQuotas(app: FastifyInstance, ctx: EmulatorContext): void {
  app.get("/v1/quotas", async (req) => {
    const p = auth(ctx, req, SCOPES.quotaRead);
    return { items: quotaEntries(ctx, p.project.id) };
  });

  app.get("/v1/quotas/usage", async (req) => {
    const p = auth(ctx, req, SCOPES.quotaRead);
    return { items: quotaEntries(ctx, p.project.id).map(({ limit: _l, ...entry }) => entry) };
  });

  app.get<ServiceParams>("/api/v1/quota/:service", async (req) => {
    const p = auth(ctx, req, SCOPES.quotaRead);
    const q = parse(quotaQuery, req.query, "query");
    const project = ownProject(p, q.admin_project);
    const region = q.region ?? DEFAULT_REGION;
    const defaults = knownService(req.params.service);
    return perService(req.params.service, project, region, "limits", (n) => (q.defaults ? defaults[n]! : quotaLimit(ctx, project, n, region)));
  });

  app.patch<ServiceParams>("/api/v1/quota/:service", async (req) => {
    const p = auth(ctx, req, SCOPES.admin);
    knownService(req.params.service);
    const body = parse(changeBody, objectBody(req.body));
    const project = ownProject(p, body.admin_project);
    throwViolations(quotaLimitsViolations(req.params.service, body.limits));
    const region = body.region ?? DEFAULT_REGION;
    setQuotaLimits(ctx, project, region, body.limits as Record<string, number>);
    return perService(req.params.service, project, region, "limits", (n) => quotaLimit(ctx, project, n, region));
  });

  app.post<ServiceParams>("/api/v1/quota/:service/reset", async (req) => {
    const p = auth(ctx, req, SCOPES.admin);
    const names = knownService(req.params.service);
    const body = parse(changeBody.omit({ limits: true }), objectBody(req.body));
    const project = ownProject(p, body.admin_project);
    // Every region's override of the service's quotas goes.
    for (const scoped of Object.values(infraState(ctx).limits[project] ?? {})) for (const n of Object.keys(names)) delete scoped[n];
    ctx.store.changed();
    const region = body.region ?? DEFAULT_REGION;
    return perService(req.params.service, project, region, "limits", (n) => quotaLimit(ctx, project, n, region));
  });

  app.get<ServiceParams>("/api/v1/quota/:service/usage", async (req) => {
    const p = auth(ctx, req, SCOPES.quotaRead);
    const q = parse(quotaQuery, req.query, "query");
    const project = ownProject(p, q.admin_project);
    const region = q.region ?? DEFAULT_REGION;
    return perService(req.params.service, project, region, "usage", (n) => quotaUsage(ctx, project, n, region));
  });
}
