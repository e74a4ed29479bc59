/**
 * A quota request (spec document 3, "Quota request"; shared/design/api-assumptions.md),
 * as data for the generic engine plus what a table cannot say:
 *
 * - the id travels in the query (`GET|DELETE ?id=`) and in the PATCH body;
 * - while `pending` or `needs_updates`, a change of `limits` / `justification` is ONE
 *   PATCH; once decided, a change replaces it with a new request (the preview says why);
 * - preview fails on an unknown quota name (shared rules), on a `projectId` other than
 *   the key's project, on a requested value not above the current limit
 *   (`GET /api/v1/quota/{service}`, once per operation), and on an open request for the
 *   same quota that is not this resource (naming it and how to adopt it), or for the
 *   same quota as another QuotaRequest of the same program (both new, so neither is
 *   open yet), so no duplicate request is ever filed. A project-wide quota (`vcpu`,
 *   `ram_gb`, ...) is the same quota whatever region a request names;
 * - `waitForDecision` waits after create/update until approved or rejected;
 * - delete withdraws an open request; a decided one is dropped from the state with a note.
 */
import { z } from "zod";
import { countedRegion, OPEN_QUOTA_REQUEST_STATES, QUOTA_SCOPES, QUOTA_SERVICES, quotaRequestViolations, type QuotaRequestRecord, type QuotaRequestState } from "../../rules/quota";
import { isApiError } from "../client";
import { note, PartialFailure } from "../engine/errors";
import { defineResource, type Fields, type InputsOf, type OutputsOf, type ApplyContext, type CheckFailure, type OperationContext, type Props } from "../engine/fields";
import { containsUnknown } from "../engine/unknown";
import { claimQuotas, currentLimits, otherProjectThanKey, projectAccount } from "./quota-limits";
import { unlessUnreachable } from "../engine/remote-checks";

const REQUEST_PATH = "/api/v1/quota-request/";
const DECIDED: QuotaRequestState[] = ["approved", "rejected"];
/** Poll backoff while waiting for a decision: first wait, growth, cap (ms). */
export const DECISION_POLL = { firstMs: 250, factor: 1.6, maxMs: 5_000 };

/** Where `names` are counted, for messages: `compute in us-east-1`, or `compute (project-wide)`. */
const where = (service: unknown, region: unknown, names: string[]) =>
  `${String(service)}${names.every((n) => QUOTA_SCOPES[n] === "project") ? " (project-wide)" : region ? ` in ${String(region)}` : ""}`;

/** The project a listing names: the given one, or the key's own (what the service lists without one). */
const listedScope = (ctx: OperationContext, projectId: unknown) => `${ctx.connectionId}\u0000${typeof projectId === "string" ? projectId : ""}`;

/**
 * Open requests of the project (never cached: a duplicate must be seen as soon as it
 * exists). What is open is recorded for the Diff that follows (engine-operation.ts `openObjects`).
 */
async function openRequests(ctx: OperationContext, projectId: unknown): Promise<QuotaRequestRecord[] | undefined> {
  try {
    const query = { states: OPEN_QUOTA_REQUEST_STATES.join(","), project_id: typeof projectId === "string" ? projectId : undefined };
    const items = (await ctx.client.request<{ items: QuotaRequestRecord[] }>({ method: "GET", path: `${REQUEST_PATH}list`, query })).body.items;
    ctx.operation.openObjects.listed(listedScope(ctx, projectId), items.map((r) => r.id));
    return items;
  } catch (err) {
    return unlessUnreachable(err);
  }
}

/** Did this operation's check of the resource (its checked inputs: `news`) list its project's open requests without it (decided or withdrawn since the state last saw it)? */
function decidedOnService(ctx: OperationContext | undefined, news: Props, id: string): boolean {
  return ctx?.operation.openObjects.isOpen(listedScope(ctx, news.projectId), id) === false;
}

