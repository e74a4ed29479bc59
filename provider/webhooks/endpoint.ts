/**
 * The receiving endpoint (spec document 2, "Endpoint"), as data for the generic
 * engine plus the hooks a table cannot say: enabling an auto-disabled endpoint,
 * the signing secret output, verification, draining pending deliveries on delete,
 * and the refusals explained with their fix.
 */
import { z } from "zod";
import { ASSUMED_ENDPOINT_BOUNDS as BOUNDS, ENDPOINT_LIMITS, endpointViolations, maxAttemptsViolation } from "../../rules/endpoint";
import { violationFailure } from "../engine/check";
import { note, PartialFailure } from "../engine/errors";
import { jsonEqual } from "../engine/json";
import { defineResource, listOf, renamedObject, type ApplyContext, type CheckFailure, type OperationContext, type PlannedCall, type Props } from "../engine/fields";
import { readForCheck } from "../engine/remote-checks";
import { sameDeclaredFields } from "../engine/reconcile";
import { otherProjectWithConfinedKey } from "./confined-key";
import { endpointsCeiling, maxAttemptsCeiling } from "./plan-ceilings";
import { RESOURCE_NAME_FIELD } from "../engine/fields";

/** Delivery states that keep an endpoint from being deleted (failed only while a retry is scheduled). */
const PENDING_STATES = ["queued", "sending", "failed"] as const;
const DRAIN_POLL_MS = 1_000;

const subscriptionCodec = listOf(renamedObject({ eventType: "event_type" }));

