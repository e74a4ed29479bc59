/**
 * Policy configuration: one schema per policy, every property with a default, the
 * defaults living only in that schema. The engine fills the defaults in before it
 * calls Configure (pkg/resource/analyzer/config.go, createConfigWithDefaults); we
 * fill them in again when reading, so a host that sends no config (an older engine,
 * a unit test) gets the same thresholds instead of `undefined`.
 */
import type { PolicyConfigSchema } from "@pulumi/policy";
import type { PolicyConfigJSONSchema } from "@pulumi/policy/schema";
import { DEFAULT_PRODUCTION_STACKS } from "./stacks";

/** A schema property per config key, each with a default of the key's type. */
export type ConfigProperties<T> = { [K in keyof T]-?: PolicyConfigJSONSchema & { default: T[K] } };

export interface TypedConfigSchema<T> extends PolicyConfigSchema {
  properties: ConfigProperties<T>;
}

export function configSchema<T>(properties: ConfigProperties<T>): TypedConfigSchema<T> {
  return { properties };
}

/** The policy's config: schema defaults, overridden by whatever the engine configured. */
export function readConfig<T>(schema: TypedConfigSchema<T>, args: { getConfig<C extends object>(): C }): T {
  const defaults: Record<string, unknown> = {};
  for (const [key, property] of Object.entries(schema.properties) as [string, { default: unknown }][]) {
    defaults[key] = property.default;
  }
  return { ...defaults, ...args.getConfig<Record<string, unknown>>() } as T;
}

/** Config shared by every policy that treats production stacks differently. */
export interface ProductionConfig {
  productionStacks: string[];
}

export const productionStacksProperty: ConfigProperties<ProductionConfig>["productionStacks"] = {
  type: "array",
  items: { type: "string", minLength: 1 },
  default: [...DEFAULT_PRODUCTION_STACKS],
  description: "Stack name globs (picomatch syntax, e.g. `prod-*`) that count as production.",
};
