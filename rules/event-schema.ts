/**
 * Event type payload schemas (spec document 2, "Event type and policy"; document 1,
 * `invalid_payload`, `schema_too_large`, `schema_pattern_unsafe`, `schema_ref_unsupported`).
 *
 * Shared by the emulator (which refuses a schema on save and validates payloads on
 * publish) and the provider's preview checks. Everything here is synchronous and pure.
 *
 * A schema is checked in this order; the first problem found is reported:
 *   1. size bounds (SCHEMA_LIMITS): bytes of the compact JSON, nesting depth, object
 *      members, enum values, patterns;
 *   2. remote `$ref` (any `$ref` not starting with `#`);
 *   3. every regular expression (`pattern` values and `patternProperties` keys):
 *      length, compilation (as ajv compiles them: ECMAScript with the `u` flag), safety;
 *   4. draft-7 validity: the draft-7 meta-schema, then compilation by ajv (an
 *      unresolvable local `$ref` is caught here).
 *
 * Pattern safety: recheck (a ReDoS checker based on automata theory, run in its pure
 * JavaScript mode so it needs neither the JVM nor a native binary, works offline and
 * synchronously) decides whether a pattern can backtrack super-linearly. The reason
 * reported is named from the pattern's structure (parsed with regexpp):
 *   - `empty_repeat`: an unbounded repetition of something that can match the empty
 *     string, e.g. `(a*)*`, `(a?)+`, `(|x)+` — refused on structure alone;
 *   - `nested_quantifier`: a vulnerable pattern with a repetition inside an unbounded
 *     repetition, e.g. `(a+)+`, `(\w+\s?)*`, `(a{1,3})+`;
 *   - `ambiguous_alternation`: a vulnerable pattern whose repeated alternation has
 *     alternatives that can start with the same character, e.g. `(a|a)*`, `(\w|\d)+`;
 *   - `too_complex`: vulnerable for another reason (e.g. polynomial `\d*\d*$`), or the
 *     checker could not finish within its time budget.
 * Linear-time patterns with nested repetitions, such as `^([a-z0-9]+\.)*[a-z]+$`, pass.
 */
import Ajv, { type ErrorObject, type ValidateFunction } from "ajv";
import addFormats from "ajv-formats";
import traverse from "json-schema-traverse";
import { RegExpParser, type AST } from "@eslint-community/regexpp";

export const SCHEMA_LIMITS = { bytes: 65536, depth: 32, members: 1000, enumValues: 500, patterns: 100, patternLength: 1000 } as const;

/** Entries of an `invalid_payload` (reason `payload`) are cut at this many; `total` counts them all. */
export const MAX_PAYLOAD_ERRORS = 20;

export type SchemaProblemCode = "invalid_payload" | "schema_too_large" | "schema_pattern_unsafe" | "schema_ref_unsupported";

export interface SchemaProblem {
  code: SchemaProblemCode;
  message: string;
  /** Exactly the spec's `details` for the code. */
  details: Record<string, unknown>;
  /** Where in the schema (a JSON Pointer) the problem is, where the details do not say it: a pattern's place, for the provider's messages. */
  pointer?: string;
}

export type PatternUnsafeReason = "too_long" | "does_not_compile" | "empty_repeat" | "nested_quantifier" | "ambiguous_alternation" | "too_complex";

/** The `$schema` values accepted (draft 7); any other `$schema` is `schema_invalid` at `/$schema`. */
const DRAFT7_URIS = new Set(["http://json-schema.org/draft-07/schema#", "http://json-schema.org/draft-07/schema"]);

/** JSON with object keys sorted at every level: equal for schemas that differ only in key order or formatting. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortKeys(value));
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value !== null && typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(value).sort()) out[k] = sortKeys((value as Record<string, unknown>)[k]);
    return out;
  }
  return value;
}

/** The first problem of a payload schema, or undefined when it may be saved. */
export function schemaProblem(schema: unknown): SchemaProblem | undefined {
  const shape = shapeProblem(schema);
  if (shape) return shape;
  // Nesting is bounded now, so the subschemas can be walked (once, for every later check).
  const found = survey(schema);
  return keywordCountProblem(found) ?? refProblem(found) ?? patternsProblem(found) ?? validityProblem(schema, found);
}

