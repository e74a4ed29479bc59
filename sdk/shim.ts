/**
 * The provider object `dynamic.Resource` serializes into `__provider` (and so into
 * the state). It captures only the resource kind string: every call `require`s the
 * installed `pulumi-svc/provider` in the plugin process and forwards to it. So:
 *
 * - an upgrade of the package applies to delete and refresh of unchanged resources
 *   too (their old `__provider` text still just requires the package);
 * - no client, dispatcher, schema or credential is ever captured into state.
 *
 * The require is resolved from the plugin's working directory (the program
 * directory): a program with pulumi-svc in node_modules finds it there, and a
 * program inside this repository finds it through the package's self-reference
 * (the `exports` map). A plain `require` would not do: the plugin evaluates the
 * serialized text as a module with no file name, from which neither works.
 */
import type * as dynamic from "@pulumi/pulumi/dynamic";
import type { ResourceKind } from "./tokens";

const shims = new Map<string, dynamic.ResourceProvider>();

/** The serializable provider of a kind, one object per kind (the SDK caches its serialization). */
export function providerShim(kind: ResourceKind): dynamic.ResourceProvider {
  let shim = shims.get(kind);
  if (!shim) {
    shim = makeShim(kind);
    shims.set(kind, shim);
  }
  return shim;
}

// Everything below is serialized by Pulumi's closure serializer: keep it free of
// imports and module-level values other than `kind`.
function makeShim(kind: string): dynamic.ResourceProvider {
  const load = (): dynamic.ResourceProvider => {
    const { createRequire } = require("node:module");
    const { join } = require("node:path");
    const requireFromProgram = createRequire(join(process.cwd(), "__pulumi_svc_shim__.js"));
    return requireFromProgram("pulumi-svc/provider").providerFor(kind);
  };
  return {
    configure: (req) => load().configure!(req),
    check: (olds, news) => load().check!(olds, news),
    diff: (id, olds, news) => load().diff!(id, olds, news),
    create: (inputs) => load().create(inputs),
    read: (id, props) => load().read!(id, props),
    update: (id, olds, news) => load().update!(id, olds, news),
    delete: (id, props) => load().delete!(id, props),
  };
}
