/**
 * Infrastructure quotas and quota requests (spec document 3, "Infrastructure
 * quotas"; shared/design/api-assumptions.md). Shared by the emulator and the
 * provider's `check`.
 */
import { didYouMean } from "./names";
import { controlCharacterViolation } from "./text";
import type { RuleViolation } from "./types";

/**
 * A table looked up by names from requests: no prototype, so `constructor` or
 * `__proto__` is an unknown name (a 422), never an inherited member.
 */
const table = <T>(entries: Record<string, T>): Record<string, T> => Object.freeze(Object.assign(Object.create(null) as Record<string, T>, entries));

/** Service -> quota name -> default limit per project (spec document 3, Limits). */
export const QUOTA_SERVICES: Record<string, Record<string, number>> = table({
  compute: table({ vms: 50, vcpu: 200, ram_gb: 800 }),
  "block-storage": table({ block_storage_gb: 5000, snapshots: 200, backups: 500 }),
  network: table({ floating_ips: 20, networks: 10, security_groups: 50, load_balancers: 10 }),
  dns: table({ dns_zones: 50 }),
  iam: table({ users: 25 }),
  /** Unlimited, soft only: no quota names. */
  "object-storage": table({}),
});

export type QuotaScope = "region" | "project";

/**
 * The region a quota read or change applies to when the request names none
 * (our decision; the spec names no regions).
 */
export const DEFAULT_REGION = "us-east-1";

/**
 * Where each quota is counted. The spec's table (document 3, "Infrastructure quotas")
 * says "per region" for VMs, snapshots, backups, floating IPs, networks, security
 * groups and load balancers, and "project-wide" for DNS zones and users; for vCPU and
 * RAM it gives one figure "across running VMs", with no region, and for block storage
 * "sum of all volumes": one figure per project each, whatever the region.
 */
export const QUOTA_SCOPES: Record<string, QuotaScope> = table({
  vms: "region",
  vcpu: "project",
  ram_gb: "project",
  block_storage_gb: "project",
  snapshots: "region",
  backups: "region",
  floating_ips: "region",
  networks: "region",
  security_groups: "region",
  load_balancers: "region",
  dns_zones: "project",
  users: "project",
});

/** Does `service` have a per-region quota (then its quota reads and writes name a region)? */
export function hasRegionalQuota(service: string): boolean {
  return Object.keys(QUOTA_SERVICES[service] ?? {}).some((name) => QUOTA_SCOPES[name] === "region");
}

/** The region a named quota is counted in: `region` (the default region when none is named) for a per-region quota, none (null) for a project-wide one. */
export const countedRegion = (name: string, region: unknown): unknown => (QUOTA_SCOPES[name] === "region" ? (typeof region === "string" && region !== "" ? region : DEFAULT_REGION) : null);

/** The `scope` field of a quota entry: `region: <region>` or `project`. */
export function quotaScopeLabel(name: string, region: string): string {
  return QUOTA_SCOPES[name] === "region" ? `region: ${region}` : "project";
}

export const QUOTA_REQUEST_STATES = ["pending", "needs_updates", "approved", "rejected", "withdrawn"] as const;
export type QuotaRequestState = (typeof QUOTA_REQUEST_STATES)[number];
/** States in which the requester may still edit or withdraw. */
export const OPEN_QUOTA_REQUEST_STATES: QuotaRequestState[] = ["pending", "needs_updates"];

/** A quota request as the API answers it (shared/design/api-assumptions.md): the emulator's record and what the provider reads. */
export interface QuotaRequestRecord {
  id: string;
  project_id: string;
  service: string;
  region: string | null;
  limits: Record<string, number>;
  justification: string;
  state: QuotaRequestState;
  admin_message: string | null;
  requested_by: string;
  created_at: string;
  updated_at: string;
  decided_at: string | null;
}

export const QUOTA_REQUEST_LIMITS = { justificationMaxLength: 2000 } as const;

/** The largest quota value a limit or request may name (our decision: far above any real quota, so a typo like 1e15 never reaches the service). */
export const QUOTA_VALUE_MAX = 1_000_000_000;

/**
 * The quota-request state machine. `edit` is PATCH (back to `pending`),
 * `withdraw` is DELETE, the others are the admin-only POSTs.
 * Our decisions: only a `pending` request can be approved or flagged; a request
 * waiting for updates can still be rejected.
 */
export type QuotaRequestAction = "edit" | "withdraw" | "approve" | "reject" | "update";
export const QUOTA_REQUEST_TRANSITIONS: Record<QuotaRequestAction, { from: QuotaRequestState[]; to: QuotaRequestState }> = {
  edit: { from: ["pending", "needs_updates"], to: "pending" },
  withdraw: { from: ["pending", "needs_updates"], to: "withdrawn" },
  approve: { from: ["pending"], to: "approved" },
  reject: { from: ["pending", "needs_updates"], to: "rejected" },
  update: { from: ["pending"], to: "needs_updates" },
};

/**
 * The state after `action`, or the 409 reason when refused:
 * `quota_request_decided` once approved, rejected or withdrawn;
 * `quota_request_not_pending` for approve/update of a request waiting for updates.
 */