// ---------------------------------------------------------------------------
// 1. Size bounds

const tooLarge = (reason: string, limit: number, message: string, extra: Record<string, unknown> = {}): SchemaProblem => ({
  code: "schema_too_large",
  message,
  details: { reason, limit, ...extra },
});

/** Bytes, depth and members: one iterative walk, so a deep document cannot overflow the stack. */
function shapeProblem(schema: unknown): SchemaProblem | undefined {
  let depth = 0;
  let members = 0;
  const stack: [unknown, number][] = [[schema, 1]];
  while (stack.length > 0) {
    const [value, level] = stack.pop()!;
    if (value === null || typeof value !== "object") continue;
    depth = Math.max(depth, level);
    if (depth > SCHEMA_LIMITS.depth + 1) break; // deep enough to know; stop walking
    const children = Array.isArray(value) ? value : Object.values(value);
    if (!Array.isArray(value)) members += children.length;
    for (const child of children) stack.push([child, level + 1]);
  }
  let bytes: number;
  try {
    bytes = Buffer.byteLength(JSON.stringify(schema), "utf8");
  } catch {
    return tooLarge("depth", SCHEMA_LIMITS.depth, `The schema nests deeper than ${SCHEMA_LIMITS.depth} levels.`);
  }
  if (bytes > SCHEMA_LIMITS.bytes) {
    return tooLarge("bytes", SCHEMA_LIMITS.bytes, `The schema is ${bytes} bytes; at most ${SCHEMA_LIMITS.bytes} are allowed.`, { size: bytes });
  }
  if (depth > SCHEMA_LIMITS.depth) return tooLarge("depth", SCHEMA_LIMITS.depth, `The schema nests deeper than ${SCHEMA_LIMITS.depth} levels.`);
  if (members > SCHEMA_LIMITS.members) {
    return tooLarge("members", SCHEMA_LIMITS.members, `The schema has ${members} object members; at most ${SCHEMA_LIMITS.members} are allowed.`);
  }
  return undefined;
}

/** What the keyword positions of a schema hold, from one walk over its subschemas. */
interface Survey {
  enumValues: number;
  /** `pattern` values and `patternProperties` keys as the walk meets them (a schema's own before its subschemas'), with where each stands (a JSON Pointer). */
  patterns: { pattern: string; pointer: string }[];
  /** The first `$ref` that does not start with `#`. */
  remoteRef?: string;
  /** Any `$ref` or `$id` (then only compiling can tell whether the schema is valid). */
  hasReferences: boolean;
}

function survey(schema: unknown): Survey {
  const found: Survey = { enumValues: 0, patterns: [], hasReferences: false };
  eachSubschema(schema, (sub, pointer) => {
    if (Array.isArray(sub.enum)) found.enumValues += sub.enum.length;
    if (typeof sub.pattern === "string") found.patterns.push({ pattern: sub.pattern, pointer: `${pointer}/pattern` });
    if (isObject(sub.patternProperties)) {
      for (const key of Object.keys(sub.patternProperties)) found.patterns.push({ pattern: key, pointer: `${pointer}/patternProperties/${key.replace(/~/g, "~0").replace(/\//g, "~1")}` });
    }
    if ("$ref" in sub || "$id" in sub) found.hasReferences = true;
    if (found.remoteRef === undefined && typeof sub.$ref === "string" && !sub.$ref.startsWith("#")) found.remoteRef = sub.$ref;
  });
  return found;
}

