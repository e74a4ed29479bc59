/**
 * Which stack a resource belongs to, and whether that stack counts as production.
 * Policies learn the stack only from URNs (`urn:pulumi:<stack>::<project>::...`):
 * the analyzer protocol gives no stack name to a resource or stack validation.
 */
import picomatch from "picomatch";

/** Stack name globs that count as production unless the policy config says otherwise. */
export const DEFAULT_PRODUCTION_STACKS: readonly string[] = ["prod", "prod-*", "production"];

/** The stack part of a URN, or undefined when the URN is not one. */
export function stackOfUrn(urn: string): string | undefined {
  const m = /^urn:pulumi:(.+?)::/.exec(urn);
  return m?.[1];
}

/** Does `stack` match one of the globs (`prod`, `prod-*`)? Case-sensitive, like stack names. */
export function isProductionStack(stack: string | undefined, globs: readonly string[]): boolean {
  if (stack === undefined) return false;
  return globs.some((g) => picomatch.isMatch(stack, g, { dot: true }));
}
