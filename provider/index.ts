/**
 * `pulumi-svc/provider`: what runs inside the dynamic-provider plugin. The SDK's
 * serialized shim requires this module by name and asks for a kind's provider, so
 * state never holds provider code, clients or credentials, and a package upgrade
 * applies to unchanged resources too.
 */
import type * as dynamic from "@pulumi/pulumi/dynamic";
import type { ResourceKind } from "./kinds";
import type { Operations } from "./engine/operations";
import { makeResourceProvider, type DynamicProvider } from "./engine/resource-provider";
import { DEFINITIONS } from "./registry";
import { PACKAGE_VERSION } from "./version";

export type ResourceProviderOf = DynamicProvider;

/** One provider per kind. Building one makes no call and reads no setting. */
export const providers: Partial<Record<ResourceKind, ResourceProviderOf>> = Object.fromEntries(
  Object.entries(DEFINITIONS).map(([kind, def]) => [kind, makeResourceProvider(def)]),
);

/**
 * The provider of a kind; throws for a kind this version does not know (state from a newer package).
 * The shim of 0.1.0 calls it by name on every call, so states written then depend on it staying.
 */
export function providerFor(kind: string): ResourceProviderOf {
  const provider = providers[kind as ResourceKind];
  if (!provider) throw new Error(`pulumi-svc ${PACKAGE_VERSION} has no resource kind "${kind}"; upgrade the pulumi-svc package.`);
  return provider;
}

const SHIM_METHODS = ["check", "diff", "create", "read", "update", "delete"] as const;

/**
 * What the SDK's shim (sdk/shim.ts) calls, by name from state, when the plugin configures it:
 * puts the kind's provider methods on the shim, before anything is awaited (the plugin may
 * hand the same object to a concurrent call as soon as this returns its promise), then
 * configures the provider.
 */
export function configureShim(kind: string, shim: dynamic.ResourceProvider, req: dynamic.ConfigureRequest): Promise<void> {
  const provider = providerFor(kind);
  for (const method of SHIM_METHODS) Object.assign(shim, { [method]: provider[method]!.bind(provider) });
  return provider.configure!(req);
}

/** A kind's typed operations, as its dynamic provider calls them (state upgraded, secrets hidden): the native plugin's way in. */
export function operationsOf(kind: string): Operations {
  return providerFor(kind).operations;
}

export { SvcClient, SvcApiError, SvcConnectionError, SvcUnknownOutcomeError, closeSharedDispatcher } from "./client";
export { resolveConnection, setPluginConfig, settingNames, MissingSettingError, InvalidSettingError, type ConfigSource, type Connection, type Product } from "./config";
export { operationContext, startOperation } from "./engine/engine-operation";
export { movedKeys } from "./engine/reach";
export { PartialFailure } from "./engine/errors";
export { fieldEqual } from "./engine/diff";
export { READ_FUNCTIONS, readFunction, type ReadFunction } from "./functions";
export { UNKNOWN } from "./engine/unknown";
export { RESOURCE_KEY, resourceIdentity } from "./engine/internal-keys";
export type { ResourceDefinition, FieldSpec, FieldMode, ResourceHooks } from "./engine/fields";