function keywordCountProblem({ enumValues, patterns: { length: patterns } }: Survey): SchemaProblem | undefined {
  if (enumValues > SCHEMA_LIMITS.enumValues) {
    return tooLarge("enum_values", SCHEMA_LIMITS.enumValues, `The schema lists ${enumValues} enum values; at most ${SCHEMA_LIMITS.enumValues} are allowed.`);
  }
  if (patterns > SCHEMA_LIMITS.patterns) {
    return tooLarge("patterns", SCHEMA_LIMITS.patterns, `The schema has ${patterns} patterns; at most ${SCHEMA_LIMITS.patterns} are allowed.`);
  }
  return undefined;
}

/** Each subschema of a schema (keyword positions only: a property named `pattern` is not a pattern). */
function eachSubschema(schema: unknown, cb: (sub: Record<string, unknown>, pointer: string) => void): void {
  if (schema === null || typeof schema !== "object" || Array.isArray(schema)) return;
  traverse(schema as traverse.SchemaObject, { allKeys: false }, (sub, pointer) => cb(sub, pointer));
}

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === "object" && !Array.isArray(v);

// ---------------------------------------------------------------------------
// 2. Remote references

function refProblem({ remoteRef }: Survey): SchemaProblem | undefined {
  if (remoteRef === undefined) return undefined;
  return { code: "schema_ref_unsupported", message: `Remote $ref "${remoteRef}" is not supported; use local references (#/definitions/...).`, details: { ref: remoteRef } };
}

// ---------------------------------------------------------------------------
// 3. Regular expressions

function patternsProblem({ patterns }: Survey): SchemaProblem | undefined {
  for (const { pattern, pointer } of patterns) {
    const reason = patternUnsafeReason(pattern);
    if (reason) return { ...patternProblem(pattern, reason), pointer };
  }
  return undefined;
}

const REASON_TEXT: Record<PatternUnsafeReason, string> = {
  too_long: `is longer than ${SCHEMA_LIMITS.patternLength} characters`,
  does_not_compile: "does not compile as an ECMAScript regular expression (u flag)",
  empty_repeat: "repeats without bound something that can match the empty string",
  nested_quantifier: "nests quantifiers in a way that can backtrack exponentially",
  ambiguous_alternation: "repeats an alternation whose branches overlap, which can backtrack exponentially",
  too_complex: "can take super-linear time to match (or is too complex to prove safe)",
};

function patternProblem(pattern: string, reason: PatternUnsafeReason): SchemaProblem {
  const shown = pattern.length > 80 ? `${pattern.slice(0, 77)}...` : pattern;
  const details: Record<string, unknown> = { reason, pattern };
  if (reason === "too_long") details.limit = SCHEMA_LIMITS.patternLength;
  return { code: "schema_pattern_unsafe", message: `Pattern /${shown}/ ${REASON_TEXT[reason]}.`, details };
}

const parser = new RegExpParser({ ecmaVersion: 2025 });
const verdicts = new Map<string, PatternUnsafeReason | null>();
const MAX_CACHED_VERDICTS = 2000;
/** Per-pattern budget of the ReDoS checker, in milliseconds. */
const CHECK_TIMEOUT_MS = 1000;

/** Why a pattern is refused, or undefined when it is safe. Results are cached per pattern. */
export function patternUnsafeReason(pattern: string): PatternUnsafeReason | undefined {
  if (pattern.length > SCHEMA_LIMITS.patternLength) return "too_long";
  let cached = verdicts.get(pattern);
  if (cached === undefined) {
    cached = judgePattern(pattern);
    if (verdicts.size >= MAX_CACHED_VERDICTS) verdicts.clear();
    verdicts.set(pattern, cached);
  }
  return cached ?? undefined;
}

function judgePattern(pattern: string): PatternUnsafeReason | null {
  let ast: AST.Pattern;
  try {
    new RegExp(pattern, "u");
    ast = parser.parsePattern(pattern, 0, pattern.length, { unicode: true });
  } catch {
    return "does_not_compile";
  }
  const shape = analyse(ast);
  if (shape.emptyRepeat) return "empty_repeat";
  const verdict = redosVerdict(pattern);
  if (verdict === "safe") return null;
  if (verdict === "unsupported" && !shape.nested && !shape.ambiguous) return null;
  if (shape.nested) return "nested_quantifier";
  if (shape.ambiguous) return "ambiguous_alternation";
  return "too_complex";
}