export const endpointDefinition = defineResource({
  kind: "webhooks:Endpoint",
  description: "`svc.webhooks.Endpoint`: a receiving endpoint of the Webhooks product.",
  product: "webhooks",
  noun: "endpoint",
  changeNote: "`status: \"enabled\"` on an `auto_disabled` endpoint: POST `/enable`. `secretRotation` gives a new `signingSecret`. `verify: true`: `/verify` after create and after a URL change.",
  paths: { create: "/v1/endpoints", item: (id) => `/v1/endpoints/${encodeURIComponent(id)}` },
  adoptHint:
    "List the endpoints (svc.webhooks.getEndpoints() or GET /v1/endpoints) and, if it was created, set `adoptId: \"<its id>\"` on this resource: the next `pulumi up` adopts it instead of creating another.",
  ownerField: "description",
  fields: {
    url: { mode: "patch", api: "url", input: z.string().min(1).max(BOUNDS.urlMaxLength), required: true, description: "The receiver's address; must be an absolute `https://` URL. Changing it resets `verified`.", outputDescription: "The receiver's address." },
    subscriptions: {
      mode: "put",
      api: "subscriptions",
      input: z.array(
        z
          .strictObject({
            eventType: z
              .string()
              .min(1)
              .max(BOUNDS.subscriptionPatternMaxLength)
              .describe(
                "Pattern over whole dot-separated names: `*` matches exactly one segment, `**` one or more, anything else literally (`order.*` matches `order.created`, not `order.item.added`; `order.**` matches both). The type need not be registered.",
              ),
          })
          .meta({ title: "EndpointSubscription", description: "A subscription: event type names matched by a pattern." }),
      ).max(BOUNDS.subscriptionsMax),
      codec: subscriptionCodec,
      default: [],
      put: { path: "/subscriptions", bodyKey: "subscriptions" },
      description: "Event type patterns this endpoint receives, in order (at most 100). Changing them replaces the whole set in one call. Default: none.",
      outputDescription: "The subscriptions, in the order set.",
    },
    secret: { mode: "createOnly", api: "secret", input: z.string().min(1).max(BOUNDS.secretMaxLength), writeOnly: true, secret: true, description: "The signing secret to use instead of a generated `whsec_` one. Only accepted on create: changing it REPLACES the endpoint. Always stored as a Pulumi secret. To get a fresh secret without replacing, change `secretRotation` instead.", outputDescription: "A seal of the signing secret given in `secret` (`hmac-sha256:...`, keyed by the API key; never the value), or null when the service generated it." },
    maxAttempts: { mode: "patch", api: "max_attempts", input: z.number().int().min(1), description: "Delivery attempts before a delivery is dead. Above the plan's ceiling (free 5, pro 15, enterprise 30) the preview fails. Omit for the service default.", outputDescription: "Delivery attempts before a delivery is dead; null for the service default." },
    retrySchedule: { mode: "patch", api: "retry_schedule", input: z.array(z.number()).max(BOUNDS.retryScheduleMaxEntries), description: "Delays between attempts, in seconds, each 0 to 604800. Omit for the service default.", outputDescription: "Delays between attempts in seconds; null for the service default." },
    // The service puts an endpoint in the default project when none is named.
    projectId: { mode: "createOnly", api: "project_id", input: z.string().min(1), whenOmitted: "unmanaged", description: "Project of the workspace the endpoint belongs to. Omit for the workspace's default project. Changing it REPLACES the endpoint.", outputDescription: "The project the endpoint belongs to (the default project when none was given)." },
    description: { mode: "patch", api: "description", input: z.string().max(BOUNDS.descriptionMaxLength), description: "Free text, at most 1024 characters.", outputDescription: "Free text, or null." },
    customHeaders: { mode: "patch", api: "custom_headers", input: z.record(z.string(), z.string()), writeOnly: true, secret: true, keysIn: "declaredHeaderNames", sdk: { extraProps: true, acceptsMap: true }, description: "Headers sent with every delivery, test ping and verification: at most 20, each value at most 1024 ASCII characters, names plus values at most 8192 bytes; not `Content-Type`, `User-Agent`, `X-Webhook-*` or hop-by-hop names. The service never returns the values, so the provider compares them with the last applied ones. Always stored as a Pulumi secret.", outputDescription: "The names of the custom headers last applied, each with a seal of its value (`hmac-sha256:...`, keyed by the API key; never the value)." },
    deliveryTimeoutMs: { mode: "patch", api: "delivery_timeout_ms", input: z.number().int().min(1).max(ENDPOINT_LIMITS.deliveryTimeoutMaxMs), description: "Per-delivery timeout in milliseconds, 1 to 60000. Omit for the service default.", outputDescription: "Per-delivery timeout in milliseconds; null for the service default." },
    status: { mode: "patch", api: "status", input: z.enum(["enabled", "disabled"]).meta({ title: "EndpointDeclaredStatus" }),
      outputType: z.enum(["enabled", "disabled", "auto_disabled"]).meta({ title: "EndpointStatus", description: "`enabled`, `disabled`, or `auto_disabled` (switched off after repeated delivery failures; only enabling recovers it)." }),
      whenOmitted: "unmanaged",
      onCreate: false, description: "`enabled` or `disabled`. Omit to leave the status to the service. `enabled` on an endpoint the service auto-disabled calls `POST /enable` (after `pulumi refresh` has seen the `auto_disabled` status).", outputDescription: "`enabled`, `disabled` or `auto_disabled`." },
    secretRotation: {
      mode: "action",
      input: z.union([z.string(), z.number()]),
      action: { path: "/rotate-secret", safeToRepeat: false },
      description: "Any value; every change rotates the signing secret (`rotate-secret`) and updates `signingSecret`. Not used on create.",
      outputDescription: "The `secretRotation` value the signing secret was last rotated for (null: never rotated).",
    },
    verify: { mode: "local", input: z.boolean(), default: false, description: "Verify the URL after create and after a URL change (`POST /verify`: a signed challenge the receiver must echo with a 2xx). When verification fails the endpoint is kept in the state, the update fails with the reason, and the next `pulumi up` retries it. Default false.", outputDescription: "Whether the provider verifies the URL after create and URL changes." },
    drainTimeoutSeconds: { mode: "local", input: z.number().int().min(0).max(3600), default: 0, description: "Seconds a delete (`pulumi destroy`, a removal, a replacement's delete of the old endpoint) waits for queued, sending or retrying deliveries before giving up (the service refuses to delete an endpoint with pending deliveries, and disables it instead). A delete uses the value stored with the endpoint it deletes: to have a replacement's delete wait, set it in an `up` before the change that replaces it. Default 0: fail at once with the count.", outputDescription: "Seconds destroy waits for pending deliveries." },
    adoptId: { mode: "local", input: z.string().min(1), description: "Id of an existing endpoint to take over instead of creating one: create reads it and brings it to the declared state with PATCH/PUT. `secret` cannot be given together with it.", outputDescription: "The id given to adopt an existing endpoint, or null." },
    resourceName: RESOURCE_NAME_FIELD,
    // Computed by the SDK for policy packs: names of headers the program wrote in plaintext.
    plaintextHeaderNames: { mode: "local", input: z.array(z.string()), checkOnly: true, sdk: { extraProps: true }, description: "Names (never values) of the custom headers the program gave as plain, non-secret values. Every value is stored as a secret regardless; policy packs read this to flag credentials written in plaintext in the program." },
    // Computed by the SDK: the header names, known at preview even when the secret map as a whole is not.
    declaredHeaderNames: { mode: "local", input: z.array(z.string()), checkOnly: true, sdk: { extraProps: true }, description: "Names (never values) of every custom header the program gives. The map is one secret value, not known at preview while any of its values is not: the preview judges the names from this list (a managed or invalid name fails it)." },
    // Another profile is another workspace: the endpoint is created there instead.
    profile: { mode: "createOnly", input: z.string().min(1), description: "Connection profile: which workspace (address and key) to use. Omit for the stack's `svc:webhooksUrl` / `svc:webhooksApiKey` (or `SVC_WEBHOOKS_URL` / `SVC_WEBHOOKS_API_KEY`); a name picks `svc:profiles.<name>` (or `SVC_PROFILE_<NAME>_WEBHOOKS_URL` / `..._API_KEY`). Changing it REPLACES the endpoint.", outputDescription: "The connection profile used (null: the default one)." },
    verified: { mode: "output", api: "verified", type: z.boolean(), description: "True once the URL passed verification; false again after a URL change." },
    customHeaderNames: { mode: "output", api: "custom_header_names", type: z.array(z.string()), description: "Names of the custom headers the service holds (sorted); values are never returned." },
    suspension: {
      mode: "output",
      api: "suspension",
      type: z
        .object({ cause: z.enum(["abuse", "non_payment", "plan_downgrade"]).describe("The most serious cause of the suspension.") })
        .meta({ title: "EndpointSuspension", description: "Why the service suspended an endpoint." })
        .nullable(),
      description: "Null, or the most serious cause of a suspension." },
    createdAt: { mode: "output", api: "created_at", type: z.string(), description: "ISO 8601 UTC." },
    updatedAt: { mode: "output", api: "updated_at", type: z.string(), description: "ISO 8601 UTC." },
    signingSecret: { mode: "output", secret: true, type: z.string().nullable(), description: "The secret deliveries are signed with, as generated by create or the last rotation (secret). Null when it is the declared `secret` (the program has it; it is not repeated in the outputs), and after `Endpoint.get`." },
  },
  rules: (body) => endpointViolations(body),
  // The header values are never shown, their names are: an endpoint with other header names is not the create's.
  reconcile: {
    matches: (remote, body): boolean => sameDeclaredFields(endpointDefinition, remote, body) && jsonEqual(remote.custom_header_names ?? [], Object.keys((body.custom_headers ?? {}) as Props).sort()),
  },
  hooks: {
    async checkRemote(inputs, ctx, olds) {
      const confined = await otherProjectWithConfinedKey(ctx, inputs.projectId, "endpoint");
      if (confined.length > 0) return confined;
      // A new endpoint (an adopted one exists already); a replacement's new one too: the engine creates it before
      // deleting the old, and its second Check comes with no old inputs (step_generator.go).
      const creating = olds.url === undefined && !inputs.adoptId;
      return [...(creating ? await allocationFailures(ctx) : []), ...(await maxAttemptsFailures(inputs.maxAttempts, olds.maxAttempts, ctx))];
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

    // The signing secret is returned only by create and rotate-secret; a declared one is not repeated
    // (it would reach every stream the outputs do: engine/sealed.ts), a generated one is the only copy.
    extraOutputs(response, previous) {
      if (typeof response.secret !== "string") return { signingSecret: previous.signingSecret ?? null };
      return { signingSecret: response.secret === previous.secret ? null : response.secret };
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

    holdsNone: (field, outputs) => field === "customHeaders" && Array.isArray(outputs.customHeaderNames) && outputs.customHeaderNames.length === 0,

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
      );
    },

    explainError(err, operation, inputs) {
      const d = err.details;
      if (err.code === "quota_exceeded" && d.metric === "endpoints") {
        return allocationMessage(d.limit, d.current === undefined ? undefined : `${String(d.current)} exist`);
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

    // Only an endpoint the refusal itself disabled is enabled again: read its status first,
    // unless it is never enabled again anyway (see onDeleteRefused).
    async beforeDelete(ctx, props, current) {
      if (props.status !== "enabled" || replacedInRun(ctx)) return;
      const status = current ? current.status : (await ctx.client.request<{ status?: string }>({ method: "GET", path: ctx.itemPath }).catch(() => undefined))?.body.status;
      // Not read (the DELETE will say why): as the state holds it.
      deletes.set(ctx, { enabledBefore: status === undefined || status === "enabled" });
    },

    async onDeleteRefused(err, ctx, props) {
      if (err.reason !== "endpoint_has_pending_deliveries") throw err;
      const drainSeconds = typeof props.drainTimeoutSeconds === "number" ? props.drainTimeoutSeconds : 0;
      const facts = deletes.get(ctx) ?? { enabledBefore: false };
      deletes.set(ctx, facts);
      const deadline = (facts.deadline ??= Date.now() + drainSeconds * 1000);
      let pending = Number(err.details.count ?? 0);
      while (Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, Math.min(DRAIN_POLL_MS, Math.max(0, deadline - Date.now()))));
        pending = await countPendingDeliveries(ctx);
        if (pending === 0) return "retry";
      }
      const message = (afterRefusal?: AfterRefusal) => err.withMessage(pendingDeliveriesMessage(ctx.id, pending, drainSeconds, afterRefusal));
      // The old object of a replacement, declared by no program: enabled again, it would
      // receive every event beside its replacement and never drain.
      if (replacedInRun(ctx)) throw message("replaced");
      if (props.status !== "enabled") throw message();
      // Disabled before this refusal while the state says enabled: what an earlier run's
      // refusal left (a replacement's old object, whose pending delete comes with no Diff).
      if (!facts.enabledBefore) throw message("disabledBefore");
      // The service disabled it while refusing, but it stays in the state as it was: put the
      // status back, so the state and the service agree (a program that declares it again gets it as it says).
      throw message((await enableAgain(ctx)) ?? "enabled");
    },
  },
});