/** Preview: each requested value above the current limit; no open request for the same quota but this one. */
async function checkAgainstService(inputs: QuotaRequestInputs, ctx: OperationContext, olds: QuotaRequestInputs): Promise<CheckFailure[]> {
  const { service, region, limits, projectId } = inputs;
  if ([service, region, limits, projectId].some(containsUnknown) || typeof service !== "string" || !(service in QUOTA_SERVICES)) return [];
  // Before the reads naming the project, which the service would refuse.
  const otherProject = await otherProjectThanKey(ctx, "quota request", inputs);
  if (otherProject.length > 0) return otherProject;
  const requested = (limits ?? {}) as Record<string, number>;
  const isNew = olds.service === undefined;
  const limitsChanged = isNew || JSON.stringify(olds.limits) !== JSON.stringify(limits);
  // An edit of a request decided since the last refresh is a new request: the listing tells its Diff.
  if (!limitsChanged && olds.justification !== inputs.justification) await openRequests(ctx, projectId);
  const failures: CheckFailure[] = [];
  if (limitsChanged) {
    const current = await currentLimits(ctx, service, region);
    for (const [name, value] of Object.entries(requested)) {
      const limit = current?.[name];
      if (typeof limit === "number" && typeof value === "number" && value <= limit)
        failures.push({ property: `limits.${name}`, reason: `Requested ${value} is not above the current limit of ${limit} for ${where(service, region, [name])}: a request can only raise a quota. Ask for more than ${limit}, or remove ${name}.` });
    }
  }
  // Accepted (requests filed when vcpu was counted per region did so), but meaningless: say so while it can still be dropped.
  const names = Object.keys(requested);
  if (isNew && typeof region === "string" && names.length > 0 && names.every((n) => QUOTA_SCOPES[n] === "project"))
    note(`${names.join(", ")} ${names.length > 1 ? "are" : "is"} project-wide (one figure for the project's running VMs in every region): the region "${region}" does not apply to ${names.length > 1 ? "them" : "it"}. Omit region.`);
  // A new request, or new limits (an edit, or a new request replacing a decided one), must
  // not duplicate an open request; this resource's own is the one adopted or the one
  // holding its old inputs.
  if (limitsChanged) {
    const adoptId = typeof inputs.adoptId === "string" ? inputs.adoptId : undefined;
    const own = (r: QuotaRequestRecord) =>
      r.id === adoptId || (!isNew && r.service === olds.service && JSON.stringify(r.limits) === JSON.stringify(olds.limits) && r.justification === olds.justification);
    const same = (r: QuotaRequestRecord) => Object.keys(r.limits).filter((n) => n in requested && countedRegion(n, r.region) === countedRegion(n, region));
    const clash = (await openRequests(ctx, projectId))?.find((r) => !own(r) && r.service === service && same(r).length > 0);
    // Resources of this program (engine-operation.ts): the SDK passes each one's name (absent from older state: not checked).
    const twin = typeof inputs.resourceName === "string" ? claimQuotas(ctx.operation, inputs.resourceName, ["infra:QuotaRequest", await projectAccount(ctx, service, region, projectId), service], region, names) : undefined;
    if (twin) {
      failures.push({
        property: "limits",
        reason: `QuotaRequest "${twin.by}" of this program also asks for ${twin.name} of ${where(service, region, [twin.name])}: both would be filed as open requests for the same quota. Put the quotas in one QuotaRequest (its limits take several names), or remove one of the two.`,
      });
    }
    if (clash) {
      const clashing = same(clash);
      failures.push({
        property: "limits",
        reason: `An open quota request ${clash.id} (${clash.state}) for ${clashing.join(", ")} of ${where(service, clash.region, clashing)} already exists in project ${clash.project_id}, so filing another would duplicate it. Set \`adoptId: "${clash.id}"\` on this resource to adopt it (its limits and justification are then edited with one PATCH), or withdraw it first.`,
      });
    }
  }
  return failures;
}

