/**
 * The Infrastructure state (kept in the store under `infra`): quota limit
 * overrides, quota requests, and the VMs and snapshots that quotas count.
 */
import type { EmulatorContext } from "../core/context";
import { DEFAULT_REGION, QUOTA_SCOPES, type QuotaRequestRecord } from "../../rules/quota";
import { dict } from "../core/dict";

/** What the cursor lists page over: every listed resource has these. */
export interface Listed {
  id: string;
  project_id: string;
  name: string;
  region: string;
  state: string;
  created_at: string;
  updated_at: string;
}

export const VM_STATES = ["provisioning", "running", "stopped", "terminated"] as const;
export type VmState = (typeof VM_STATES)[number];
export interface Vm extends Listed {
  state: VmState;
  vcpu: number;
  ram_gb: number;
  ipv4: string;
}

export const SNAPSHOT_STATES = ["creating", "available", "deleted"] as const;
export type SnapshotState = (typeof SNAPSHOT_STATES)[number];
export interface Snapshot extends Listed {
  state: SnapshotState;
  vm_id: string | null;
  size_gb: number;
}

export type QuotaRequest = QuotaRequestRecord;

export interface InfraState {
  /** project -> scope key (`project` or `region:<r>`) -> quota name -> limit; absent = the default. */
  limits: Record<string, Record<string, Record<string, number>>>;
  quotaRequests: Record<string, QuotaRequest>;
  vms: Record<string, Vm>;
  snapshots: Record<string, Snapshot>;
  /** Counter for VM addresses. */
  ipSeq: number;
}

const upgraded = new WeakSet<InfraState>();

export function infraState(ctx: EmulatorContext): InfraState {
  const state = ctx.store.product<InfraState>("infra", () => ({ limits: dict(), quotaRequests: dict(), vms: dict(), snapshots: dict(), ipSeq: 0 }));
  if (!upgraded.has(state)) {
    upgraded.add(state);
    projectWideLimitsOutOfRegions(state);
  }
  return state;
}

/**
 * A state file written when vCPU and RAM were counted per region keeps their limits
 * under `region:<r>`; they are the project's one figure now (rules/quota.ts,
 * QUOTA_SCOPES). Each such name moves to the `project` scope: the default region's
 * value (what a read without a region showed), else the highest of the regions', so
 * a program's QuotaLimits finds the value it wrote.
 */
function projectWideLimitsOutOfRegions(state: InfraState): void {
  for (const scopes of Object.values(state.limits)) {
    const regional = Object.keys(scopes).filter((key) => key.startsWith("region:"));
    const names = new Set(regional.flatMap((key) => Object.keys(scopes[key]!).filter((name) => QUOTA_SCOPES[name] === "project")));
    for (const name of names) {
      const inDefault = scopes[`region:${DEFAULT_REGION}`]?.[name];
      const value = inDefault ?? Math.max(...regional.map((key) => scopes[key]![name] ?? 0));
      (scopes.project ??= dict())[name] ??= value;
      for (const key of regional) delete scopes[key]![name];
    }
  }
}
