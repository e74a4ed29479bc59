/**
 * One table of cases per policy, run twice: through the policy functions directly
 * (policies.test.ts) and through the real analyzer server (analyzer.test.ts).
 */
import type { ResourceValidationPolicy, StackValidationPolicy } from "@pulumi/policy";
import type { ResourceKind } from "../../../sdk/tokens";
import { PROVIDER_BLOB, type WireProps } from "../wire";

export interface ResourceCase {
  title: string;
  kind: ResourceKind;
  /** Checked inputs in wire form (secrets as signature objects, unknowns as sentinels). */
  props: WireProps;
  /** Default "dev". */
  stack?: string;
  /** This policy's config properties, over the schema defaults. */
  config?: Record<string, unknown>;
  /** Exact violation messages, in order ([] = compliant). */
  violations: string[];
  /**
   * Remediation policies only: the properties after remediation, in wire form, or
   * null when the policy must leave the resource alone.
   */
  remediated?: WireProps | null;
}

export interface StackCase {
  title: string;
  stack?: string;
  config?: Record<string, unknown>;
  resources: { kind: ResourceKind; name: string; props: WireProps }[];
  /** Exact messages, in order; `resource` names the resource the violation is reported on (none: the stack). */
  violations: { message: string; resource?: string }[];
}

export type PolicyCases =
  | { policy: ResourceValidationPolicy; resource: ResourceCase[] }
  | { policy: StackValidationPolicy; stack: StackCase[] };

export const DEFAULT_STACK = "dev";
export const PROJECT = "svc-example";

/** Inputs as the SDK would check them: the serialized provider is always there. */
export function inputs(props: WireProps): WireProps {
  return { __provider: PROVIDER_BLOB, ...props };
}