/** A new endpoint over the plan's endpoint ceiling, counting the new endpoints of the whole run (engine-operation.ts). */
async function allocationFailures(ctx: OperationContext): Promise<CheckFailure[]> {
  const ceiling = await endpointsCeiling(ctx);
  if (!ceiling || ceiling.limit === null) return []; // unknown plan, or unlimited: nothing to count
  const live = await readForCheck(ctx, "webhooks:endpoint-count", async () => (await ctx.client.request<{ total: number }>({ method: "GET", path: "/v1/endpoints", query: { limit: 1 } })).body.total);
  if (live === undefined) return [];
  const allocation = ctx.operation.planAllocation(ceiling.workspace, "endpoints", live, ceiling.limit);
  if (allocation.taken) return [];
  return [{ property: "url", reason: allocationMessage(ceiling.limit, `${allocation.current} exist or are planned`) }];
}

function allocationMessage(limit: unknown, inUse: string | undefined): string {
  return `The workspace's plan allows ${String(limit)} endpoints${inUse ? ` and ${inUse}` : ""} (quota_exceeded, reason allocation, metric endpoints). Delete endpoints you no longer need, or upgrade the plan; retrying never helps.`;
}

/** maxAttempts above the plan's ceiling: a new value fails the preview; one the plan was lowered under since is kept, with a note. */
async function maxAttemptsFailures(maxAttempts: unknown, oldMaxAttempts: unknown, ctx: OperationContext): Promise<CheckFailure[]> {
  if (typeof maxAttempts !== "number") return [];
  const ceiling = await maxAttemptsCeiling(ctx);
  const violation = ceiling === undefined ? undefined : maxAttemptsViolation(maxAttempts, ceiling);
  if (!violation) return [];
  const failure = violationFailure(endpointDefinition, violation);
  const fix = `Lower maxAttempts to ${ceiling} or less, or upgrade the workspace's plan`;
  // Unchanged since the last up (the plan was lowered since): the service keeps it and accepts
  // PATCHes of the other fields, so an unchanged stack is not blocked; only a new value is.
  if (oldMaxAttempts === maxAttempts) {
    note(`${failure.property} ${maxAttempts} is above the workspace plan's ceiling of ${ceiling} (it was lowered since it was set); the endpoint keeps it. ${fix}.`);
    return [];
  }
  return [{ ...failure, reason: `${failure.reason}. ${fix}` }];
}

