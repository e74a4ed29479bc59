/**
 * Calls policy functions with the arguments @pulumi/policy's analyzer server
 * builds (server.ts): properties deserialized by its own code (secrets revealed for
 * validation, wrapped for remediation), wrapped in its unknown-checking proxy, and
 * config with the schema defaults filled in as the engine does. Collects what the
 * policy reports. No gRPC, no process: fast, and a failure points at the policy.
 */
import {
  unknownCheckingProxy,
  type PolicyResource,
  type ReportViolation,
  type ResourceValidationArgs,
  type ResourceValidationPolicy,
  type StackValidationArgs,
  type StackValidationPolicy,
} from "@pulumi/policy";
import * as deserializeModule from "@pulumi/policy/deserialize";
import { TYPE_TOKENS, type ResourceKind } from "../../sdk/tokens";
import { DEFAULT_STACK, PROJECT } from "./cases/types";
import type { WireProps } from "./wire";

interface DeserializeInternals {
  deserializeProperties(struct: { toJavaScript(): unknown }, proxySecrets: boolean): Record<string, unknown>;
  serializeProperties(props: unknown): Promise<WireProps>;
}
const { deserializeProperties, serializeProperties } = deserializeModule as unknown as DeserializeInternals;

export function urnOf(stack: string, kind: ResourceKind, name: string): string {
  return `urn:pulumi:${stack}::${PROJECT}::${TYPE_TOKENS[kind]}::${name}`;
}

/** The engine's createConfigWithDefaults + applyConfig for one policy. */
export function configFor(policy: { configSchema?: { properties: Record<string, { default?: unknown }> } }, given: Record<string, unknown> = {}) {
  const defaults: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(policy.configSchema?.properties ?? {})) if (v.default !== undefined) defaults[k] = v.default;
  return { ...defaults, ...given };
}

export interface ResourceInput {
  kind: ResourceKind;
  props: WireProps;
  stack?: string;
  name?: string;
  /** Config properties; `configFor` defaults are applied unless `rawConfig`. */
  config?: Record<string, unknown>;
  /** Hand the policy exactly this config (e.g. {} to see that it falls back to its own defaults). */
  rawConfig?: Record<string, unknown>;
}

function resourceArgs(policy: ResourceValidationPolicy, input: ResourceInput, proxySecrets: boolean): ResourceValidationArgs {
  const stack = input.stack ?? DEFAULT_STACK;
  const name = input.name ?? "subject";
  const type = TYPE_TOKENS[input.kind];
  const props = unknownCheckingProxy(deserializeProperties({ toJavaScript: () => input.props }, proxySecrets));
  const config = input.rawConfig ?? configFor(policy, input.config);
  return {
    type,
    props,
    urn: urnOf(stack, input.kind, name),
    name,
    opts: { protect: false, ignoreChanges: [], aliases: [], customTimeouts: { createSeconds: 0, updateSeconds: 0, deleteSeconds: 0 }, additionalSecretOutputs: [] },
    stackTags: new Map(),
    isType: () => false,
    asType: () => undefined,
    getConfig: <T extends object>() => config as T,
    notApplicable: (reason?: string): never => {
      throw new Error(`notApplicable: ${reason}`);
    },
  };
}

/** Messages the policy's validateResource reports for the resource, in order. */
export async function validateResource(policy: ResourceValidationPolicy, input: ResourceInput): Promise<string[]> {
  const messages: string[] = [];
  const report: ReportViolation = (message) => void messages.push(message);
  const validations = Array.isArray(policy.validateResource) ? policy.validateResource : policy.validateResource ? [policy.validateResource] : [];
  for (const validate of validations) await validate(resourceArgs(policy, input, false), report);
  return messages;
}

/** The remediated properties in wire form, or null when the policy changed nothing. */
export async function remediateResource(policy: ResourceValidationPolicy, input: ResourceInput): Promise<WireProps | null> {
  if (!policy.remediateResource) throw new Error(`${policy.name} has no remediateResource`);
  const result = await policy.remediateResource(resourceArgs(policy, input, true));
  return result ? serializeProperties(result) : null;
}

export interface StackInput {
  stack?: string;
  resources: { kind: ResourceKind; name: string; props: WireProps }[];
  config?: Record<string, unknown>;
}

/** Violations the policy's validateStack reports: message and the URN it names, if any. */
export async function validateStack(policy: StackValidationPolicy, input: StackInput): Promise<{ message: string; urn?: string }[]> {
  const stack = input.stack ?? DEFAULT_STACK;
  const config = configFor(policy, input.config);
  const resources: PolicyResource[] = input.resources.map((r) => {
    const props = unknownCheckingProxy(deserializeProperties({ toJavaScript: () => r.props }, false));
    return {
      type: TYPE_TOKENS[r.kind],
      props,
      urn: urnOf(stack, r.kind, r.name),
      name: r.name,
      opts: { protect: false, ignoreChanges: [], aliases: [], customTimeouts: { createSeconds: 0, updateSeconds: 0, deleteSeconds: 0 }, additionalSecretOutputs: [] },
      dependencies: [],
      propertyDependencies: {},
      isType: () => false,
      asType: () => undefined,
    };
  });
  const out: { message: string; urn?: string }[] = [];
  const args: StackValidationArgs = {
    resources,
    stackTags: new Map(),
    getConfig: <T extends object>() => config as T,
    notApplicable: (reason?: string): never => {
      throw new Error(`notApplicable: ${reason}`);
    },
  };
  await policy.validateStack(args, (message, urn) => void out.push(urn === undefined ? { message } : { message, urn }));
  return out;
}
