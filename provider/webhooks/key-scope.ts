/**
 * What the Webhooks key in use may do, from its own answer: `GET /v1/auth/me` answers
 * `scope` (spec 2, "Credential info"), read once per operation and connection (the cache
 * key reach.ts and confined-key.ts share: one call for all three). Spec 1: `admin` may do
 * everything, `publish` may only publish, `read` may only read; so every resource's
 * create, change or take-over needs `admin`.
 */
import type { OperationContext } from "../engine/fields";

export interface AuthMe {
  scope?: unknown;
  workspace_id?: unknown;
  project_id?: unknown;
}

/** The key's own answer, once per operation and connection. */
export const authMe = (ctx: OperationContext): Promise<AuthMe | undefined> =>
  ctx.cached("webhooks:auth-me", async () => (await ctx.client.request<AuthMe>({ method: "GET", path: "/v1/auth/me" })).body);

/** What each scope short of `admin` may do (spec 1). */
const CANNOT_WRITE: Readonly<Record<string, string>> = { read: "only read", publish: "only publish events" };

/** The key's scope and what it may do, when it may not write resources; undefined for `admin` (or a scope the spec does not name). */
export async function webhooksWriteShortfall(ctx: OperationContext): Promise<{ has: string; may: string; needs: string } | undefined> {
  const scope = (await authMe(ctx))?.scope;
  if (typeof scope !== "string" || !Object.hasOwn(CANNOT_WRITE, scope)) return undefined;
  return { has: scope, may: CANNOT_WRITE[scope]!, needs: "admin" };
}
