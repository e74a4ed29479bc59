/**
 * check: validate the declared inputs locally so that preview fails where the API
 * would refuse, with the property path, the limit and the API's own entry type.
 * Values preview does not know yet are skipped, never guessed.
 */
import type { z } from "zod";
import type { RuleViolation } from "../../rules/types";
import { apiPathToProperty, asIs, fieldEntries, formatPropertyPath, isInputField, type CheckFailure, type Props, type ResourceDefinition } from "./fields";
import { isUnknown, neutraliseUnknowns, touchesUnknown, unknownPaths, type PathSegment } from "./unknown";

export const PROVIDER_KEY = "__provider";

/** The declared inputs with defaults filled in, plus every local failure. */
export function checkInputs(def: ResourceDefinition, news: Props): { inputs: Props; failures: CheckFailure[] } {
  const inputs: Props = { ...news };
  const failures: CheckFailure[] = [];
  for (const [name, spec] of fieldEntries(def)) {
    if (!isInputField(spec)) {
      // An output is never an input; drop anything sent under its name.
      delete inputs[name];
      continue;
    }
    if ((inputs[name] === undefined || inputs[name] === null) && spec.default !== undefined) inputs[name] = spec.default;
    const value = inputs[name];
    if (value === undefined || !spec.input) continue;
    failures.push(...schemaFailures(name, spec.input, value));
  }
  // Shared rules see the API's body; a field the schema already refused is not re-judged.
  if (def.rules) {
    const refused = new Set(failures.map((f) => f.property.split(/[.[]/)[0]));
    const { body, unknowns } = apiBodyForRules(def, inputs, refused);
    for (const v of def.rules(body)) {
      if (touchesUnknown(v.path, unknowns)) continue;
      failures.push(violationFailure(def, v));
    }
  }
  return { inputs, failures };
}

/** A rule violation as a check failure: the camelCase property, the message, the API's entry type and limit. */
export function violationFailure(def: ResourceDefinition, v: RuleViolation): CheckFailure {
  return { property: apiPathToProperty(def.fields, v.path), reason: `${v.msg} (${v.type}${describeParams(v.params)})` };
}

function describeParams(params: Record<string, unknown> | undefined): string {
  if (!params) return "";
  return Object.entries(params)
    .map(([k, val]) => `, ${k} ${JSON.stringify(val)}`)
    .join("");
}

/** zod issues of one field, except where a value is unknown; named with the API's entry types. */
function schemaFailures(name: string, schema: z.ZodType, value: unknown): CheckFailure[] {
  if (isUnknown(value)) return [];
  const result = schema.safeParse(value);
  if (result.success) return [];
  const unknowns = unknownPaths(value);
  return result.error.issues
    .filter((issue) => !touchesUnknown(issue.path as PathSegment[], unknowns))
    .map((issue) => ({
      property: formatPropertyPath([name, ...(issue.path as PathSegment[])]),
      reason: `${issue.message} (${apiEntryType(issue)})`,
    }));
}

/** The spec's validation entry type for a zod issue, with its limit. */
function apiEntryType(issue: z.core.$ZodIssue): string {
  const limitOf = (i: { maximum?: unknown; minimum?: unknown }) => i.maximum ?? i.minimum;
  switch (issue.code) {
    case "too_big": {
      const size = issue.origin === "string" || issue.origin === "array";
      return `${size ? (issue.origin === "string" ? "string_too_long" : "too_long") : "less_than_equal"}, ${size ? "count" : "limit"} ${String(limitOf(issue))}`;
    }
    case "too_small": {
      const size = issue.origin === "string" || issue.origin === "array";
      return `${size ? (issue.origin === "string" ? "string_too_short" : "too_short") : "greater_than_equal"}, ${size ? "count" : "limit"} ${String(limitOf(issue))}`;
    }
    case "invalid_type":
      return issue.input === undefined ? "missing" : `type, expected ${issue.expected}`;
    case "invalid_value":
      return "enum";
    default:
      return issue.code;
  }
}

/** API-shaped body for the rules: unknown top-level fields left out, nested unknowns neutral. */
function apiBodyForRules(def: ResourceDefinition, inputs: Props, refused: Set<string | undefined>): { body: Props; unknowns: PathSegment[][] } {
  const body: Props = {};
  const unknowns: PathSegment[][] = [];
  for (const [name, spec] of fieldEntries(def)) {
    if (!spec.api || !isInputField(spec) || refused.has(name)) continue;
    const value = inputs[name];
    if (value === undefined || value === null) continue;
    if (isUnknown(value)) {
      unknowns.push([spec.api]);
      continue;
    }
    const apiValue = (spec.codec ?? asIs).toApi(value);
    for (const p of unknownPaths(apiValue)) unknowns.push([spec.api, ...p]);
    body[spec.api] = neutraliseUnknowns(apiValue);
  }
  return { body, unknowns };
}
