/**
 * What every product module is given: the store, the plan table, the clock, and
 * the defaults created at start. One instance per running emulator.
 */
import { newAppKey, newId, newInfraKey, Store, type CoreState, type KeyRecord, type Product, type Workspace } from "./store";
import { plansWith, type DeepPartial, type PlanLimits, type PlanName, type PlanTable } from "./plans";
import { dict } from "./dict";

export interface EmulatorOptions {
  /** Port on 127.0.0.1; 0 (default) picks a free one. */
  port?: number;
  /** Persist state across restarts (write-behind, atomic renames, flushed on close). Default: in memory. */
  stateFile?: string;
  /** With `stateFile`: how long a change waits before the file is rewritten (default 200 ms). */
  stateWriteDelayMs?: number;
  /** Override plan ceilings. */
  plans?: DeepPartial<PlanTable>;
  /** Let test/verify/deliveries really call HTTPS receivers on loopback. */
  allowLoopbackTargets?: boolean;
  /** Maximum request body in bytes (413 `payload_too_large` above). */
  bodyLimit?: number;
  /** Plan of the default workspace. */
  defaultPlan?: PlanName;
  /**
   * Public base of the request-bin URLs the Inboxes API reports, e.g.
   * `https://bins.svc.test` gives `https://bins.svc.test/bin/<slug>` (the real service
   * reports public https URLs, which a Webhooks endpoint accepts). Requests still reach
   * the emulator at `<url>/inboxes/bin/<slug>`. Default: that local http address.
   */
  binPublicUrl?: string;
  /** Entries the request log keeps (a ring: the oldest go first). Default 50,000. */
  requestLogSize?: number;
  /** Requests per second per credential (429 `rate_limited` above); default: no limit. See limits.ts. */
  rateLimit?: number;
  /** Requests a credential may send at once under `rateLimit` (default: the rate). */
  burst?: number;
  /** Milliseconds added before every API answer (a remote service); default 0. */
  latencyMs?: number;
  /** Up to this many more milliseconds, at random, on top of `latencyMs`. */
  jitterMs?: number;
}

/** The default workspace's ids and keys, as `GET /_emulator/keys` returns them. */
export interface DefaultKeys {
  workspace_id: string;
  project_id: string;
  webhooks: { admin: string; read: string; publish: string };
  inboxes: { admin: string; read: string };
  infra: { admin: string; member: string };
}

export const DEFAULT_BODY_LIMIT = 1024 * 1024;

/** Scopes of the infrastructure keys the emulator mints: `member` has every service scope but `iam:write`. */
export const INFRA_SERVICE_SCOPES = [
  "vms:read", "vms:write", "vms:create", "vms:delete",
  "databases:read", "databases:write",
  "block-storage:read", "block-storage:write",
  "object-storage:read", "object-storage:write",
  "network:read", "network:write", "dns:read", "dns:write",
  "compute:read", "compute:write", "iam:read",
];
export const INFRA_ADMIN_SCOPES = [...INFRA_SERVICE_SCOPES, "iam:write"];

export class EmulatorContext {
  readonly store: Store;
  readonly plans: PlanTable;
  readonly bodyLimit: number;
  readonly allowLoopbackTargets: boolean;
  /** Milliseconds added to the real clock (`POST /_emulator/clock`). */
  clockOffsetMs = 0;
  /** Base URL once listening, e.g. http://127.0.0.1:4010 (for absolute URLs such as ingest_url). */
  baseUrl = "";
  private readonly defaultPlan: PlanName;

  constructor(readonly options: EmulatorOptions = {}) {
    this.plans = plansWith(options.plans);
    this.bodyLimit = options.bodyLimit ?? DEFAULT_BODY_LIMIT;
    this.allowLoopbackTargets = options.allowLoopbackTargets ?? false;
    this.defaultPlan = options.defaultPlan ?? "free";
    // The default keys stay the same across `reset`, so a test can keep using them.
    this.store = new Store(options.stateFile, () => this.initialState(), options.stateWriteDelayMs);
  }

  get state(): CoreState {
    return this.store.state;
  }

  now(): Date {
    return new Date(Date.now() + this.clockOffsetMs);
  }

  nowIso(): string {
    return this.now().toISOString();
  }

  plan(workspace: Workspace): PlanLimits {
    return this.plans[workspace.plan];
  }

  /** The keys of the default workspace (kept in state so a state file keeps them). */
  get defaults(): DefaultKeys {
    return this.state.products["_defaults"] as DefaultKeys;
  }

  /** Create a workspace with a default project and a full set of keys. */
  createWorkspace(plan: PlanName = "free", name = "workspace"): DefaultKeys {
    const keys = mintWorkspace(this.state, this.nowIso(), plan, name);
    this.store.changed();
    return keys;
  }

  createProject(workspaceId: string, name: string) {
    const project = { id: newId("proj"), workspace_id: workspaceId, name, created_at: this.nowIso() };
    this.state.projects[project.id] = project;
    this.store.changed();
    return project;
  }

  addKey(k: Omit<KeyRecord, "revoked" | "created_at">): KeyRecord {
    const record: KeyRecord = { ...k, revoked: false, created_at: this.nowIso() };
    this.state.keys[record.key] = record;
    this.store.changed();
    return record;
  }

  /**
   * First start: a fresh default workspace. Reset: the same workspace, project and
   * keys again (so tests keep their keys), with everything else gone.
   */
  private initialState(): CoreState {
    const fresh: CoreState = { workspaces: dict(), projects: dict(), keys: dict(), sessions: dict(), products: dict() };
    const previous = this.store?.state.products["_defaults"] as DefaultKeys | undefined;
    fresh.products["_defaults"] = mintWorkspace(fresh, this.nowIso(), this.defaultPlan, "default", previous);
    return fresh;
  }
}

/**
 * Add a workspace, its default project and one key of each kind to `state`.
 * With `reuse`, the ids and key values are those given (reset keeps the defaults).
 */
function mintWorkspace(state: CoreState, now: string, plan: PlanName, name: string, reuse?: DefaultKeys): DefaultKeys {
  const ws: Workspace = { id: reuse?.workspace_id ?? newId("ws"), name, plan, frozen: false, suspended: false, default_project_id: null, created_at: now };
  state.workspaces[ws.id] = ws;
  const projectId = reuse?.project_id ?? newId("proj");
  state.projects[projectId] = { id: projectId, workspace_id: ws.id, name: "default", created_at: now };
  ws.default_project_id = projectId;
  const put = (product: Product, scopes: string[], key: string, project_id: string | null) => {
    state.keys[key] = { key, product, scopes, workspace_id: ws.id, project_id, revoked: false, created_at: now };
    return key;
  };
  const app = (product: Product, scope: string, reused?: string) => put(product, [scope], reused ?? newAppKey(product, scope), null);
  return {
    workspace_id: ws.id,
    project_id: projectId,
    webhooks: {
      admin: app("webhooks", "admin", reuse?.webhooks.admin),
      read: app("webhooks", "read", reuse?.webhooks.read),
      publish: app("webhooks", "publish", reuse?.webhooks.publish),
    },
    inboxes: { admin: app("inboxes", "admin", reuse?.inboxes.admin), read: app("inboxes", "read", reuse?.inboxes.read) },
    infra: {
      admin: put("infra", INFRA_ADMIN_SCOPES, reuse?.infra.admin ?? newInfraKey(), projectId),
      member: put("infra", INFRA_SERVICE_SCOPES, reuse?.infra.member ?? newInfraKey(), projectId),
    },
  };
}
