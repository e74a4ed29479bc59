/**
 * The receiving endpoint (spec document 2, "Endpoint"), as data for the generic
 * engine plus the hooks a table cannot say: enabling an auto-disabled endpoint,
 * the signing secret output, verification, draining pending deliveries on delete,
 * and the refusals explained with their fix.
 */
import { z } from "zod";
import { ASSUMED_ENDPOINT_BOUNDS as BOUNDS, ENDPOINT_LIMITS, endpointViolations, maxAttemptsViolation } from "../../rules/endpoint";
import type { SvcApiError } from "../client";
import { violationFailure } from "../engine/check";
import { note, PartialFailure } from "../engine/errors";
import { jsonEqual } from "../engine/json";
import { listOf, renamedObject, type ApplyContext, type PlannedCall, type Props, type ResourceDefinition } from "../engine/fields";
import { sameDeclaredFields } from "../engine/reconcile";
import { maxAttemptsCeiling } from "./plan-ceilings";

/** Delivery states that keep an endpoint from being deleted (failed only while a retry is scheduled). */
const PENDING_STATES = ["queued", "sending", "failed"] as const;
const DRAIN_POLL_MS = 1_000;

const subscriptionCodec = listOf(renamedObject({ eventType: "event_type" }));

export const endpointDefinition: ResourceDefinition = {
  kind: "webhooks:Endpoint",
  product: "webhooks",
  noun: "endpoint",
  paths: { create: "/v1/endpoints", item: (id) => `/v1/endpoints/${encodeURIComponent(id)}` },
  adoptHint:
    "List the endpoints (svc.webhooks.getEndpoints() or GET /v1/endpoints) and, if it was created, set `adoptId: \"<its id>\"` on this resource: the next `pulumi up` adopts it instead of creating another.",
  fields: {
    url: { mode: "patch", api: "url", input: z.string().min(1).max(BOUNDS.urlMaxLength) },
    subscriptions: {
      mode: "put",
      api: "subscriptions",
      input: z.array(z.strictObject({ eventType: z.string().min(1).max(BOUNDS.subscriptionPatternMaxLength) })).max(BOUNDS.subscriptionsMax),
      codec: subscriptionCodec,
      default: [],
      put: { path: "/subscriptions", bodyKey: "subscriptions" },
    },
    secret: { mode: "createOnly", api: "secret", input: z.string().min(1).max(BOUNDS.secretMaxLength), writeOnly: true, secret: true },
    maxAttempts: { mode: "patch", api: "max_attempts", input: z.number().int().min(1) },
    retrySchedule: { mode: "patch", api: "retry_schedule", input: z.array(z.number()).max(BOUNDS.retryScheduleMaxEntries) },
    // The service puts an endpoint in the default project when none is named.
    projectId: { mode: "createOnly", api: "project_id", input: z.string().min(1), whenOmitted: "unmanaged" },
    description: { mode: "patch", api: "description", input: z.string().max(BOUNDS.descriptionMaxLength) },
    customHeaders: { mode: "patch", api: "custom_headers", input: z.record(z.string(), z.string()), writeOnly: true, secret: true },
    deliveryTimeoutMs: { mode: "patch", api: "delivery_timeout_ms", input: z.number().int().min(1).max(ENDPOINT_LIMITS.deliveryTimeoutMaxMs) },
    status: { mode: "patch", api: "status", input: z.enum(["enabled", "disabled"]), whenOmitted: "unmanaged", onCreate: false },
    secretRotation: {
      mode: "action",
      input: z.union([z.string(), z.number()]),
      action: { path: "/rotate-secret", safeToRepeat: false },
    },
    verify: { mode: "local", input: z.boolean(), default: false },
    drainTimeoutSeconds: { mode: "local", input: z.number().int().min(0).max(3600), default: 0 },
    adoptId: { mode: "local", input: z.string().min(1) },
    // Computed by the SDK for policy packs: names of headers the program wrote in plaintext.
    plaintextHeaderNames: { mode: "local", input: z.array(z.string()), checkOnly: true },
    // Another profile is another workspace: the endpoint is created there instead.
    profile: { mode: "createOnly", input: z.string().min(1) },
    verified: { mode: "output", api: "verified" },
    customHeaderNames: { mode: "output", api: "custom_header_names" },
    suspension: { mode: "output", api: "suspension" },
    createdAt: { mode: "output", api: "created_at" },
    updatedAt: { mode: "output", api: "updated_at" },
    signingSecret: { mode: "output", secret: true },
  },
  rules: (body) => endpointViolations(body),
  // The header values are never shown, their names are: an endpoint with other header names is not the create's.
  reconcile: {
    matches: (remote, body) => sameDeclaredFields(endpointDefinition, remote, body) && jsonEqual(remote.custom_header_names ?? [], Object.keys((body.custom_headers ?? {}) as Props).sort()),
  },
  hooks: {
    async checkRemote(inputs, ctx, olds) {
      if (typeof inputs.maxAttempts !== "number") return [];
      const ceiling = await maxAttemptsCeiling(ctx);
      const violation = ceiling === undefined ? undefined : maxAttemptsViolation(inputs.maxAttempts, ceiling);
      if (!violation) return [];
      const failure = violationFailure(endpointDefinition, violation);
      const fix = `Lower maxAttempts to ${ceiling} or less, or upgrade the workspace's plan`;
      // Unchanged since the last up (the plan was lowered since): the service keeps it and accepts
      // PATCHes of the other fields, so an unchanged stack is not blocked; only a new value is.
      if (olds.maxAttempts === inputs.maxAttempts) {
        note(`${failure.property} ${inputs.maxAttempts} is above the workspace plan's ceiling of ${ceiling} (it was lowered since it was set); the endpoint keeps it. ${fix}.`);
        return [];
      }
      return [{ ...failure, reason: `${failure.reason}. ${fix}` }];
    },

    // PATCH cannot turn an auto-disabled endpoint back on; POST /enable can.
    adjustPlan(calls, olds, news) {
      if (olds.status !== "auto_disabled" || news.status !== "enabled") return calls;
      const out: PlannedCall[] = [];
      for (const call of calls) {
        if (call.kind !== "patch" || !call.fields.includes("status")) {
          out.push(call);
          continue;
        }
        const { status: _status, ...body } = call.body as Props;
        const fields = call.fields.filter((f) => f !== "status");
        if (fields.length > 0) out.push({ ...call, body, fields });
      }
      out.push({ kind: "action", method: "POST", path: "/enable", fields: ["status"], safeToRepeat: true, label: "enable" });
      return out;
    },

    // The signing secret is returned only by create and rotate-secret.
    extraOutputs(response, previous) {
      return { signingSecret: typeof response.secret === "string" ? response.secret : (previous.signingSecret ?? null) };
    },

    refreshWriteOnly(field, remote, lastApplied) {
      if (field !== "customHeaders") return lastApplied;
      // Names are read back, values never. A PATCH replaces the whole map: while the names are
      // those last applied, the values are taken to be too; once they differ, the map was
      // written outside Pulumi and no value is known (null), so the next up writes the declared map.
      const names = Array.isArray(remote.custom_header_names) ? (remote.custom_header_names as string[]) : [];
      const applied = Object.keys((lastApplied ?? {}) as Record<string, string>).map((n) => n.toLowerCase()).sort();
      if (jsonEqual(applied, names.map((n) => n.toLowerCase()).sort())) return lastApplied;
      return names.length === 0 ? null : Object.fromEntries(names.map((n) => [n, null]));
    },

    async afterApply(ctx, { created, news, outputs }) {
      if (news.verify !== true || outputs.verified === true) return outputs;
      const res = await ctx.client.request<{ verified: boolean; error?: string | null; failure_reason?: string | null }>({
        method: "POST",
        path: `${ctx.itemPath}/verify`,
        safeToRepeat: true,
      });
      if (res.body.verified) return { ...outputs, verified: true };
      const reason = `${res.body.failure_reason ?? "not_verified"}: ${res.body.error ?? "the URL did not answer the challenge"}`;
      throw new PartialFailure(
        `Endpoint ${ctx.id} was ${created ? "created" : "updated"} but is not verified (${reason}). Make ${String(news.url)} answer the signed webhook.verify event with a 2xx that echoes the challenge token, then run \`pulumi up\` again: the endpoint is kept in the state and verification is retried. Set verify: false to skip verification.`,
        ctx.id,
        { ...outputs, verified: false },
        [reason],
      );
    },

    explainError(err, operation, inputs) {
      const d = err.details;
      if (err.code === "quota_exceeded" && d.metric === "endpoints") {
        return `The workspace's plan allows ${String(d.limit)} endpoints${d.current !== undefined ? ` and ${String(d.current)} exist` : ""}. Delete endpoints you no longer need, or upgrade the plan; retrying never helps.`;
      }
      const entries = Array.isArray(d.errors) ? (d.errors as { type?: string; params?: { count?: number } }[]) : [];
      const overPlan = entries.find((e) => e.type === "webhooks.max_attempts_above_plan");
      if (overPlan) {
        const ceiling = overPlan.params?.count;
        return `maxAttempts ${String(inputs?.maxAttempts)} is above the plan's ceiling of ${String(ceiling)} (webhooks.max_attempts_above_plan). Lower maxAttempts to ${String(ceiling)} or less, or upgrade the workspace's plan.`;
      }
      if (err.code === "conflict" && err.reason === "endpoint_auto_disabled") {
        return `The endpoint was disabled automatically after repeated delivery failures, and the state did not know it yet. Run \`pulumi refresh\`, then \`pulumi up\`: with status "enabled" the provider turns it back on with POST /enable.`;
      }
      if (err.code === "conflict" && err.reason === "endpoint_has_pending_deliveries") {
        return pendingDeliveriesMessage(String(d.id ?? ""), Number(d.count ?? 0), Number(inputs?.drainTimeoutSeconds ?? 0));
      }
      void operation;
      return undefined;
    },

    async onDeleteRefused(err, ctx, props) {
      if (err.reason !== "endpoint_has_pending_deliveries") throw err;
      const drainSeconds = typeof props.drainTimeoutSeconds === "number" ? props.drainTimeoutSeconds : 0;
      const deadline = drainDeadlines.get(ctx) ?? Date.now() + drainSeconds * 1000;
      drainDeadlines.set(ctx, deadline);
      let pending = Number(err.details.count ?? 0);
      while (Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, Math.min(DRAIN_POLL_MS, Math.max(0, deadline - Date.now()))));
        pending = await countPendingDeliveries(ctx);
        if (pending === 0) return "retry";
      }
      // The service disabled it while refusing, but it stays in the state as it was: put the
      // status back, so the state and the service agree (a program that declares it again gets it as it says).
      const enabledAgain = props.status === "enabled" && (await enableAgain(ctx));
      throw err.withMessage(pendingDeliveriesMessage(ctx.id, pending, drainSeconds, enabledAgain));
    },
  },
};

