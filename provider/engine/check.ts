/**
 * check: validate the declared inputs locally so that preview fails where the API
 * would refuse, with the property path, the limit and the API's own entry type.
 * Values preview does not know yet are skipped, never guessed.
 */
import type { z } from "zod";
import { didYouMean, isPluralNoun, sentenceCase, withArticle } from "../../rules/names";
import { adoptionConflicts } from "./adoption";
import type { RuleViolation } from "../../rules/types";
import { apiPathToProperty, asIs, fieldEntries, formatPropertyPath, isInputField, type CheckFailure, type Props, type ResourceDefinition } from "./fields";
import { markShapedOwnerField } from "./owner";
import { OWNER_KEY, PROVIDER_KEY, RESOURCE_KEY, SECRET_INPUTS_KEY } from "./internal-keys";
import { isUnknown, neutraliseUnknowns, touchesUnknown, unknownPaths, UNKNOWN, type PathSegment } from "./unknown";

/** Keys the SDK and the front ends add to the inputs besides the fields. */
const INTERNAL_KEYS: ReadonlySet<string> = new Set([PROVIDER_KEY, SECRET_INPUTS_KEY, RESOURCE_KEY, OWNER_KEY]);

/** The declared inputs with defaults filled in, plus every local failure. */
export function checkInputs(def: ResourceDefinition, news: Props): { inputs: Props; failures: CheckFailure[] } {
  const inputs: Props = { ...news };
  const failures: CheckFailure[] = unknownArguments(def, news);
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
  // Shared rules see the API's body; a field the schema already refused is not re-judged (left out of the body, it
  // would read as missing: one failure per problem).
  if (def.rules) {
    const refused = failedFields(failures);
    const { body, unknowns } = apiBodyForRules(def, inputs, refused);
    for (const v of def.rules(body)) {
      if (touchesUnknown(v.path, unknowns)) continue;
      const failure = violationFailure(def, v);
      if (!refused.has(topField(failure.property))) failures.push(failure);
    }
  }
  failures.push(...markShapedOwnerField(def, inputs));
  // A field only a create takes, given with adoption: the inputs alone show the create would refuse it.
  failures.push(...adoptionConflicts(def, inputs));
  failures.push(...missingRequired(def, inputs, failures));
  return { inputs, failures };
}

/**
 * A required argument left out (a JavaScript, YAML or Python program has no type checker
 * to say so), unless a rule already named it with the service's own words.
 */
function missingRequired(def: ResourceDefinition, inputs: Props, failures: CheckFailure[]): CheckFailure[] {
  const named = failedFields(failures);
  return fieldEntries(def)
    .filter(([name, spec]) => spec.required && isInputField(spec) && (inputs[name] === undefined || inputs[name] === null) && !named.has(name))
    .map(([name, spec]) => ({ property: name, reason: `missing required argument ${name}. ${spec.description ?? ""}`.trim() }));
}