type Verdict = "safe" | "vulnerable" | "unknown" | "unsupported";

let checkerWarm = false;

function redosVerdict(pattern: string): Verdict {
  // Pure JavaScript backend: synchronous, offline, no JVM or native binary.
  process.env.RECHECK_SYNC_BACKEND ??= "pure";
  // Loaded on first use: the checker is a large module that most processes never need.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { checkSync } = require("recheck") as typeof import("recheck");
  // The first check of a process pays the checker's start-up (seconds on a busy
  // machine) inside its budget, and a simple safe pattern came back "too_complex":
  // warm it up once, and give a timed-out pattern one more budget.
  if (!checkerWarm) {
    checkSync("a+", "u");
    checkerWarm = true;
  }
  let d = checkSync(pattern, "u", { timeout: CHECK_TIMEOUT_MS });
  if (d.status === "unknown" && d.error.kind === "timeout") d = checkSync(pattern, "u", { timeout: CHECK_TIMEOUT_MS });
  if (d.status === "safe") return "safe";
  if (d.status === "vulnerable") return "vulnerable";
  return d.error.kind === "unsupported" ? "unsupported" : "unknown";
}

interface Shape {
  emptyRepeat: boolean;
  nested: boolean;
  ambiguous: boolean;
}

/** Structural facts about a parsed pattern (see the file comment). */
function analyse(pattern: AST.Pattern): Shape {
  const shape: Shape = { emptyRepeat: false, nested: false, ambiguous: false };
  const visit = (node: AST.Node, insideUnbounded: boolean): void => {
    switch (node.type) {
      case "Pattern":
      case "Group":
      case "CapturingGroup":
      case "Assertion":
        if ("alternatives" in node) {
          if (insideUnbounded && node.alternatives.length > 1 && alternativesOverlap(node.alternatives)) shape.ambiguous = true;
          for (const alt of node.alternatives) visit(alt, insideUnbounded);
        }
        return;
      case "Alternative":
        for (const el of node.elements) visit(el, insideUnbounded);
        return;
      case "Quantifier": {
        const unbounded = node.max === Infinity;
        if (unbounded && canBeEmpty(node.element)) shape.emptyRepeat = true;
        if (insideUnbounded && node.max > 1) shape.nested = true;
        visit(node.element, insideUnbounded || unbounded);
        return;
      }
      default:
        return;
    }
  };
  visit(pattern, false);
  return shape;
}

function canBeEmpty(node: AST.Node): boolean {
  switch (node.type) {
    case "Alternative":
      return node.elements.every(canBeEmpty);
    case "Group":
    case "CapturingGroup":
    case "Pattern":
      return node.alternatives.some(canBeEmpty);
    case "Quantifier":
      return node.min === 0 || canBeEmpty(node.element);
    case "Assertion":
    case "Backreference":
      return true;
    default:
      return false;
  }
}

// First-character sets, as sorted code point ranges; approximate but conservative
// (classes we cannot enumerate, such as \p{...} or `.`, count as "anything").

type Ranges = [number, number][];
const ANY: Ranges = [[0, 0x10ffff]];
const DIGIT: Ranges = [[48, 57]];
const WORD: Ranges = [[48, 57], [65, 90], [95, 95], [97, 122]];
const SPACE: Ranges = [[9, 13], [32, 32], [160, 160], [0x1680, 0x1680], [0x2000, 0x200a], [0x2028, 0x2029], [0x202f, 0x202f], [0x205f, 0x205f], [0x3000, 0x3000], [0xfeff, 0xfeff]];

function normalise(r: Ranges): Ranges {
  const sorted = [...r].sort((a, b) => a[0] - b[0]);
  const out: Ranges = [];
  for (const [lo, hi] of sorted) {
    const last = out[out.length - 1];
    if (last && lo <= last[1] + 1) last[1] = Math.max(last[1], hi);
    else out.push([lo, hi]);
  }
  return out;
}

