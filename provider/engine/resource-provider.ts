/**
 * The dynamic-provider front end: Pulumi's `dynamic.ResourceProvider` over the typed
 * operations of a kind (operations.ts). What is Pulumi's own stays here: the
 * serialized provider's `__provider` input (handed back with checked inputs and kept in
 * a partial failure's state), configure, "no id" for an object that is gone; and the
 * wrappers every call passes through: stored outputs of an older shape upgraded
 * (upgrade.ts), secrets hidden in whatever a call says (guard.ts).
 */
import type * as dynamic from "@pulumi/pulumi/dynamic";
import { setPluginConfig } from "../config";
import { PROVIDER_KEY } from "./check";
import { PartialFailure } from "./errors";
import type { Props, ResourceDefinition } from "./fields";
import { guardProvider } from "./guard";
import { operationsFor } from "./operations";
import { upgrading } from "./upgrade";

// Their earlier home: tests import them from here.
export { clearReadCache, operationContext } from "./connection";
export { createBody, remoteFields } from "./values";

function withoutProvider(props: Props | undefined): Props {
  const { [PROVIDER_KEY]: _provider, ...rest } = props ?? {};
  return rest;
}

/** A partial failure's state keeps the inputs' `__provider` too, or the next run could not load the provider. */
async function keepingProvider<T>(news: Props, call: Promise<T>): Promise<T> {
  try {
    return await call;
  } catch (err) {
    if (!(err instanceof PartialFailure)) throw err;
    throw new PartialFailure(err.message, err.id, { ...err.properties, [PROVIDER_KEY]: news[PROVIDER_KEY] });
  }
}

export function makeResourceProvider(def: ResourceDefinition): dynamic.ResourceProvider & { definition: ResourceDefinition } {
  const ops = operationsFor(def);
  return guardProvider(
    def,
    upgrading(def.kind, {
      definition: def,

      async configure(req) {
        setPluginConfig(req.config);
      },

      async check(olds: Props, news: Props): Promise<dynamic.CheckResult> {
        const { inputs, failures } = await ops.check({ olds: withoutProvider(olds), news: withoutProvider(news) });
        return { inputs: { ...inputs, [PROVIDER_KEY]: news[PROVIDER_KEY] }, failures };
      },

      async diff(id: string, olds: Props, news: Props): Promise<dynamic.DiffResult> {
        return ops.diff({ id, olds: withoutProvider(olds), news: withoutProvider(news) });
      },

      async create(inputs: Props): Promise<dynamic.CreateResult> {
        const { id, outputs } = await keepingProvider(inputs, ops.create({ inputs: withoutProvider(inputs) }));
        return { id, outs: outputs };
      },

      async read(id: string, props?: Props): Promise<dynamic.ReadResult> {
        const read = await ops.read({ id, outputs: props && withoutProvider(props) });
        // No id: deleted outside Pulumi, the engine drops it from the state.
        return read.gone ? {} : { id: read.id, props: read.outputs, inputs: read.inputs };
      },

      async update(id: string, olds: Props, news: Props): Promise<dynamic.UpdateResult> {
        const { outputs } = await keepingProvider(news, ops.update({ id, olds: withoutProvider(olds), news: withoutProvider(news) }));
        return { outs: outputs };
      },

      async delete(id: string, props: Props): Promise<void> {
        await ops.delete({ id, outputs: withoutProvider(props) });
      },
    }),
  );
}
