/**
 * The props a resource class hands to `dynamic.Resource`: every input and output name
 * present, set to the argument or `undefined` (an output whose name is absent from the
 * props is never resolved: pulumi/pulumi#2931, #5174).
 */
export function resourceProps<A extends object>(args: A, inputs: readonly (keyof A & string)[], outputs: readonly string[]): Record<string, unknown> {
  const props: Record<string, unknown> = {};
  for (const name of inputs) props[name] = args[name];
  for (const name of outputs) props[name] = undefined;
  return props;
}