function complement(r: Ranges): Ranges {
  const out: Ranges = [];
  let next = 0;
  for (const [lo, hi] of normalise(r)) {
    if (lo > next) out.push([next, lo - 1]);
    next = hi + 1;
  }
  if (next <= 0x10ffff) out.push([next, 0x10ffff]);
  return out;
}

const intersects = (a: Ranges, b: Ranges) => a.some(([alo, ahi]) => b.some(([blo, bhi]) => alo <= bhi && blo <= ahi));

function charSetRanges(node: AST.Node): Ranges {
  switch (node.type) {
    case "Character":
      return [[node.value, node.value]];
    case "CharacterClassRange":
      return [[node.min.value, node.max.value]];
    case "CharacterSet": {
      if (node.kind === "any" || node.kind === "property") return ANY;
      const base = node.kind === "digit" ? DIGIT : node.kind === "word" ? WORD : SPACE;
      return node.negate ? complement(base) : base;
    }
    case "CharacterClass": {
      const inner = normalise(node.elements.flatMap((e) => charSetRanges(e)));
      return node.negate ? complement(inner) : inner;
    }
    default:
      return ANY;
  }
}

/** The characters a node's match can start with (ANY when unknown). */
function firstChars(node: AST.Node): Ranges {
  switch (node.type) {
    case "Character":
    case "CharacterClass":
    case "CharacterSet":
      return charSetRanges(node);
    case "Alternative": {
      const out: Ranges = [];
      for (const el of node.elements) {
        out.push(...firstChars(el));
        if (!canBeEmpty(el)) break;
      }
      return normalise(out);
    }
    case "Group":
    case "CapturingGroup":
      return normalise(node.alternatives.flatMap((a) => firstChars(a)));
    case "Quantifier":
      return firstChars(node.element);
    case "Assertion":
      return [];
    default:
      return ANY;
  }
}

function alternativesOverlap(alternatives: AST.Alternative[]): boolean {
  const sets = alternatives.map(firstChars);
  for (let i = 0; i < sets.length; i++) for (let j = i + 1; j < sets.length; j++) if (intersects(sets[i]!, sets[j]!)) return true;
  return false;
}

// ---------------------------------------------------------------------------
// 4. Draft-7 validity, and payload validation

/**
 * The one ajv configuration for saving (meta-schema) and publishing (payloads): draft
 * 7, every error collected (`total` counts them), formats of ajv-formats. Draft 7 lets
 * a schema carry unknown keywords and unknown formats (they are annotations), so ajv's
 * strict mode, which would refuse them, is off; the meta-schema and compilation are
 * strict. Schemas compile on one shared instance, which then forgets the schema so
 * that two event types may use the same `$id` (an instance keeps every `$id` it has
 * seen); a schema whose nested `$id`s still clash compiles on an instance of its own.
 * Building an instance (formats included) costs far more than compiling, so sharing
 * one is what keeps a preview of many event types fast.
 */
function newAjv(): Ajv {
  const ajv = new Ajv({ allErrors: true, strict: false, logger: false, validateSchema: false });
  addFormats(ajv);
  return ajv;
}
const meta = newAjv();
const shared = newAjv();
const compiled = new Map<string, ValidateFunction>();
const MAX_COMPILED = 500;

const schemaInvalid = (path: string, message: string): SchemaProblem => ({
  code: "invalid_payload",
  message: `The payload schema is not valid JSON Schema draft 7: ${message}`,
  details: { reason: "schema_invalid", path },
});