/** A Diff of this operation replaced the endpoint: its delete is the replacement's (claims.ts `replaced`). */
const replacedInRun = (ctx: ApplyContext) => ctx.operation.claims(ctx, ctx.def.kind).replaced.has(ctx.id);

/**
 * What a delete knows of its endpoint, one record per delete (its context), never shared
 * with a later one: whether the service showed it enabled before the DELETE (read only when
 * it would be enabled again), and the deadline of the wait for its deliveries to drain, so
 * a re-refused DELETE does not restart the clock.
 */
const deletes = new WeakMap<ApplyContext, { enabledBefore: boolean; deadline?: number }>();

/** What became of an endpoint whose delete was refused, when the message says more than the refusal. */
type AfterRefusal = "enabled" | Error | "replaced" | "disabledBefore";

/**
 * `afterRefusal`: the endpoint was enabled in the state, so the provider enabled it again
 * (`"enabled"`), or tried and failed (the error); or it is left disabled: the old object
 * of a replacement (`"replaced"`), or one the service held disabled before this delete
 * (`"disabledBefore"`). A failed delete cannot change the state (the engine keeps a
 * resource's old outputs when its Delete fails), so the message says how the state
 * learns that the service holds it disabled, and a retried delete gets the outputs the
 * state kept: for a replacement's old object, no value the program sets now reaches it.
 */
