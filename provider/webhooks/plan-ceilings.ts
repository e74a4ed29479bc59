/**
 * Plan ceilings the provider predicts at preview. The service does not publish the
 * numbers (spec document 2: "Numeric plan ceilings: not shown"); these are the values
 * of shared/design/api-assumptions.md. Only used to fail a preview early: the
 * service stays the judge (its 422 is mapped too), so a stale number here can only
 * cost an early warning, never a wrong change.
 */
import type { OperationContext } from "../engine/fields";
import { readForCheck } from "../engine/remote-checks";

export const MAX_ATTEMPTS_BY_PLAN: Record<string, number> = { free: 5, pro: 15, enterprise: 30 };

/** Endpoints a workspace may hold (402 `quota_exceeded`, reason allocation, metric `endpoints`); null: unlimited. */
export const ENDPOINTS_BY_PLAN: Record<string, number | null> = { free: 3, pro: 50, enterprise: null };

/** Plan features the provider predicts at preview (the API's `not_entitled` `feature` names). */
export const FEATURES_BY_PLAN: Record<string, readonly string[]> = {
  free: ["optional_endpoint_verification"],
  pro: ["broker_sources", "optional_endpoint_verification"],
  enterprise: ["broker_sources", "optional_endpoint_verification"],
};

/** Whether a plan has a feature; undefined for a plan this version does not know. */
export function planHasFeature(plan: string, feature: string): boolean | undefined {
  const features = FEATURES_BY_PLAN[plan];
  return features ? features.includes(feature) : undefined;
}

export interface WorkspaceInfo {
  id: string;
  plan: string;
  endpoint_verification?: string;
  event_type_policy?: string;
}

/** `GET /v1/workspace`, read once per operation per connection; undefined when it cannot be read. */
export async function readWorkspace(ctx: OperationContext): Promise<WorkspaceInfo | undefined> {
  return readForCheck(ctx, "webhooks:workspace", async () => (await ctx.client.request<WorkspaceInfo>({ method: "GET", path: "/v1/workspace" })).body);
}

/** The plan's max_attempts ceiling, when the plan can be read and is known. */
export async function maxAttemptsCeiling(ctx: OperationContext): Promise<number | undefined> {
  const ws = await readWorkspace(ctx);
  return ws ? MAX_ATTEMPTS_BY_PLAN[ws.plan] : undefined;
}

/** The plan's endpoint ceiling (null: unlimited), when the plan can be read and is known. */
export async function endpointsCeiling(ctx: OperationContext): Promise<{ workspace: string; limit: number | null } | undefined> {
  const ws = await readWorkspace(ctx);
  const limit = ws ? ENDPOINTS_BY_PLAN[ws.plan] : undefined;
  return ws && limit !== undefined ? { workspace: ws.id, limit } : undefined;
}
