/**
 * The props a resource class hands to `dynamic.Resource`: every input and output name
 * present, set to the argument or `undefined` (an output whose name is absent from the
 * props is never resolved: pulumi/pulumi#2931, #5174).
 */
import * as pulumi from "@pulumi/pulumi";

import { RESOURCE_KEY, resourceIdentity, SECRET_INPUTS_KEY } from "../provider/engine/internal-keys";

export function resourceProps<A extends object>(resourceName: string, args: A, inputs: readonly (keyof A & string)[], outputs: readonly string[]): Record<string, unknown> {
  const props: Record<string, unknown> = {};
  for (const name of inputs) props[name] = args[name];
  for (const name of outputs) props[name] = undefined;
  return withProgramArgs(resourceName, props, args);
}

/**
 * The resource's name in the program, for the kinds whose checks tell two resources of a
 * program apart by it (`resourceName`); none after `get`. Set either way, so the output resolves.
 */
export function programName(name: string, opts: pulumi.CustomResourceOptions | undefined): string | undefined {
  return opts?.id === undefined ? name : undefined;
}

/**
 * Three things only the program process knows, added to a resource's props:
 * - which resource this is (stack, project and name, as its URN says them): the
 *   dynamic provider's create is told no URN, and the create replacing an entry that
 *   keeps an open question is matched to it by this (provider/engine/open-question.ts);
 * - arguments the class does not declare (a misspelling in JavaScript, or TypeScript run
 *   without type-checking), passed on as given so that the provider's check names them
 *   with the nearest known argument instead of dropping them;
 * - which arguments are secrets: the plugin receives every input in plaintext, so the
 *   provider learns from this list of names (never values) what to keep out of messages.
 */
export function withProgramArgs(resourceName: string, props: Record<string, unknown>, args: object): Record<string, unknown> {
  for (const [name, value] of Object.entries(args)) if (!(name in props) && value !== undefined) props[name] = value;
  props[RESOURCE_KEY] = resourceIdentity(pulumi.getStack(), pulumi.getProject(), resourceName);
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
