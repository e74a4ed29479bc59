/**
 * The provider object `dynamic.Resource` serializes into `__provider` (and so into
 * the state, twice per resource: in inputs and in outputs). It captures only the
 * resource kind string: when the dynamic-provider plugin configures it, it `require`s
 * the installed `pulumi-svc/provider` and hands itself over (`configureShim`), which
 * puts the kind's provider methods on it. So:
 *
 * - an upgrade of the package applies to delete and refresh of unchanged resources
 *   too (their old `__provider` text still just requires the package);
 * - no client, dispatcher, schema or credential is ever captured into state.
 *
 * Why it is shaped this way: Pulumi's closure serializer writes every function of the
 * object as a wrapper of ~170 characters around its source, so one forwarding arrow
 * per method (the 0.1.0 shim: eight functions, about 2,460 characters) cost most of an
 * Inbox's state. Here there are three: `configure`, one placeholder shared by the
 * other methods, and the SDK's own handler (about 970 characters). The plugin
 * configures a provider it deserializes before any other call (cmd/dynamic-provider
 * `getProvider`, since @pulumi/pulumi 3.140; our peer range starts at 3.204), and
 * `configureShim` replaces the placeholders synchronously, before that first call
 * returns, so a concurrent call on the cached object finds the real methods. The
 * placeholder is reached only if loading the package failed; it then fails the call
 * rather than let the plugin fall back to its defaults (no check, no diff).
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
// imports and module-level values other than `kind`, and short (it is stored twice
// per resource).
function makeShim(kind: string): dynamic.ResourceProvider {
  const unloaded = (): never => {
    throw new Error("pulumi-svc/provider could not be loaded: see this run's first error");
  };
  const shim: dynamic.ResourceProvider = {
    configure: (req) => require("node:module").createRequire(process.cwd() + "/_")("pulumi-svc/provider").configureShim(kind, shim, req),
    check: unloaded,
    diff: unloaded,
    create: unloaded,
    read: unloaded,
    update: unloaded,
    delete: unloaded,
  };
  return shim;
}
