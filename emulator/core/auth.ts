/**
 * Credentials, following spec document 1's Authentication tables:
 *
 * - Webhooks and Inboxes: a product key (JWT-shaped) as `Authorization: Bearer` or
 *   `X-API-Key`, or a browser session (cookie `svc_session`); scopes admin/read/publish.
 * - Infrastructure: `svc_live_`/`svc_test_` keys with service scopes; a missing scope is
 *   403 `forbidden` whose message names it.
 *
 * After the credential: the scope, then the workspace's billing state (402).
 */
import type { FastifyRequest } from "fastify";
import { ApiError, forbidden, invalidCredential, unauthorized } from "./errors";
import type { EmulatorContext } from "./context";
import type { KeyRecord, Project, Workspace } from "./store";

export type AppProduct = "webhooks" | "inboxes";
/**
 * What a route needs: `read` for reads, `admin` for writes, `publish` for publishing
 * events; `any` for routes every valid credential may call (Webhooks `GET /v1/auth/me`).
 */
export type AppScope = "read" | "admin" | "publish" | "any";

export interface AppPrincipal {
  kind: "key" | "session";
  workspace: Workspace;
  /** Set for a project-confined credential. */
  confinedProject: string | null;
  scope: string;
}

export interface InfraPrincipal {
  key: KeyRecord;
  project: Project;
  workspace: Workspace;
  scopes: string[];
}

const SESSION_COOKIE = "svc_session";

function bearer(req: FastifyRequest, allowApiKeyHeader: boolean): string | undefined {
  const auth = req.headers.authorization;
  if (typeof auth === "string" && auth.toLowerCase().startsWith("bearer ")) return auth.slice(7).trim() || undefined;
  const apiKey = req.headers["x-api-key"];
  if (allowApiKeyHeader && typeof apiKey === "string" && apiKey) return apiKey;
  return undefined;
}

function sessionToken(req: FastifyRequest): string | undefined {
  const cookie = req.headers.cookie;
  if (!cookie) return undefined;
  for (const part of cookie.split(";")) {
    const [name, ...rest] = part.trim().split("=");
    if (name === SESSION_COOKIE) return rest.join("=");
  }
  return undefined;
}

const isWrite = (req: FastifyRequest) => req.method !== "GET" && req.method !== "HEAD";

/** Does a credential of scope `have` satisfy a route needing `need`? */
function scopeAllows(have: string, need: AppScope): boolean {
  return need === "any" || have === "admin" || have === need;
}

/**
 * Authenticate a Webhooks or Inboxes request. Throws the spec's refusal, or
 * returns who is calling. `billing: false` skips the 402 billing check, for
 * operations the spec declares no 402 on (Inboxes DELETEs).
 */
export function authenticateApp(ctx: EmulatorContext, req: FastifyRequest, product: AppProduct, need: AppScope, { billing = true }: { billing?: boolean } = {}): AppPrincipal {
  const token = bearer(req, true);
  const session = token === undefined ? sessionToken(req) : undefined;
  let principal: AppPrincipal;

  if (token === undefined && session === undefined) throw unauthorized("missing");
  if (session !== undefined) {
    const s = ctx.state.sessions[session];
    if (s?.revoked) throw unauthorized("revoked", "The session was revoked.");
    if (!s || s.expired) {
      // Inboxes: 401 unauthorized/invalid; Webhooks: an expired session is 403 invalid_credential.
      if (product === "inboxes") throw unauthorized("invalid", "The sign-in session did not verify or has expired.");
      throw invalidCredential(403);
    }
    if (isWrite(req) && !req.headers["x-csrf"]) throw forbidden("csrf", "Writes from a browser session need the X-CSRF header.");
    principal = { kind: "session", workspace: ctx.state.workspaces[s.workspace_id]!, confinedProject: null, scope: "admin" };
  } else {
    const key = ctx.state.keys[token!];
    if (!key || key.product !== product) throw invalidCredential(product === "inboxes" ? 401 : 403);
    if (key.revoked) throw unauthorized("revoked", "The key was revoked.");
    if (key.workspace_id === null) {
      if (product === "inboxes") throw unauthorized("no_workspace", "The credential is not tied to a workspace.");
      throw invalidCredential(403);
    }
    if (product === "inboxes" && key.project_id !== null) {
      throw forbidden("project_confined", "Inboxes does not accept project-limited credentials yet.");
    }
    principal = { kind: "key", workspace: ctx.state.workspaces[key.workspace_id]!, confinedProject: key.project_id, scope: key.scopes[0]! };
  }

  if (!scopeAllows(principal.scope, need)) {
    // Inboxes refusals always name admin as the scope that would be allowed.
    const required = product === "inboxes" ? "admin" : need;
    throw forbidden("scope", `This operation needs a key with the ${required} scope.`, { required });
  }
  if (billing) assertWorkspaceActive(principal.workspace, isWrite(req));
  return principal;
}

/** 402 when billing stops the request: suspended stops everything, frozen stops changes. */
export function assertWorkspaceActive(ws: Workspace, write: boolean): void {
  if (ws.suspended) throw new ApiError(402, "workspace_suspended", "The workspace is suspended after an unsettled charge; service is stopped.");
  if (ws.frozen && write) throw new ApiError(402, "workspace_frozen", "A charge is unsettled; changes are refused until it is paid.");
}

/**
 * Authenticate an infrastructure request needing `scope` (e.g. `iam:write` for
 * admin-only operations). Credential failures other than the 403 are not shown
 * in the spec; the emulator uses 401 `unauthorized` (missing, revoked) and 401
 * `invalid_credential` (unrecognised), as documented in emulator/README.md.
 */
export function authenticateInfra(ctx: EmulatorContext, req: FastifyRequest, scope: string): InfraPrincipal {
  const token = bearer(req, false);
  if (token === undefined) throw unauthorized("missing");
  const key = ctx.state.keys[token];
  if (!key || key.product !== "infra" || !/^svc_(live|test)_[a-z2-7]{32,48}$/.test(token)) throw invalidCredential(401);
  if (key.revoked) throw unauthorized("revoked", "The key was revoked.");
  if (!key.scopes.includes(scope)) throw new ApiError(403, "forbidden", `This operation needs the ${scope} scope, which the key lacks.`);
  const project = ctx.state.projects[key.project_id!]!;
  return { key, project, workspace: ctx.state.workspaces[project.workspace_id]!, scopes: key.scopes };
}