/**
 * Deadlines of deletes waiting for deliveries to drain, so a re-refused DELETE does not
 * restart the clock: one per delete (its context), never shared with a later delete.
 */
const drainDeadlines = new WeakMap<ApplyContext, number>();

function pendingDeliveriesMessage(id: string, count: number, drainSeconds: number, enabledAgain = false): string {
  const pending = `Endpoint ${id} was not deleted: ${count} deliveries are still pending (queued, sending or waiting for a retry)${drainSeconds > 0 ? ` after waiting ${drainSeconds} s` : ""}.`;
  if (enabledAgain)
    return (
      `${pending} The service disabled the endpoint while refusing; it was enabled again, as the state holds it, and stays in the state. ` +
      `To delete it, let its deliveries drain while it is disabled: set drainTimeoutSeconds (the provider waits that long, the endpoint disabled), ` +
      `or declare status: "disabled" and run \`pulumi up\` first; then run \`pulumi destroy\` (or \`pulumi up\`) again.`
    );
  return (
    `${pending} The service has disabled the endpoint, so no new deliveries are queued to it, and it stays in the state. ` +
    `Let the pending deliveries finish (or let their receiver answer), or set drainTimeoutSeconds to wait longer, then run \`pulumi destroy\` (or \`pulumi up\`) again.`
  );
}

/** POST /enable after a refused delete disabled the endpoint; false when it could not be done (the message then says it is disabled). */
async function enableAgain(ctx: ApplyContext): Promise<boolean> {
  try {
    await ctx.client.request({ method: "POST", path: `${ctx.itemPath}/enable`, safeToRepeat: true });
    return true;
  } catch {
    return false;
  }
}

async function countPendingDeliveries(ctx: ApplyContext): Promise<number> {
  let pending = 0;
  for (const status of PENDING_STATES) {
    const items = await ctx.client.listAll<{ status: string; next_attempt_at?: string | null }>("/v1/deliveries", { endpoint_id: ctx.id, status });
    pending += items.filter((d) => d.status !== "failed" || (d.next_attempt_at !== null && d.next_attempt_at !== undefined)).length;
  }
  return pending;
}
