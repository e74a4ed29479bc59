/**
 * A quota request (spec document 3, "Quota request"; shared/design/api-assumptions.md),
 * as data for the generic engine plus what a table cannot say:
 *
 * - the id travels in the query (`GET|DELETE ?id=`) and in the PATCH body;
 * - while `pending` or `needs_updates`, a change of `limits` / `justification` is ONE
 *   PATCH; once decided, a change replaces it with a new request (the preview says why);
 * - preview fails on an unknown quota name (shared rules), on a requested value not
 *   above the current limit (`GET /api/v1/quota/{service}`, once per process), and on
 *   an open request for the same quota that is not this resource (naming it and how to
 *   adopt it), or for the same quota as another QuotaRequest of the same program
 *   (both new, so neither is open yet), so no duplicate request is ever filed;
 * - `waitForDecision` waits after create/update until approved or rejected;
 * - delete withdraws an open request; a decided one is dropped from the state with a note.
 */
import { z } from "zod";
import { OPEN_QUOTA_REQUEST_STATES, QUOTA_SERVICES, quotaRequestViolations, type QuotaRequestRecord, type QuotaRequestState } from "../../rules/quota";
import { isApiError } from "../client";
import { note, PartialFailure } from "../engine/errors";
import type { ApplyContext, CheckFailure, OperationContext, Props, ResourceDefinition } from "../engine/fields";
import { containsUnknown } from "../engine/unknown";
import { currentLimits } from "./quota-limits";
import { unlessUnreachable } from "../engine/remote-checks";
import { interruptedCreatePending } from "../engine/reconcile";
import { askForQuotas } from "../engine/stack-run";
import { createBody } from "../engine/values";

const REQUEST_PATH = "/api/v1/quota-request/";
const DECIDED: QuotaRequestState[] = ["approved", "rejected"];
/** Poll backoff while waiting for a decision: first wait, growth, cap (ms). */
export const DECISION_POLL = { firstMs: 250, factor: 1.6, maxMs: 5_000 };

const where = (service: unknown, region: unknown) => `${String(service)}${region ? ` in ${String(region)}` : ""}`;

/** Open requests of the project (never cached: a duplicate must be seen as soon as it exists). */
async function openRequests(ctx: OperationContext, projectId: unknown): Promise<QuotaRequestRecord[] | undefined> {
  try {
    const query = { states: OPEN_QUOTA_REQUEST_STATES.join(","), project_id: typeof projectId === "string" ? projectId : undefined };
    return (await ctx.client.request<{ items: QuotaRequestRecord[] }>({ method: "GET", path: `${REQUEST_PATH}list`, query })).body.items;
  } catch (err) {
    return unlessUnreachable(err);
  }
}

/** Preview: each requested value above the current limit; no open request for the same quota but this one. */
async function checkAgainstService(inputs: Props, ctx: OperationContext, olds: Props): Promise<CheckFailure[]> {
  const { service, region, limits, projectId } = inputs;
  if ([service, region, limits, projectId].some(containsUnknown) || typeof service !== "string" || !(service in QUOTA_SERVICES)) return [];
  const requested = (limits ?? {}) as Record<string, number>;
  const isNew = olds.service === undefined;
  const limitsChanged = isNew || JSON.stringify(olds.limits) !== JSON.stringify(limits);
  const failures: CheckFailure[] = [];
  if (limitsChanged) {
    const current = await currentLimits(ctx, service, region);
    for (const [name, value] of Object.entries(requested)) {
      const limit = current?.[name];
      if (typeof limit === "number" && typeof value === "number" && value <= limit)
        failures.push({ property: `limits.${name}`, reason: `Requested ${value} is not above the current limit of ${limit} for ${where(service, region)}: a request can only raise a quota. Ask for more than ${limit}, or remove ${name}.` });
    }
  }
  // A new request, or new limits (an edit, or a new request replacing a decided one), must
  // not duplicate an open request; this resource's own is the one adopted or the one
  // holding its old inputs.
  if (limitsChanged) {
    const adoptId = typeof inputs.adoptId === "string" ? inputs.adoptId : undefined;
    const own = (r: QuotaRequestRecord) =>
      r.id === adoptId || (!isNew && r.service === olds.service && JSON.stringify(r.limits) === JSON.stringify(olds.limits) && r.justification === olds.justification);
    // An earlier run killed while filing this very request: the create adopts what it filed.
    const resumes = isNew && interruptedCreatePending(quotaRequestDefinition, ctx.client, createBody(quotaRequestDefinition, inputs));
    const clash = resumes ? undefined : (await openRequests(ctx, projectId))?.find(
      (r) => !own(r) && r.service === service && (r.region ?? null) === (region ?? null) && Object.keys(r.limits).some((n) => n in requested),
    );
    // Resources of this program (stack-run.ts): the SDK passes each one's name (absent from older state: not checked).
    const twin = typeof inputs.resourceName === "string" ? askForQuotas(ctx.client, inputs.resourceName, [projectId ?? null, service, region ?? null], Object.keys(requested)) : undefined;
    if (twin) {
      failures.push({
        property: "limits",
        reason: `QuotaRequest "${twin.by}" of this program also asks for ${twin.name} of ${where(service, region)}: both would be filed as open requests for the same quota. Put the quotas in one QuotaRequest (its limits take several names), or remove one of the two.`,
      });
    }
    if (clash) {
      const names = Object.keys(clash.limits).filter((n) => n in requested).join(", ");
      failures.push({
        property: "limits",
        reason: `An open quota request ${clash.id} (${clash.state}) for ${names} of ${where(service, region)} already exists in project ${clash.project_id}, so filing another would duplicate it. Set \`adoptId: "${clash.id}"\` on this resource to adopt it (its limits and justification are then edited with one PATCH), or withdraw it first.`,
      });
    }
  }
  return failures;
}

