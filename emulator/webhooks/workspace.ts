/**
 * Workspace settings (spec document 2, "Operational endpoints and workspace";
 * design/api-assumptions.md): `GET /v1/workspace` and `PATCH /v1/workspace`
 * `{endpoint_verification: required|optional}`, plus the settings store the event
 * type policy lives in (`webhooks.settings`, one entry per workspace).
 */
import type { FastifyInstance } from "fastify";
import { z } from "zod";
import type { EmulatorContext } from "../core/context";
import { notEntitled } from "../core/errors";
import type { Workspace } from "../core/store";
import { parse } from "../core/validation";
import { assertMayChangeWorkspaceWide, auth } from "./common";
import { dict } from "../core/dict";

export type EventTypePolicy = "strict" | "lenient";
export const EVENT_TYPE_POLICIES = ["strict", "lenient"] as const;
export const DEFAULT_EVENT_TYPE_POLICY: EventTypePolicy = "lenient";
export type EndpointVerification = "required" | "optional";

export interface WorkspaceSettings {
  /** Null until set: the plan's default (`optional` where the plan allows it). */
  endpoint_verification: EndpointVerification | null;
  event_type_policy: EventTypePolicy;
  /** Per-project overrides of the event type policy. */
  project_policies: Record<string, EventTypePolicy>;
}

/** The settings of a workspace (created with the defaults on first use). */
export function workspaceSettings(ctx: EmulatorContext, workspaceId: string): WorkspaceSettings {
  const all = ctx.store.product<Record<string, WorkspaceSettings>>("webhooks.settings", () => dict());
  all[workspaceId] ??= { endpoint_verification: null, event_type_policy: DEFAULT_EVENT_TYPE_POLICY, project_policies: dict() };
  return all[workspaceId];
}

/** Whether endpoints of the workspace must be verified before they receive deliveries. */
export function endpointVerification(ctx: EmulatorContext, ws: Workspace): EndpointVerification {
  return workspaceSettings(ctx, ws.id).endpoint_verification ?? (ctx.plan(ws).webhooks.optional_endpoint_verification ? "optional" : "required");
}

function workspaceView(ctx: EmulatorContext, ws: Workspace) {
  return { id: ws.id, plan: ws.plan, endpoint_verification: endpointVerification(ctx, ws), event_type_policy: workspaceSettings(ctx, ws.id).event_type_policy };
}

const patchBody = z.object({ endpoint_verification: z.enum(["required", "optional"]).optional() });

export function registerWorkspace(app: FastifyInstance, ctx: EmulatorContext): void {
  app.get("/v1/workspace", async (req) => workspaceView(ctx, auth(ctx, req, "read").workspace));

  app.patch("/v1/workspace", async (req) => {
    const principal = auth(ctx, req, "admin");
    assertMayChangeWorkspaceWide(principal, "the workspace's settings");
    const ws = principal.workspace;
    const body = parse(patchBody, req.body ?? {});
    if (body.endpoint_verification === "optional" && !ctx.plan(ws).webhooks.optional_endpoint_verification) throw notEntitled("optional_endpoint_verification");
    if (body.endpoint_verification !== undefined) {
      workspaceSettings(ctx, ws.id).endpoint_verification = body.endpoint_verification;
      ctx.store.changed();
    }
    return workspaceView(ctx, ws);
  });
}