/** Wait (polling with backoff) until the request is approved or rejected, or `seconds` pass. */
async function waitForDecision(ctx: ApplyContext, outputs: QuotaRequestOutputs, news: QuotaRequestInputs, created: boolean): Promise<QuotaRequestOutputs> {
  const seconds = typeof news.waitForDecision === "number" ? news.waitForDecision : 0;
  const deadline = Date.now() + seconds * 1000;
  let current = outputs;
  let pause = DECISION_POLL.firstMs;
  const keep = (message: string): never => {
    throw new PartialFailure(message, ctx.id, current);
  };
  for (;;) {
    const state = current.state as QuotaRequestState;
    if (state === "approved") return current;
    if (state === "rejected")
      keep(`Quota request ${ctx.id} was rejected${current.adminMessage ? `: "${String(current.adminMessage)}"` : ""}. Change limits or justification to file a new request (the rejected one is replaced), or remove the resource.`);
    if (state === "needs_updates")
      keep(`Quota request ${ctx.id} needs updates${current.adminMessage ? `: "${String(current.adminMessage)}"` : ""}. Change limits or justification as asked and run \`pulumi up\` again (one PATCH returns it to pending).`);
    if (state === "withdrawn") keep(`Quota request ${ctx.id} was withdrawn outside Pulumi. Run \`pulumi refresh\`, then \`pulumi up\` to file a new one.`);
    if (seconds <= 0) return current;
    if (Date.now() >= deadline)
      keep(`Quota request ${ctx.id} was ${created ? "filed" : "updated"} but is still ${state} after waiting ${seconds} s for a decision. It stays in the state: the next \`pulumi up\` waits again, and no second request is filed.`);
    await new Promise((r) => setTimeout(r, Math.min(pause, Math.max(0, deadline - Date.now()))));
    pause = Math.min(DECISION_POLL.maxMs, pause * DECISION_POLL.factor);
    const remote = (await ctx.client.request<Props>({ method: "GET", path: ctx.itemPath })).body ?? {};
    current = { ...current, state: remote.state, adminMessage: remote.admin_message ?? null, decidedAt: remote.decided_at ?? null, updatedAt: remote.updated_at ?? null, limits: remote.limits ?? current.limits };
  }
}