export function quotaRequestTransition(state: QuotaRequestState, action: QuotaRequestAction): { to: QuotaRequestState } | { conflict: string } {
  const t = QUOTA_REQUEST_TRANSITIONS[action];
  if (t.from.includes(state)) return { to: t.to };
  return { conflict: OPEN_QUOTA_REQUEST_STATES.includes(state) ? "quota_request_not_pending" : "quota_request_decided" };
}

/**
 * Violations of a `limits` object for `service` (PATCH /api/v1/quota/{service},
 * quota-request create and edit): at least one entry, known names only,
 * positive integers.
 */
export function quotaLimitsViolations(service: string, limits: unknown, path: (string | number)[] = ["limits"]): RuleViolation[] {
  if (limits === undefined) return [{ path, type: "missing", msg: "Field required" }];
  if (limits === null || typeof limits !== "object" || Array.isArray(limits)) return [{ path, type: "dict_type", msg: "Input should be a valid dictionary" }];
  const entries = Object.entries(limits as Record<string, unknown>);
  if (entries.length === 0) return [{ path, type: "too_short", msg: "Name at least one quota", params: { count: 1 } }];
  const known = QUOTA_SERVICES[service];
  const out: RuleViolation[] = [];
  for (const [name, value] of entries) {
    if (known && !(name in known)) out.push({ path: [...path, name], type: "extra_forbidden", msg: `Unknown quota '${name}' for service ${service}${didYouMean(name, Object.keys(known))}` });
    else if (typeof value !== "number" || !Number.isInteger(value)) out.push({ path: [...path, name], type: "int_type", msg: "Input should be a valid integer" });
    else if (value <= 0) out.push({ path: [...path, name], type: "greater_than", msg: "Input should be greater than 0", params: { limit: 0 } });
    else if (value > QUOTA_VALUE_MAX) out.push({ path: [...path, name], type: "less_than_equal", msg: `Input should be less than or equal to ${QUOTA_VALUE_MAX}`, params: { limit: QUOTA_VALUE_MAX } });
  }
  return out;
}

/** Is `service` a known quota service? */
export function serviceViolations(service: unknown, path: (string | number)[] = ["service"]): RuleViolation[] {
  if (service === undefined) return [{ path, type: "missing", msg: "Field required" }];
  if (typeof service !== "string" || !(service in QUOTA_SERVICES)) return [{ path, type: "enum", msg: `Input should be one of ${Object.keys(QUOTA_SERVICES).join(", ")}` }];
  return [];
}

/**
 * Violations of a quota-request create body (`project_id` optional: the caller's
 * project; `service`; `region`; `limits`; `justification`). Also used on the
 * merged request of an edit. `region` is required (a non-empty string) when any
 * named quota is per region, and must be null or absent for a service with no
 * per-region quota (`dns`, `iam`). Otherwise (project-wide quotas of `compute` or
 * `block-storage`) it may be given and does not apply to them: a request for `vcpu`
 * filed with a region, as when vcpu was counted per region, stays valid.
 */
export function quotaRequestViolations(body: Record<string, unknown>): RuleViolation[] {
  const out: RuleViolation[] = [];
  for (const name of Object.keys(body)) {
    if (!["project_id", "service", "region", "limits", "justification"].includes(name)) out.push({ path: [name], type: "extra_forbidden", msg: "Extra inputs are not permitted" });
  }
  if (body.project_id !== undefined && body.project_id !== null && typeof body.project_id !== "string") {
    out.push({ path: ["project_id"], type: "string_type", msg: "Input should be a valid string" });
  }
  const serviceErrors = serviceViolations(body.service);
  out.push(...serviceErrors);
  if (serviceErrors.length === 0) {
    const service = body.service as string;
    const limitErrors = quotaLimitsViolations(service, body.limits);
    out.push(...limitErrors);
    if (limitErrors.length === 0) {
      const regional = Object.keys(body.limits as object).some((n) => QUOTA_SCOPES[n] === "region");
      const region = body.region;
      const given = region !== undefined && region !== null;
      if (given && !hasRegionalQuota(service)) out.push({ path: ["region"], type: "none_required", msg: `The quotas of ${service} are project-wide: they take no region (null)` });
      else if (given && (typeof region !== "string" || region === "")) out.push({ path: ["region"], type: "string_type", msg: "Input should be a non-empty string" });
      else if (regional && !given) out.push({ path: ["region"], type: "missing", msg: "A per-region quota needs a region" });
    }
  }
  const j = body.justification;
  const jControl = controlCharacterViolation(j, ["justification"], { multiLine: true });
  if (j === undefined || j === null) out.push({ path: ["justification"], type: "missing", msg: "Field required" });
  else if (typeof j !== "string") out.push({ path: ["justification"], type: "string_type", msg: "Input should be a valid string" });
  else if (jControl) out.push(jControl);
  else if (j.trim().length === 0) out.push({ path: ["justification"], type: "string_too_short", msg: "String should have at least 1 character", params: { count: 1 } });
  else if ([...j].length > QUOTA_REQUEST_LIMITS.justificationMaxLength) {
    out.push({ path: ["justification"], type: "string_too_long", msg: `String should have at most ${QUOTA_REQUEST_LIMITS.justificationMaxLength} characters`, params: { count: QUOTA_REQUEST_LIMITS.justificationMaxLength } });
  }
  return out;
}
