/**
 * Plan ceilings. The spec does not show the numbers; these are the emulator's
 * defaults from shared/design/api-assumptions.md, overridable per emulator
 * (`startEmulator({ plans })`). `null` means unlimited.
 */
export type PlanName = "free" | "pro" | "enterprise";
export const PLAN_NAMES: PlanName[] = ["free", "pro", "enterprise"];

export interface PlanLimits {
  webhooks: {
    endpoints: number | null;
    max_attempts: number;
    deliveries_per_month: number | null;
    broker_sources: boolean;
    /** No plan requires endpoint verification, so every plan may turn it off (spec document 1). */
    optional_endpoint_verification: boolean;
  };
  inboxes: {
    inboxes: number | null;
    http_bins: number | null;
    messages_per_month: number | null;
    read_api: boolean;
    optional_phrase_gate: boolean;
  };
}

export type PlanTable = Record<PlanName, PlanLimits>;

export const DEFAULT_PLANS: PlanTable = {
  free: {
    webhooks: { endpoints: 3, max_attempts: 5, deliveries_per_month: 10_000, broker_sources: false, optional_endpoint_verification: true },
    inboxes: { inboxes: 3, http_bins: 3, messages_per_month: 1_000, read_api: false, optional_phrase_gate: false },
  },
  pro: {
    webhooks: { endpoints: 50, max_attempts: 15, deliveries_per_month: 1_000_000, broker_sources: true, optional_endpoint_verification: true },
    inboxes: { inboxes: 25, http_bins: 25, messages_per_month: 100_000, read_api: true, optional_phrase_gate: true },
  },
  enterprise: {
    webhooks: { endpoints: null, max_attempts: 30, deliveries_per_month: null, broker_sources: true, optional_endpoint_verification: true },
    inboxes: { inboxes: null, http_bins: null, messages_per_month: null, read_api: true, optional_phrase_gate: true },
  },
};

/** Deep-merge partial overrides onto the defaults. */
export function plansWith(overrides: DeepPartial<PlanTable> = {}): PlanTable {
  const out = structuredClone(DEFAULT_PLANS);
  for (const plan of PLAN_NAMES) {
    const o = overrides[plan];
    if (!o) continue;
    Object.assign(out[plan].webhooks, o.webhooks ?? {});
    Object.assign(out[plan].inboxes, o.inboxes ?? {});
  }
  return out;
}

export type DeepPartial<T> = { [K in keyof T]?: T[K] extends object ? DeepPartial<T[K]> : T[K] };
