/**
 * The props a resource class hands to `dynamic.Resource`: every input and output name
 * present, set to the argument or `undefined` (an output whose name is absent from the
 * props is never resolved: pulumi/pulumi#2931, #5174).
 */
import * as pulumi from "@pulumi/pulumi";

import { SECRET_INPUTS_KEY } from "../provider/engine/internal-keys";

export function resourceProps<A extends object>(args: A, inputs: readonly (keyof A & string)[], outputs: readonly string[]): Record<string, unknown> {
  const props: Record<string, unknown> = {};
  for (const name of inputs) props[name] = args[name];
  for (const name of outputs) props[name] = undefined;
  return withProgramArgs(props, args);
}

/**
 * Two things only the program process knows, added to a resource's props:
 * - arguments the class does not declare (a misspelling in JavaScript, or TypeScript run
 *   without type-checking), passed on as given so that the provider's check names them
 *   with the nearest known argument instead of dropping them;
 * - which arguments are secrets: the plugin receives every input in plaintext, so the
 *   provider learns from this list of names (never values) what to keep out of messages.
 */
export function withProgramArgs(props: Record<string, unknown>, args: object): Record<string, unknown> {
  for (const [name, value] of Object.entries(args)) if (!(name in props) && value !== undefined) props[name] = value;
  const secrets = secretInputNames(args);
  if (secrets) props[SECRET_INPUTS_KEY] = secrets;
  return props;
}

/** Names of the arguments holding a secret Output (at any depth); undefined when none can. */
function secretInputNames(args: object): pulumi.Output<string[] | undefined> | undefined {
  const checks = Object.entries(args)
    .filter(([, value]) => holdsOutput(value))
    .map(([name, value]) => pulumi.isSecret(pulumi.output(value)).then((secret) => (secret ? name : undefined)));
  if (checks.length === 0) return undefined;
  return pulumi.output(Promise.all(checks).then((names) => {
    const list = names.filter((n): n is string => n !== undefined);
    return list.length > 0 ? list : undefined;
  }));
}

function holdsOutput(value: unknown, depth = 0): boolean {
  if (pulumi.Output.isInstance(value)) return true;
  if (!value || typeof value !== "object" || depth > 8) return false;
  for (const v of Array.isArray(value) ? value : Object.values(value)) if (holdsOutput(v, depth + 1)) return true;
  return false;
}
