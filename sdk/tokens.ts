/**
 * The type token of every pulumi-svc resource, in one place. `dynamic.Resource`
 * builds `pulumi-nodejs:dynamic/<module>:<type>` from its module and type
 * arguments; ours use module `svc/<product>` so they never clash with another
 * package's dynamic resources. Policy packs match resources by these tokens (each
 * SDK class also carries its token as a static `__pulumiType`). Changing a token
 * later needs an alias on the class.
 */
import { RESOURCE_KINDS, type ResourceKind } from "../provider/kinds";

export { RESOURCE_KINDS, type ResourceKind };

/** The `module` and `type` arguments `dynamic.Resource` takes for a kind. */
export function moduleAndType(kind: ResourceKind): { module: string; type: string } {
  const [product, type] = kind.split(":") as [string, string];
  return { module: `svc/${product}`, type };
}

/** The full type token of a kind, e.g. `pulumi-nodejs:dynamic/svc/webhooks:Endpoint`. */
export function typeToken(kind: ResourceKind): string {
  const { module, type } = moduleAndType(kind);
  return `pulumi-nodejs:dynamic/${module}:${type}`;
}

export const TYPE_TOKENS = Object.fromEntries(RESOURCE_KINDS.map((k) => [k, typeToken(k)])) as Record<ResourceKind, string>;