function validityProblem(schema: unknown, { hasReferences }: Survey): SchemaProblem | undefined {
  if (!isObject(schema)) return schemaInvalid("", "the schema must be an object");
  if ("$schema" in schema && !(typeof schema.$schema === "string" && DRAFT7_URIS.has(schema.$schema))) {
    return schemaInvalid("/$schema", "only draft 7 (http://json-schema.org/draft-07/schema#) is supported");
  }
  const { $schema: _ignored, ...rest } = schema;
  if (!meta.validateSchema(rest)) {
    const err = meta.errors![0]!;
    return schemaInvalid(err.instancePath, `${err.instancePath || "the schema"} ${err.message ?? "is invalid"}`);
  }
  // Beyond the meta-schema, compiling can only refuse what references decide (a `$ref`
  // that does not resolve, `$id` bookkeeping), and it costs ~1 ms of code generation:
  // compile here only when the schema has references. Payloads compile on first use.
  if (!hasReferences) return undefined;
  try {
    compile(schema);
  } catch (e) {
    const missing = (e as { missingRef?: string }).missingRef;
    if (missing !== undefined) return schemaInvalid(refPointer(schema, missing), `the reference ${missing} cannot be resolved`);
    return schemaInvalid("", (e as Error).message);
  }
  return undefined;
}

/** JSON Pointer of the first `$ref` whose value resolves to `missing` (ajv reports it normalised). */
function refPointer(schema: unknown, missing: string): string {
  let found: string | undefined;
  eachSubschema(schema, (sub, pointer) => {
    if (found === undefined && typeof sub.$ref === "string" && (missing.endsWith(sub.$ref) || sub.$ref.endsWith(missing.replace(/^.*#/, "#")))) {
      found = `${pointer}/$ref`;
    }
  });
  return found ?? "";
}

/** Compile once per distinct schema (canonical form), with a bounded cache. */
function compile(schema: Record<string, unknown>): ValidateFunction {
  const key = canonicalJson(schema);
  let fn = compiled.get(key);
  if (!fn) {
    if (compiled.size >= MAX_COMPILED) compiled.clear();
    fn = compileOnShared(structuredClone(schema));
    compiled.set(key, fn);
  }
  return fn;
}

function compileOnShared(schema: Record<string, unknown>): ValidateFunction {
  try {
    return shared.compile(schema);
  } catch (e) {
    // Another schema's nested `$id` is still known to the shared instance.
    if (!/already exists/.test((e as Error).message)) throw e;
    return newAjv().compile(schema);
  } finally {
    shared.removeSchema(schema);
  }
}

export interface PayloadErrorEntry {
  path: string;
  keyword: string;
  params: Record<string, unknown>;
}

const SPEC_KEYWORDS = new Set(["required", "type", "enum", "const", "minimum", "maximum", "minLength", "maxLength", "minItems", "maxItems", "pattern", "format", "additionalProperties"]);

/** One ajv error as the spec's entry: no regex, allowed values or failing value ever. */
function entryOf(err: ErrorObject): PayloadErrorEntry {
  const keyword = SPEC_KEYWORDS.has(err.keyword) ? err.keyword : "other";
  const p = err.params as Record<string, unknown>;
  let params: Record<string, unknown> = {};
  switch (keyword) {
    case "required":
      params = { property: p.missingProperty };
      break;
    case "additionalProperties":
      params = { property: p.additionalProperty };
      break;
    case "type": {
      const t = p.type;
      if (typeof t === "string" && !t.includes(",")) params = { type: t };
      break;
    }
    case "minimum":
    case "maximum":
      params = { limit: p.limit };
      break;
    case "minLength":
    case "maxLength":
    case "minItems":
    case "maxItems":
      params = { count: p.limit };
      break;
  }
  return { path: err.instancePath, keyword, params };
}

/** The 422 `invalid_payload` (reason `payload`) for a payload failing `schema`, or undefined when it passes. */
export function payloadProblem(schema: Record<string, unknown>, payload: unknown): SchemaProblem | undefined {
  const validate = compile(schema);
  if (validate(payload)) return undefined;
  const all = (validate.errors ?? []).map(entryOf);
  return {
    code: "invalid_payload",
    message: `The payload does not match the event type's schema (${all.length} error${all.length === 1 ? "" : "s"}).`,
    details: { reason: "payload", errors: all.slice(0, MAX_PAYLOAD_ERRORS), total: all.length },
  };
}
