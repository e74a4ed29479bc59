/**
 * A disposable email address or HTTP request bin (spec document 3, "Inbox"), as data
 * for the generic engine plus what a table cannot say:
 *
 * - preview judges `label`, `expiresInMinutes`, `transport` and `status` with the
 *   shared rules (rules/inbox.ts), and the plan gates from `GET /v1/plan` and
 *   `GET /v1/usage` (read once per operation): `optional_phrase_gate` for `phrase`,
 *   the `inboxes` / `http_bins` allocation for a new inbox, counted per workspace
 *   (`GET /v1/audit` tells two keys of one workspace apart from two workspaces);
 * - an inbox past its `expiresAt` is gone: the diff says so and plans a replacement
 *   (refresh drops it anyway: an expired or released inbox reads as 404);
 * - the refusals explained with their fix.
 */
import { z } from "zod";
import { INBOX_STATUSES, INBOX_TRANSPORTS, PHRASE_FEATURE, inboxNeedsPhraseGate, inboxViolations, type InboxTransport } from "../../rules/inbox";
import type { SvcApiError } from "../client";
import { note } from "../engine/errors";
import { defineResource, type Fields, type InputsOf, type CheckFailure, type OperationContext } from "../engine/fields";
import { containsUnknown } from "../engine/unknown";
import { knownWorkspace, reachOf } from "../engine/reach";
import { readForCheck } from "../engine/remote-checks";
import type { InboxPlan, InboxUsage } from "./account";
import { RESOURCE_NAME_FIELD } from "../engine/fields";

/** The allocation each transport counts against (402 `quota_exceeded` metric). */
export const ALLOCATION_METRIC: Record<InboxTransport, "inboxes" | "http_bins"> = { email: "inboxes", http: "http_bins" };
const METRIC_NOUN: Record<string, string> = { inboxes: "email addresses", http_bins: "request bins" };

/** Plan and usage as preview knows them. */
export interface InboxAccount {
  plan: InboxPlan;
  usage: InboxUsage;
}

/** Plan and usage, read once per operation per connection; undefined when the key cannot read them. */
export async function planAndUsage(ctx: OperationContext): Promise<InboxAccount | undefined> {
  return readForCheck(ctx, "inboxes:plan+usage", async () => {
    const [plan, usage] = await Promise.all([
      ctx.client.request<InboxPlan>({ method: "GET", path: "/v1/plan" }),
      ctx.client.request<InboxUsage>({ method: "GET", path: "/v1/usage" }),
    ]);
    return { plan: plan.body, usage: usage.body };
  });
}

/**
 * The workspace the connection acts on, as the engine operation counts it: the one its
 * key reaches (engine/reach.ts: the audit log's oldest entry, the same for every key of
 * the workspace), once per operation per connection. An empty or unreadable log says
 * nothing: the connection counts alone.
 */
async function inboxWorkspace(ctx: OperationContext): Promise<string> {
  return knownWorkspace(await reachOf({ product: "inboxes" }, ctx)) ?? ctx.connectionId;
}

/** Where preview judges a plan gate from an inbox's inputs (and the old inputs, empty when new). */
async function planGates(inputs: InboxInputs, ctx: OperationContext, olds: InboxInputs): Promise<CheckFailure[]> {
  // A new inbox; an adopted one exists already and takes no allocation. A replacement's new
  // inbox is counted by the engine's second Check, which comes with no old inputs
  // (step_generator.go, "recompute the default values"): counting it here too counted it twice.
  const creating = olds.transport === undefined && !inputs.adoptId;
  const phraseSent = inputs.phrase !== undefined && !containsUnknown(inputs.phrase) && (creating || olds.phrase !== inputs.phrase);
  if (!creating && !phraseSent) return [];
  const known = await planAndUsage(ctx);
  if (!known) return [];
  const { plan, usage } = known;
  const failures: CheckFailure[] = [];
  if (phraseSent && inboxNeedsPhraseGate({ phrase: inputs.phrase }) && !plan.features[PHRASE_FEATURE]) {
    failures.push({ property: "phrase", reason: phraseMessage(plan.name) });
  }
  if (creating && !containsUnknown(inputs.transport)) {
    const metric = ALLOCATION_METRIC[(inputs.transport as InboxTransport) ?? "email"];
    // The new inboxes of the whole run add up, in the workspace whatever the profile (engine-operation.ts).
    const allocation = ctx.operation.planAllocation(await inboxWorkspace(ctx), metric, usage[metric], plan.limits[metric]);
    if (!allocation.taken) failures.push({ property: "transport", reason: allocationMessage(metric, plan.limits[metric], allocation.current) });
  }
  return failures;
}

function phraseMessage(planName: string | undefined): string {
  return `Setting phrase needs the plan feature ${PHRASE_FEATURE} (not_entitled), which the ${planName ?? "workspace's"} plan does not include. Remove phrase, or upgrade the plan (Pro has it).`;
}

function allocationMessage(metric: string, limit: unknown, current: unknown): string {
  return `The workspace's plan allows ${String(limit)} ${METRIC_NOUN[metric] ?? metric} and ${String(current)} are live or planned (quota_exceeded, reason allocation, metric ${metric}). Release inboxes you no longer need, or upgrade the plan; retrying never helps.`;
}