function pendingDeliveriesMessage(id: string, count: number, drainSeconds: number, afterRefusal?: AfterRefusal): string {
  const pending = `Endpoint ${id} was not deleted: ${count === 1 ? "1 delivery is" : `${count} deliveries are`} still pending (queued, sending or waiting for a retry)${drainSeconds > 0 ? ` after waiting ${drainSeconds} s` : ""}.`;
  const drained = `Once they have finished (delivered, or dead after their last retry; let their receiver answer), run`;
  if (afterRefusal === "replaced")
    return (
      `${pending} It is the old endpoint of a replacement, which the program no longer declares: it is left disabled (the service disabled it while refusing), ` +
      `so no new deliveries are queued to it and events reach its replacement alone (with deleteBeforeReplace, the replacement is created only once this delete passes). It stays in the state. ` +
      `${drained} \`pulumi up\` (or \`pulumi destroy\`) again: it retries the delete. ` +
      `drainTimeoutSeconds set in the program now does not reach this delete: it uses the value stored with the old endpoint (${drainSeconds} s).`
    );
  if (afterRefusal === "disabledBefore")
    return (
      `${pending} The service held it disabled before this delete while the state says enabled (as a refused delete of an earlier run leaves the old endpoint of a replacement), ` +
      `so it is left disabled: no new deliveries are queued to it. It stays in the state (a program that declares it again enables it after \`pulumi up --refresh\`). ` +
      `${drained} \`pulumi up\` (or \`pulumi destroy\`) again.`
    );
  if (afterRefusal instanceof Error)
    return (
      `${pending} The service disabled the endpoint while refusing, and enabling it again failed: ${afterRefusal.message} ` +
      `So the service holds it disabled while the state still says enabled (a failed delete cannot change the state). ` +
      `Run \`pulumi up --refresh\` (or \`pulumi refresh\`, then \`pulumi up\`): the refresh reads it as disabled, and an up that declares it enabled enables it again. ` +
      `To delete it, let its deliveries drain (set drainTimeoutSeconds), then run \`pulumi destroy\` (or \`pulumi up\`) again. The delete's refusal:`
    );
  if (afterRefusal === "enabled")
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

/** POST /enable after a refused delete disabled the endpoint: undefined when done, else why not (the message names it). */
async function enableAgain(ctx: ApplyContext): Promise<Error | undefined> {
  try {
    await ctx.client.request({ method: "POST", path: `${ctx.itemPath}/enable`, safeToRepeat: true });
    return undefined;
  } catch (err) {
    return err as Error;
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
