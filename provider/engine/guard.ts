/**
 * The one place every provider call's errors pass on their way to the engine: every
 * error, check failure and warning is stripped of the call's secret values
 * (engine/redact.ts). (An error about the connection already names the address tried
 * and the setting that holds it: the client adds them, for the SDK's functions too.) Resource code builds its messages freely; this guard makes them
 * safe to print.
 */
import type * as dynamic from "@pulumi/pulumi/dynamic";
import { pluginConfigSource, profileOf, resolveConnection } from "../config";
import { SECRET_INPUTS_KEY } from "./check";
import type { Props, ResourceDefinition } from "./fields";
import { redact, redactError, secretTexts, withSecrets } from "./redact";

type Provider = dynamic.ResourceProvider & { definition: ResourceDefinition };

export function guardProvider(def: ResourceDefinition, p: Provider): Provider {
  /** Run one call with the secrets of its properties hidden from whatever it says. */
  async function guarded<T>(props: (Props | undefined)[], call: () => Promise<T>): Promise<T> {
    const secrets = secretTexts(def, props, [apiKeyOf(def, props)]);
    try {
      return await withSecrets(secrets, call);
    } catch (err) {
      throw withoutTrace(redactError(err, secrets));
    }
  }

  return {
    definition: def,
    configure: p.configure,
    async check(olds, news) {
      const secrets = secretTexts(def, [olds, news], [apiKeyOf(def, [news])]);
      const result = await guarded([olds, news], () => p.check!(olds, news));
      return { ...result, failures: result.failures?.map((f) => ({ property: f.property, reason: redact(f.reason, secrets) })) };
    },
    diff: (id, olds, news) => guarded([olds, news], () => p.diff!(id, olds, news)),
    async create(inputs) {
      const result = await guarded([inputs], () => p.create(inputs));
      return { ...result, outs: keepSecretNames(inputs, result.outs) };
    },
    read: (id, props) => guarded([props], () => p.read!(id, props)),
    async update(id, olds, news) {
      const result = await guarded([olds, news], () => p.update!(id, olds, news));
      return { ...result, outs: keepSecretNames(news, result.outs) };
    },
    delete: (id, props) => guarded([props], () => p.delete!(id, props)),
  };
}

/** A programming error (a bug in the provider): its stack trace is what tells where. */
const BUGS = [TypeError, ReferenceError, RangeError, SyntaxError];

/**
 * The dynamic-provider plugin prints `${err}: ${err.stack}` for a failed check, diff,
 * read or delete, which the CLI shows as `info:` lines: the provider's message is the
 * whole story (a refusal, what to do), so it is printed once, without the provider's
 * file paths. A bug keeps its trace.
 */
function withoutTrace<T>(err: T): T {
  if (!(err instanceof Error) || BUGS.some((bug) => err instanceof bug)) return err;
  Object.defineProperty(err, "stack", { value: err.message, configurable: true, writable: true });
  Object.defineProperty(err, "toString", { value: () => "pulumi-svc", configurable: true, writable: true });
  return err;
}

/** The list of secret input names goes into the outputs too: delete and refresh get only those. */
function keepSecretNames(inputs: Props, outs: Props | undefined): Props | undefined {
  const names = inputs[SECRET_INPUTS_KEY];
  return names === undefined || !outs ? outs : { ...outs, [SECRET_INPUTS_KEY]: names };
}

/** The API key the call uses (never in a message, but hidden should one echo it). */
function apiKeyOf(def: ResourceDefinition, props: (Props | undefined)[]): string | undefined {
  try {
    return resolveConnection(pluginConfigSource(), def.product, props.map(profileOf).find((p) => p !== undefined)).apiKey;
  } catch {
    return undefined;
  }
}
