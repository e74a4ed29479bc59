/**
 * The one place every provider call's errors pass on their way to the engine: every
 * error, check failure and warning is stripped of the call's secret values
 * (engine/redact.ts). (An error about the connection already names the address tried
 * and the setting that holds it: the client adds them, for the SDK's functions too.) Resource code builds its messages freely; this guard makes them
 * safe to print.
 */
import { profileOf } from "../config";
import { connectionOf } from "./engine-operation";
import type { Props, ResourceDefinition } from "./fields";
import type { Operations } from "./operations";
import { redact, redactError, secretTexts, withSecrets } from "./redact";

/** A kind's operations (either front end's) with the secrets of each call's properties hidden from whatever it says. */
export function guarded(ops: Operations): Operations {
  const def = ops.definition;
  /** Run one call (diff answers at once, the others later) with the secrets of `props` hidden from its warnings and errors. */
  function call<T>(props: (Props | undefined)[], fn: () => T): T {
    const secrets = secretTexts(def, props, [apiKeyOf(def, props)]);
    const fail = (err: unknown): never => {
      throw withoutTrace(redactError(err, secrets));
    };
    try {
      const result = withSecrets(secrets, fn);
      return (result instanceof Promise ? result.catch(fail) : result) as T;
    } catch (err) {
      return fail(err);
    }
  }

  return {
    definition: def,
    async check(req) {
      const secrets = secretTexts(def, [req.olds, req.news], [apiKeyOf(def, [req.news])]);
      const result = await call([req.olds, req.news], () => ops.check(req));
      return { ...result, failures: result.failures.map((f) => ({ property: f.property, reason: redact(f.reason, secrets) })) };
    },
    diff: (req) => call([req.olds, req.news], () => ops.diff(req)),
    create: (req) => call([req.inputs], () => ops.create(req)),
    read: (req) => call([req.outputs], () => ops.read(req)),
    update: (req) => call([req.olds, req.news], () => ops.update(req)),
    delete: (req) => call([req.outputs], () => ops.delete(req)),
  };
}

/** A programming error (a bug in the provider): its stack trace is what tells where. */
const BUGS = [TypeError, ReferenceError, RangeError, SyntaxError];

/**
 * The dynamic-provider plugin prints `${err}: ${err.stack}` for a failed check, diff,
 * read or delete, which the CLI shows as `info:` lines: the provider's message is the
 * whole story (a refusal, what to do), so it is printed without the provider's file
 * paths, and in the plugin's process not at all (`quietRepeatedErrors`): the engine shows
 * it already as the resource's error. A bug keeps its trace.
 */
function withoutTrace<T>(err: T): T {
  if (!(err instanceof Error) || BUGS.some((bug) => err instanceof bug)) return err;
  Object.defineProperty(err, "stack", { value: err.message, configurable: true, writable: true });
  Object.defineProperty(err, "toString", { value: () => "pulumi-svc", configurable: true, writable: true });
  if (quietening) {
    repeated.add(`${String(err)}: ${err.stack ?? ""}`);
    // Create and update errors are not printed (the plugin answers them otherwise): keep the newest few.
    if (repeated.size > 32) repeated.delete(repeated.values().next().value!);
  }
  return err;
}

/** The lines the dynamic-provider plugin would print for the errors of the calls guarded since quietRepeatedErrors. */
const repeated = new Set<string>();
let quietening = false;
const QUIET = Symbol.for("pulumi-svc.quietRepeatedErrors");

/**
 * In the dynamic-provider plugin's process (its configure): `console.error` drops the line the plugin prints for a
 * failed call whose error this guard passed on (adv14b F13: a refused delete's message was shown twice, the second
 * time as a stack-level `pulumi-svc: ...` line); every other line is printed as before.
 */
export function quietRepeatedErrors(): void {
  quietening = true;
  if ((console.error as { [QUIET]?: true })[QUIET]) return;
  const print = console.error;
  const quiet = (...args: unknown[]): void => {
    if (args.length === 1 && typeof args[0] === "string" && repeated.delete(args[0])) return;
    print.apply(console, args);
  };
  console.error = Object.assign(quiet, { [QUIET]: true as const });
}

/** The API key the call uses (never in a message, but hidden should one echo it). */
function apiKeyOf(def: ResourceDefinition, props: (Props | undefined)[]): string | undefined {
  return connectionOf(def, props.map(profileOf).find((p) => p !== undefined))?.apiKey;
}
