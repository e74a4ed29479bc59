/**
 * The dynamic-provider front end: Pulumi's `dynamic.ResourceProvider` over the typed
 * operations of a kind as every front end is served them (`servedOperations`: stored
 * outputs of an older shape upgraded, upgrade.ts; secrets hidden in whatever a call
 * says, guard.ts). What is Pulumi's own stays here: the serialized provider's
 * `__provider` input (handed back with checked inputs and kept in a partial failure's
 * state), configure, "no id" for an object that is gone.
 */
import type * as dynamic from "@pulumi/pulumi/dynamic";
import { setPluginConfig } from "../config";
import { unknownConfigKeyWarnings } from "../config-keys";
import { keepingDeclared } from "./declared-inputs";
import { note, PartialFailure } from "./errors";
import type { Props, ResourceDefinition } from "./fields";
import { guarded, quietRepeatedErrors } from "./guard";
import { PROVIDER_KEY } from "./internal-keys";
import { operationsFor, type Operations } from "./operations";
import { reaching } from "./reach";
import { sealing } from "./sealed";
import { upgrading } from "./upgrade";

/** A kind's operations as both front ends call them: upgraded state in, write-only secrets sealed in the outputs (sealed.ts), where each object lives recorded and compared with the key's reach (reach.ts), internal keys kept in the outputs and reads answering the inputs as stored (declared-inputs.ts), secrets out of every message. */
export function servedOperations(def: ResourceDefinition): Operations {
  return guarded(keepingDeclared(reaching(upgrading(sealing(operationsFor(def))))));
}

function withoutProvider(props: Props | undefined): Props {
  const { [PROVIDER_KEY]: _provider, ...rest } = props ?? {};
  return rest;
}

/** A partial failure's state keeps the inputs' `__provider` too, or the next run could not load the provider. */
async function keepingProvider<T>(news: Props, call: Promise<T>): Promise<T> {
  try {
    return await call;
  } catch (err) {
    // The same error, its message already stripped of secrets (guard.ts).
    if (err instanceof PartialFailure) Object.assign(err.properties, { [PROVIDER_KEY]: news[PROVIDER_KEY] });
    throw err;
  }
}

/** The stack configs already judged: the plugin configures the provider of each kind it meets, all with one config (its `rawConfig`). */
const judgedConfigs = new WeakSet<object>();

/**
 * The stack config's keys the provider does not read (a misspelt `svc:` key, or one inside a profile), warned once per
 * configuration, as the native plugin's CheckConfig does. The `svc:` keys are listed from the config the dynamic-provider
 * plugin gives (`@pulumi/pulumi` cmd/dynamic-provider: its `rawConfig`, every namespace's keys, one object for every
 * kind); without it, a profile's keys alone are judged.
 */
function warnUnknownConfigKeys(config: { get(key: string): string | undefined }): void {
  const raw = (config as { rawConfig?: unknown }).rawConfig;
  const judged = raw && typeof raw === "object" ? raw : config;
  if (judgedConfigs.has(judged)) return;
  judgedConfigs.add(judged);
  const keys = judged === raw ? Object.keys(raw).filter((key) => key.startsWith("svc:")).map((key) => key.slice("svc:".length)) : [];
  for (const message of unknownConfigKeyWarnings(keys, (key) => config.get(`svc:${key}`))) note(message);
}

/** The dynamic provider of a kind, and the typed operations it calls (the native plugin's way in: provider/index.ts). */
export type DynamicProvider = dynamic.ResourceProvider & { definition: ResourceDefinition; operations: Operations };

export function makeResourceProvider(def: ResourceDefinition): DynamicProvider {
  const ops = servedOperations(def);
  return {
    definition: def,
    operations: ops,

    async configure(req) {
      quietRepeatedErrors();
      setPluginConfig(req.config);
      warnUnknownConfigKeys(req.config);
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
      // The stored props unchanged, `__provider` included (the engine's dynamic provider
      // writes it back into the answer anyway): upgrade.ts leaves out of the answer the
      // null outputs these props lack, keys as the state holds them.
      const read = await ops.read({ id, outputs: props });
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
  };
}
