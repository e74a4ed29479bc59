/**
 * The Infrastructure state (kept in the store under `infra`): quota limit
 * overrides, quota requests, and the VMs and snapshots that quotas count.
 */
import type { EmulatorContext } from "../core/context";
import type { QuotaRequestRecord } from "../../rules/quota";
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

export function infraState(ctx: EmulatorContext): InfraState {
  return ctx.store.product<InfraState>("infra", () => ({ limits: dict(), quotaRequests: dict(), vms: dict(), snapshots: dict(), ipSeq: 0 }));
}