/** The top-level fields the failures name (`subscriptions[1].eventType` → `subscriptions`). */
const failedFields = (failures: CheckFailure[]) => new Set(failures.map((f) => topField(f.property)));
const topField = (property: string) => property.split(/[.[]/)[0];

/**
 * A misspelled argument (`transprot`) would otherwise be dropped silently (an email
 * inbox created instead of a bin): each name that is no field fails, with the nearest one.
 */
function unknownArguments(def: ResourceDefinition, news: Props): CheckFailure[] {
  const failures: CheckFailure[] = [];
  for (const key of Object.keys(news)) {
    if (Object.hasOwn(def.fields, key) || INTERNAL_KEYS.has(key)) continue;
    failures.push({ property: key, reason: `unknown argument ${key}${didYouMean(key, inputNames(def))}. ${sentenceCase(withArticle(def.noun))} ${isPluralNoun(def.noun) ? "take" : "takes"} ${inputNames(def).join(", ")}` });
  }
  return failures;
}

const inputNames = (def: ResourceDefinition) => fieldEntries(def).filter(([, spec]) => isInputField(spec)).map(([name]) => name);

/** A rule violation as a check failure: the camelCase property, the message, the API's entry type and limit. */
export function violationFailure(def: ResourceDefinition, v: RuleViolation): CheckFailure {
  const params = Object.entries(v.params ?? {}).map(([k, val]) => `, ${k} ${JSON.stringify(val)}`);
  return { property: apiPathToProperty(def.fields, v.path), reason: `${v.msg} (${v.type}${params.join("")})` };
}

/** zod issues of one field, except where a value is unknown; named with the API's entry types. */
function schemaFailures(name: string, schema: z.ZodType, value: unknown): CheckFailure[] {
  if (isUnknown(value)) return [];
  // reportInput: the type of a wrong value is named (never the value: it may be a secret).
  const result = schema.safeParse(value, { reportInput: true });
  if (result.success) return [];
  const unknowns = unknownPaths(value);
  const issues = result.error.issues.filter((issue) => !touchesUnknown(issue.path as PathSegment[], unknowns));
  return issues
    .filter((issue) => !issues.some((other) => looser(issue, other)))
    .flatMap((issue) => {
      const path = [name, ...(issue.path as PathSegment[])];
      if (issue.code === "unrecognized_keys") {
        // A misspelled key inside an object (a subscription's `evenType`): one failure per key.
        const known = objectKeysAt(schema, issue.path as PathSegment[]);
        return issue.keys.map((key) => ({ property: formatPropertyPath([...path, key]), reason: `unknown argument ${key}${didYouMean(key, known)} (extra_forbidden)` }));
      }
      // A nested field left out: said as a top-level one is (zod's own words name the type it got, `undefined`).
      if (issue.code === "invalid_type" && issue.input === undefined) return [{ property: formatPropertyPath(path), reason: `missing required argument ${String(path[path.length - 1])} (missing)` }];
      return [{ property: formatPropertyPath(path), reason: `${issue.message} (${apiEntryType(issue)})` }];
    });
}

/**
 * Whether `issue` is a bound of the same kind at the same path as `other`, but looser: a value
 * past two maximums (zod's safe-integer bound of `.int()` and the field's own) is one problem,
 * named by the tighter bound.
 */
function looser(issue: z.core.$ZodIssue, other: z.core.$ZodIssue): boolean {
  if (issue === other || issue.code !== other.code || issue.path.join("/") !== other.path.join("/")) return false;
  if (issue.code === "too_big" && other.code === "too_big") return Number(other.maximum) < Number(issue.maximum);
  if (issue.code === "too_small" && other.code === "too_small") return Number(other.minimum) > Number(issue.minimum);
  return false;
}

/** The keys an object schema at `path` (array indexes included) takes. */
function objectKeysAt(schema: z.ZodType, path: PathSegment[]): string[] {
  let def = (schema as unknown as { _zod: { def: ZodDefShape } })._zod.def;
  const inner = (d: ZodDefShape): ZodDefShape => (d.innerType ? inner(d.innerType._zod.def) : d);
  for (const seg of path) {
    def = inner(def);
    const next = def.type === "array" ? def.element : def.type === "object" ? def.shape?.[String(seg)] : def.type === "record" ? def.valueType : undefined;
    if (!next) return [];
    def = next._zod.def;
  }
  def = inner(def);
  return def.type === "object" && def.shape ? Object.keys(def.shape) : [];
}

interface ZodDefShape {
  type: string;
  innerType?: { _zod: { def: ZodDefShape } };
  element?: { _zod: { def: ZodDefShape } };
  valueType?: { _zod: { def: ZodDefShape } };
  shape?: Record<string, { _zod: { def: ZodDefShape } }>;
}

/** The spec's validation entry type for a zod issue, with its limit. */
function apiEntryType(issue: z.core.$ZodIssue): string {
  switch (issue.code) {
    case "too_big":
    case "too_small": {
      const [end, bound, limit] = issue.code === "too_big" ? ["long", "less_than_equal", issue.maximum] : ["short", "greater_than_equal", issue.minimum];
      const size = issue.origin === "string" || issue.origin === "array";
      return `${size ? (issue.origin === "string" ? `string_too_${end}` : `too_${end}`) : bound}, ${size ? "count" : "limit"} ${String(limit)}`;
    }
    case "invalid_type": {
      const given = issue.input === null ? "null" : Array.isArray(issue.input) ? "array" : typeof issue.input;
      return issue.input === undefined ? "missing" : `type, expected ${issue.expected}, given ${given}`;
    }
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
    const value = withListedKeys(inputs[name], spec.keysIn === undefined ? undefined : inputs[spec.keysIn]);
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

/**
 * A map with the keys its SDK listed (`keysIn`) that it lacks, their values unknown: the whole map when it is
 * unknown (a secret map with one unknown value), or a key serialization lost (`__proto__`). Names only, so the
 * rules judge the names (and counts and sizes as lower bounds), never a value.
 */
function withListedKeys(value: unknown, keys: unknown): unknown {
  if (!Array.isArray(keys) || !keys.every((k): k is string => typeof k === "string" && !isUnknown(k))) return value;
  const known = isUnknown(value) ? {} : value;
  if (known === undefined || known === null || typeof known !== "object" || Array.isArray(known)) return value;
  const missing = keys.filter((k) => !Object.hasOwn(known, k));
  if (missing.length === 0) return value;
  const out: Props = { ...(known as Props) };
  // defineProperty: an assignment of "__proto__" would set the prototype, not a key.
  for (const k of missing) Object.defineProperty(out, k, { value: UNKNOWN, enumerable: true, writable: true, configurable: true });
  return out;
}
