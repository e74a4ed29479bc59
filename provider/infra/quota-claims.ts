/**
 * Quotas claimed by the resources this process has checked, per connection (one key,
 * one project by default): a kind's key for each quota → the claiming resource. Two
 * resources of one program that would both act on the same quota are checked here
 * before either is applied, so the service cannot show the clash yet: two new
 * QuotaRequests asking for it (two open requests), two QuotaLimits setting one
 * project-wide quota from two regions (each `up` would undo the other's value).
 */
import { QUOTA_SCOPES } from "../../rules/quota";
import type { OperationContext } from "../engine/fields";

const claims = new WeakMap<OperationContext["client"], Map<string, string>>();

/** The region a named quota is counted in: `region` for a per-region quota, none (null) for a project-wide one. */
export const regionOf = (name: string, region: unknown): unknown => (QUOTA_SCOPES[name] === "region" ? (region ?? null) : null);

/**
 * The first of `names` another resource already claimed under `scope` (kind, project,
 * service, ...) and the quota's region; else each is claimed for `resource`.
 */
export function claimQuotas(ctx: OperationContext, resource: string, scope: unknown[], region: unknown, names: string[]): { name: string; by: string } | undefined {
  let byQuota = claims.get(ctx.client);
  if (!byQuota) claims.set(ctx.client, (byQuota = new Map()));
  const keyOf = (name: string) => JSON.stringify([...scope, regionOf(name, region), name]);
  for (const name of names) {
    const by = byQuota.get(keyOf(name));
    if (by !== undefined && by !== resource) return { name, by };
  }
  for (const name of names) byQuota.set(keyOf(name), resource);
  return undefined;
}