/** Wait (polling with backoff) until the request is approved or rejected, or `seconds` pass. */
async function waitForDecision(ctx: ApplyContext, outputs: Props, news: Props, created: boolean): Promise<Props> {
  const seconds = typeof news.waitForDecision === "number" ? news.waitForDecision : 0;
  const deadline = Date.now() + seconds * 1000;
  let current = outputs;
  let pause = DECISION_POLL.firstMs;
  const keep = (message: string, reason: string): never => {
    throw new PartialFailure(message, ctx.id, current, [reason]);
  };
  for (;;) {
    const state = current.state as QuotaRequestState;
    if (state === "approved") return current;
    if (state === "rejected")
      keep(`Quota request ${ctx.id} was rejected${current.adminMessage ? `: "${String(current.adminMessage)}"` : ""}. Change limits or justification to file a new request (the rejected one is replaced), or remove the resource.`, "rejected");
    if (state === "needs_updates")
      keep(`Quota request ${ctx.id} needs updates${current.adminMessage ? `: "${String(current.adminMessage)}"` : ""}. Change limits or justification as asked and run \`pulumi up\` again (one PATCH returns it to pending).`, "needs_updates");
    if (state === "withdrawn") keep(`Quota request ${ctx.id} was withdrawn outside Pulumi. Run \`pulumi refresh\`, then \`pulumi up\` to file a new one.`, "withdrawn");
    if (seconds <= 0) return current;
    if (Date.now() >= deadline)
      keep(`Quota request ${ctx.id} was ${created ? "filed" : "updated"} but is still ${state} after waiting ${seconds} s for a decision. It stays in the state: the next \`pulumi up\` waits again, and no second request is filed.`, "timeout");
    await new Promise((r) => setTimeout(r, Math.min(pause, Math.max(0, deadline - Date.now()))));
    pause = Math.min(DECISION_POLL.maxMs, pause * DECISION_POLL.factor);
    const remote = (await ctx.client.request<Props>({ method: "GET", path: ctx.itemPath })).body ?? {};
    current = { ...current, state: remote.state, adminMessage: remote.admin_message ?? null, decidedAt: remote.decided_at ?? null, updatedAt: remote.updated_at ?? null, limits: remote.limits ?? current.limits };
  }
}

