/**
 * Read-only infrastructure functions: quotas, usage, and VMs through the cursor
 * walk of the client. They run in the program process and return plain data.
 */
import { programContext } from "../program";

interface Connection {
  /** Connection profile: omit for `svc:infraUrl` / `svc:infraApiKey` (or `SVC_INFRA_URL` / `SVC_INFRA_API_KEY`). */
  profile?: string;
}

export interface QuotaScopeArgs extends Connection {
  /** Region of per-region quotas; omit for the default region. */
  region?: string;
}

/** `GET /api/v1/quota/{service}`: the limits of a service in the key's project. */
export interface QuotaInfo {
  service: string;
  projectId: string;
  /** Null for a service with only project-wide quotas. */
  region: string | null;
  limits: Record<string, number>;
}

export interface QuotaUsageInfo {
  service: string;
  projectId: string;
  region: string | null;
  usage: Record<string, number>;
}

/** One entry of `GET /v1/quotas`. */
export interface QuotaEntry {
  service: string;
  name: string;
  /** `region: <region>` or `project`. */
  scope: string;
  region: string | null;
  limit: number;
  usage: number;
}

export interface VmInfo {
  id: string;
  projectId: string;
  name: string;
  region: string;
  state: string;
  vcpu: number;
  ramGb: number;
  ipv4: string | null;
  createdAt: string;
  updatedAt: string;
}

export interface GetVmsArgs extends Connection {
  region?: string;
  /** e.g. `running`, `stopped`, `terminated`. */
  state?: string;
  /** RFC 3339 bounds. */
  createdAfter?: string;
  createdBefore?: string;
  updatedAfter?: string;
  updatedBefore?: string;
  /** `created_at`, `-created_at` (default), `updated_at`, `-updated_at`, `name`, `-name`. */
  sort?: string;
  /** Page size, 1 to 200 (default 200): only changes how many calls the walk makes. */
  pageSize?: number;
}

const client = async (args: Connection) => (await programContext("infra", args.profile)).client;
const quotaPath = (service: string) => `/api/v1/quota/${encodeURIComponent(service)}`;

function scoped<T extends Record<string, unknown>>(body: T, member: "limits" | "usage") {
  return { service: body.service, projectId: body.project_id, region: body.region ?? null, [member]: body[member] };
}

/** The current limits of `service` (or the defaults with `defaults: true`). */
export async function getQuota(service: string, args: QuotaScopeArgs & { defaults?: boolean } = {}): Promise<QuotaInfo> {
  const res = await (await client(args)).request<Record<string, unknown>>({ method: "GET", path: quotaPath(service), query: { region: args.region, defaults: args.defaults ? "true" : undefined } });
  return scoped(res.body, "limits") as unknown as QuotaInfo;
}

/** The current consumption of `service`'s quotas. */
export async function getQuotaUsage(service: string, args: QuotaScopeArgs = {}): Promise<QuotaUsageInfo> {
  const res = await (await client(args)).request<Record<string, unknown>>({ method: "GET", path: `${quotaPath(service)}/usage`, query: { region: args.region } });
  return scoped(res.body, "usage") as unknown as QuotaUsageInfo;
}

/** Every quota of the project: one entry per project-wide quota, one per region for the others. */
export async function getQuotas(args: Connection = {}): Promise<QuotaEntry[]> {
  return (await (await client(args)).request<{ items: QuotaEntry[] }>({ method: "GET", path: "/v1/quotas" })).body.items;
}

/**
 * Every VM matching the filters (combined with AND), in `sort` order: the client
 * follows `next_cursor` until it is null, never parsing or building a cursor; each
 * call starts a new walk, so other filters never meet an old cursor.
 */
export async function getVms(args: GetVmsArgs = {}): Promise<VmInfo[]> {
  const query = {
    region: args.region,
    state: args.state,
    created_after: args.createdAfter,
    created_before: args.createdBefore,
    updated_after: args.updatedAfter,
    updated_before: args.updatedBefore,
    sort: args.sort,
  };
  const items = await (await client(args)).listAllByCursor<Record<string, unknown>>("/v1/vms", query, args.pageSize ?? 200);
  return items.map((v) => ({
    id: v.id, projectId: v.project_id, name: v.name, region: v.region, state: v.state, vcpu: v.vcpu, ramGb: v.ram_gb, ipv4: v.ipv4 ?? null, createdAt: v.created_at, updatedAt: v.updated_at,
  }) as VmInfo);
}
