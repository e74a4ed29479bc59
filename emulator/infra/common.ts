/**
 * Pieces every Infrastructure route uses: which scope each operation needs,
 * authentication, the caller's identity, and the one-project rule.
 */
import { createHash } from "node:crypto";
import type { FastifyRequest } from "fastify";
import { authenticateInfra, type InfraPrincipal } from "../core/auth";
import type { EmulatorContext } from "../core/context";
import { forbidden } from "../core/errors";

/**
 * The scope each operation needs (api-assumptions: "admin only" is `iam:write`).
 * Our decisions: quotas and quota requests are project administration, so reading
 * them and filing, editing or withdrawing one's own request needs `iam:read`
 * (every key the dashboard mints by default has it); VMs use `vms:*`; snapshots
 * are block storage.
 */
export const SCOPES = {
  quotaRead: "iam:read",
  quotaRequest: "iam:read",
  admin: "iam:write",
  vmsRead: "vms:read",
  vmsCreate: "vms:create",
  snapshotsRead: "block-storage:read",
} as const;

export function auth(ctx: EmulatorContext, req: FastifyRequest, scope: string): InfraPrincipal {
  return authenticateInfra(ctx, req, scope);
}

export function isAdmin(p: InfraPrincipal): boolean {
  return p.scopes.includes(SCOPES.admin);
}

/** A stable, non-secret identity of the calling key (`requested_by`). */
export function callerId(p: InfraPrincipal): string {
  return `key_${createHash("sha256").update(p.key.key).digest("hex").slice(0, 16)}`;
}

/**
 * A key acts on its own project only (spec document 1: no way to act as another
 * project). `admin_project` / `project_id` naming another project: 403 `forbidden`.
 */
export function ownProject(p: InfraPrincipal, named: unknown): string {
  if (named !== undefined && named !== null && named !== "" && named !== p.project.id) {
    throw forbidden("project", "A key acts on its own project only; use a key created in that project.");
  }
  return p.project.id;
}