export const quotaRequestDefinition: ResourceDefinition = {
  kind: "infra:QuotaRequest",
  product: "infra",
  noun: "quota request",
  paths: { create: REQUEST_PATH, item: (id) => `${REQUEST_PATH}?id=${encodeURIComponent(id)}`, idInBody: "id" },
  adoptHint:
    "List the open requests (GET /api/v1/quota-request/list?states=pending,needs_updates) and, if it was filed, set `adoptId: \"<its id>\"` on this resource: the next `pulumi up` adopts it instead of filing another.",
  fields: {
    service: { mode: "createOnly", api: "service", input: z.string().min(1) },
    // The key's project when omitted (a key acts on its own project only).
    projectId: { mode: "createOnly", api: "project_id", input: z.string().min(1), whenOmitted: "unmanaged" },
    region: { mode: "createOnly", api: "region", input: z.string().min(1) },
    limits: { mode: "patch", api: "limits", input: z.record(z.string(), z.number()) },
    justification: { mode: "patch", api: "justification", input: z.string() },
    waitForDecision: { mode: "local", input: z.number().int().min(0).max(86_400), default: 0 },
    adoptId: { mode: "local", input: z.string().min(1) },
    // The resource's name in the program, set by the SDK: tells two requests of one program apart at preview.
    resourceName: { mode: "local", input: z.string().min(1), checkOnly: true },
    profile: { mode: "createOnly", input: z.string().min(1) },
    state: { mode: "output", api: "state" },
    adminMessage: { mode: "output", api: "admin_message" },
    decidedAt: { mode: "output", api: "decided_at" },
    requestedBy: { mode: "output", api: "requested_by" },
    createdAt: { mode: "output", api: "created_at" },
    updatedAt: { mode: "output", api: "updated_at" },
  },
  // Service, known quota names, positive integers, region when per region, justification.
  rules: (body) => quotaRequestViolations(body),
  // A create whose answer was lost is looked for in the cursor list (every state: a
  // request may be decided at once), as every other kind's is: adopted when found,
  // filed again only once the reconcile window has passed, the candidates named when
  // there are several.
  reconcile: { list: (body) => ({ path: `${REQUEST_PATH}list`, query: { project_id: typeof body.project_id === "string" ? body.project_id : undefined }, cursor: true }) },
  hooks: {
    checkRemote: (inputs, ctx, olds) => checkAgainstService(inputs, ctx, olds ?? {}),

    // A decided request cannot be edited: a change files a new one instead of failing.
    adjustDiff(diff, olds, _news, id) {
      const edits = diff.changed.filter((f) => f === "limits" || f === "justification");
      // A rejection seen by refresh fails the next up (through afterApply) with the admin's message.
      if (olds.state === "rejected" && edits.length === 0) {
        note(`Quota request ${id} was rejected${olds.adminMessage ? `: "${String(olds.adminMessage)}"` : ""}. Change limits or justification to file a new request, or remove the resource.`);
        return { ...diff, changed: [...new Set([...diff.changed, "state"])] };
      }
      if (!DECIDED.includes(olds.state as QuotaRequestState) || edits.length === 0) return diff;
      note(`Quota request ${id} is ${String(olds.state)} and can no longer be edited: changing ${edits.join(" and ")} files a new request, which replaces it.`);
      return { ...diff, replaces: [...new Set([...diff.replaces, ...edits])], deleteBeforeReplace: false };
    },

    // A withdrawn request is gone for good: refresh drops it, and the next up files a new one.
    goneWhen: (remote) => remote.state === "withdrawn",

    afterApply: (ctx, { created, news, outputs }) => waitForDecision(ctx, outputs, news, created),

    explainError(err, operation) {
      const d = err.details;
      if (err.code === "conflict" && err.reason === "quota_request_decided")
        return `Quota request ${String(d.id ?? "")} was ${String(d.state ?? "decided")} since the state last saw it, so it can no longer be ${operation === "delete" ? "withdrawn" : "edited"}. Run \`pulumi refresh\`; the next \`pulumi up\` files a new request in its place.`;
      if (err.code === "forbidden" && err.reason === "owner")
        return `Quota request ${String(d.id ?? "")} was filed with another key: only its author or an admin (iam:write) may change it. Use the author's key (a profile), or an admin key.`;
      if (err.code === "not_found" && err.reason === "quota_request" && operation !== "read")
        return `Quota request ${String(d.id ?? "")} is not visible to the key in use (another project's, or a wrong id). Check adoptId and the profile.`;
      return undefined;
    },

    async onDeleteRefused(err, ctx, props) {
      if (!(isApiError(err) && err.reason === "quota_request_decided")) throw err;
      note(`Quota request ${ctx.id} is ${String(err.details.state ?? props.state ?? "decided")} and cannot be withdrawn; it is dropped from the state${err.details.state === "approved" ? " (the limits it raised stay)" : ""}.`);
      return "gone";
    },
  },
};