const inboxFields = {
  // Lengths, types and values are judged by the shared rules (rules/inbox.ts) below.
  label: { mode: "patch", api: "label", input: z.string(), description: "Free text, at most 200 characters (the preview fails above). Omit for none." },
  phrase: { mode: "patch", api: "phrase", input: z.boolean(), whenOmitted: "unmanaged", description: "Turn the phrase gate on or off. Needs the plan feature `optional_phrase_gate` (Pro): on a plan without it the preview fails. Omit to leave the service's default (off)." },
  // Never returned by the service: compared with the value the inbox was created with.
  expiresInMinutes: { mode: "createOnly", api: "expires_in_minutes", input: z.number().int(), writeOnly: true, description: "Minutes until the inbox expires (at least 1). Create only: changing it REPLACES the inbox. Omit for no expiry.", outputDescription: "The value the inbox was created with (the service returns `expiresAt`)." },
  transport: { mode: "createOnly", api: "transport", input: z.enum(INBOX_TRANSPORTS).meta({ title: "InboxTransport", description: "`email` gives an address; `http` a request bin with a slug and a URL." }), default: "email", description: "`email` (default) or `http`. Changing it REPLACES the inbox. Counts against the plan's addresses or bins." },
  status: { mode: "patch", api: "status", input: z.enum(INBOX_STATUSES).meta({ title: "InboxStatus", description: "`active` or `paused` (a paused inbox still receives)." }), whenOmitted: "unmanaged", onCreate: false, description: "`active` or `paused`. Omit to leave it to the service." },
  adoptId: { mode: "local", input: z.string().min(1), description: "Id of an existing inbox to take over instead of creating one (`expiresInMinutes` cannot be given with it)." },
  resourceName: RESOURCE_NAME_FIELD,
  profile: { mode: "createOnly", input: z.string().min(1), description: "Connection profile: omit for `svc:inboxesUrl` / `svc:inboxesApiKey` (or `SVC_INBOXES_URL` / `SVC_INBOXES_API_KEY`); a name picks `svc:profiles.<name>`. Changing it REPLACES the inbox." },
  address: { mode: "output", api: "address", type: z.string().nullable(), description: "Email transport: the address (`<slug>@...`); null for a request bin." },
  slug: { mode: "output", api: "slug", type: z.string().nullable(), description: "The bin's slug (also set on an email inbox by some services)." },
  url: { mode: "output", api: "url", type: z.string().nullable(), description: "Request bin: the URL that records every request; null for an email inbox." },
  expiresAt: { mode: "output", api: "expires_at", type: z.string().nullable(), description: "ISO 8601 UTC, or null when it never expires." },
  createdAt: { mode: "output", api: "created_at", type: z.string(), description: "ISO 8601 UTC." },
} satisfies Fields;
type InboxInputs = InputsOf<typeof inboxFields>;

export const inboxDefinition = defineResource({
  kind: "inboxes:Inbox",
  description: "An inbox. When it expires or is released it is gone: `pulumi refresh` drops it from the state, and the next `pulumi up` (whose preview says so) creates a new one, with a new address.",
  product: "inboxes",
  noun: "inbox",
  changeNote: "Outputs `address` or `slug` + `url`, `expiresAt`. An expired or released inbox reads as gone.",
  paths: { create: "/v1/inboxes", item: (id) => `/v1/inboxes/${encodeURIComponent(id)}` },
  adoptHint:
    "Look the inbox up (svc.inboxes.getInboxes() or GET /v1/inboxes) and, if it was created, set `adoptId: \"<its id>\"` on this resource: the next `pulumi up` adopts it instead of creating another.",
  ownerField: "label",
  fields: inboxFields,
  // Create rules for what create sends, update rules for `status` (only PATCH takes it).
  rules: ({ status, ...create }) => [...inboxViolations(create, { creating: true }), ...inboxViolations(status === undefined ? {} : { status }, { creating: false })],
  hooks: {
    checkRemote: (inputs, ctx, olds) => planGates(inputs, ctx, olds ?? {}),

    // An expired inbox reads as gone: the next up creates a new one, and the preview says so.
    adjustDiff(diff, olds) {
      const expiresAt = typeof olds.expiresAt === "string" ? Date.parse(olds.expiresAt) : NaN;
      if (Number.isNaN(expiresAt) || expiresAt > Date.now()) return diff;
      note(`The inbox ${String(olds.address ?? olds.url ?? "")} expired at ${String(olds.expiresAt)} and is gone: a new one is created (with a new address).`);
      return { ...diff, changed: [...new Set([...diff.changed, "expiresAt"])], replaces: [...new Set([...diff.replaces, "expiresAt"])], deleteBeforeReplace: false };
    },

    explainError(err: SvcApiError, _operation, inputs) {
      const d = err.details;
      if (err.code === "quota_exceeded" && err.reason === "allocation") return allocationMessage(String(d.metric), d.limit, d.current);
      if (err.code === "not_entitled" && d.feature === PHRASE_FEATURE) return phraseMessage(undefined);
      if (err.code === "not_found" && err.reason === "inbox" && inputs)
        return `The inbox ${String(d.id ?? "")} is gone (released, or expired). Run \`pulumi refresh\` to drop it from the state; the next \`pulumi up\` creates a new one.`;
      return undefined;
    },
  },
});