const quotaRequestFields = {
  service: { mode: "createOnly", api: "service", input: z.string().min(1), required: true, description: "`compute`, `block-storage`, `network`, `dns` or `iam`. Changing it REPLACES the request." },
  // The key's project when omitted (a key acts on its own project only).
  projectId: { mode: "createOnly", api: "project_id", input: z.string().min(1), whenOmitted: "unmanaged", description: "Omit for the key's project (a key acts on its own project only). Changing it REPLACES the request." },
  region: { mode: "createOnly", api: "region", input: z.string().min(1), description: "Required when a named quota is per region (e.g. `vms`). It does not apply to the project-wide quotas (`vcpu`, `ram_gb`: one figure across the running VMs of every region; `block_storage_gb`, `dns_zones`, `users`): omit it for a request naming only those (a new one naming a region anyway gets a warning; `dns` and `iam` refuse one). Changing it REPLACES the request." },
  limits: { mode: "patch", api: "limits", input: z.record(z.string(), z.number().int()), required: true, description: "Quota name → requested value, each above the current limit (the preview fails otherwise, and on a name the service does not have). While the request is open a change is one PATCH; once decided, a change files a new request (replace)." },
  justification: { mode: "patch", api: "justification", input: z.string(), required: true, description: "Why, 1 to 2000 characters. Edited like `limits`." },
  waitForDecision: { mode: "local", input: z.number().int().min(0).max(86_400), default: 0, description: "Seconds `pulumi up` waits (polling with backoff) for an admin's decision. Approved: done. Rejected: the update fails with the admin's message. Still open at the end: the update fails but the request stays in the state, and the next up waits again (no second request is filed). Default 0: do not wait." },
  adoptId: { mode: "local", input: z.string().min(1), description: "Id of an existing open request to take over instead of filing another (the preview names it when one exists)." },
  resourceName: { mode: "local", input: z.string().min(1), checkOnly: true, description: "The resource's name in the program, set by the SDK: tells two requests of one program apart at preview." },
  profile: { mode: "createOnly", input: z.string().min(1), description: "Connection profile: omit for `svc:infraUrl` / `svc:infraApiKey` (or `SVC_INFRA_URL` / `SVC_INFRA_API_KEY`). Changing it REPLACES the request." },
  state: { mode: "output", api: "state", type: z.enum(["pending", "needs_updates", "approved", "rejected", "withdrawn"]).describe("`pending`, `needs_updates` (an admin asked for changes), `approved` (limits applied), `rejected`, `withdrawn`."), description: "Where the request is: see `QuotaRequestState`." },
  adminMessage: { mode: "output", api: "admin_message", type: z.string().nullable(), description: "The admin's message (asking for updates, explaining a rejection or an approval), or null." },
  decidedAt: { mode: "output", api: "decided_at", type: z.string().nullable(), description: "ISO 8601 UTC of the approval, rejection or withdrawal; null while open." },
  requestedBy: { mode: "output", api: "requested_by", type: z.string(), description: "Who filed it: a stable, non-secret id of the key." },
  createdAt: { mode: "output", api: "created_at", type: z.string(), description: "ISO 8601 UTC." },
  updatedAt: { mode: "output", api: "updated_at", type: z.string(), description: "ISO 8601 UTC." },
} satisfies Fields;
type QuotaRequestInputs = InputsOf<typeof quotaRequestFields>;
type QuotaRequestOutputs = OutputsOf<typeof quotaRequestFields>;

export const quotaRequestDefinition = defineResource({
  kind: "infra:QuotaRequest",
  description: "A quota request. `pulumi destroy` withdraws an open request; a decided one cannot be withdrawn and is dropped from the state with a warning (approved limits stay). The preview fails when another open request asks for one of the same quotas: one already filed (it names its id, to adopt), or another QuotaRequest of the program.",
  product: "infra",
  noun: "quota request",
  changeNote: "Once decided, a change files a new request instead (replace; the preview says why). The preview fails on a second open request for the same quota, already filed or declared twice in the program. Delete withdraws an open request.",
  paths: { create: REQUEST_PATH, item: (id) => `${REQUEST_PATH}?id=${encodeURIComponent(id)}`, idInBody: "id" },
  adoptHint:
    "List the open requests (GET /api/v1/quota-request/list?states=pending,needs_updates) and, if it was filed, set `adoptId: \"<its id>\"` on this resource: the next `pulumi up` adopts it instead of filing another.",
  fields: quotaRequestFields,
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
    adjustDiff(diff, olds, news, id, ctx) {
      const edits = diff.changed.filter((f) => f === "limits" || f === "justification");
      // A rejection seen by refresh fails the next up (through afterApply) with the admin's message.
      if (olds.state === "rejected" && edits.length === 0) {
        note(`Quota request ${id} was rejected${olds.adminMessage ? `: "${String(olds.adminMessage)}"` : ""}. Change limits or justification to file a new request, or remove the resource.`);
        return { ...diff, changed: [...new Set([...diff.changed, "state"])] };
      }
      if (edits.length === 0) return diff;
      // Decided as the state says, or since (this operation's check listed the project's open requests without it).
      const decidedSince = !DECIDED.includes(olds.state as QuotaRequestState) && decidedOnService(ctx, news, id);
      if (!DECIDED.includes(olds.state as QuotaRequestState) && !decidedSince) return diff;
      note(`Quota request ${id} is ${decidedSince ? "no longer open on the service (decided since the last refresh)" : String(olds.state)} and can no longer be edited: changing ${edits.join(" and ")} files a new request, which replaces it.`);
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
});
