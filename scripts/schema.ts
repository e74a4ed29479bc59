/**
 * Part of `npm run generate` (scripts/generate.ts): makes, from the resource definitions (provider/registry.ts) and
 * provider/config-keys.ts, the one source of what each field is:
 *
 * - schema.json, the Pulumi package schema of `svc`: a resource per kind
 *   (`svc:webhooks:Endpoint`, ...) with its arguments (`inputProperties`,
 *   `requiredInputs`), outputs (`properties`, `required`: the ones never null), secrets,
 *   descriptions, primitive defaults, and enums and object types hoisted to `types`;
 *   every `svc:` key as provider config; the data functions that read one kind's
 *   objects (see FUNCTIONS for which, and which are left out);
 * - policy/lib/inputs.ts, the policy pack's input types: plain types, so generated.
 *
 * Types come from each field's zod schema through `z.toJSONSchema`, then into Pulumi's
 * type system (primitives, arrays, maps, `$ref`s). The reference pages (scripts/docs.ts)
 * read this schema.
 *
 * The TypeScript SDK classes are made from this schema (scripts/sdk-classes.ts).
 *
 * test/schema/generated.test.ts fails when the committed files differ from these;
 * test/schema/schema.test.ts runs the real CLI's schema binder (the metaschema included) on schema.json.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { CONFIG_KEYS } from "../provider/config-keys";
import { sentenceCase, withArticle } from "../rules/names";
import { fieldEntries, isInputField, type FieldSpec, type ResourceDefinition } from "../provider/engine/fields";
import { READ_FUNCTIONS, type ReadFunction } from "../provider/functions";
import { DEFINITIONS } from "../provider/registry";
import type { ResourceKind } from "../sdk/tokens";

const ROOT = join(__dirname, "..");
export const SCHEMA_FILE = join(ROOT, "schema.json");
export const POLICY_INPUTS_FILE = join(ROOT, "policy/lib/inputs.ts");
const PACKAGE = "svc";
const ANY = "pulumi.json#/Any";

/* ---------- Pulumi's schema, the parts used ---------- */

export interface TypeSpec {
  type?: "string" | "integer" | "number" | "boolean" | "array" | "object";
  items?: TypeSpec;
  additionalProperties?: TypeSpec;
  $ref?: string;
  oneOf?: TypeSpec[];
  /**
   * Ours, not Pulumi's (left out of schema.json): an Any that is a JSON object, which the TypeScript SDK types as
   * `Record<string, unknown>` (see `convert`).
   */
  jsonObject?: true;
}
export interface PropertySpec extends TypeSpec {
  description?: string;
  /** A change replaces the resource (the definition's `createOnly`). */
  replaceOnChanges?: boolean;
  secret?: boolean;
  default?: string | number | boolean;
  defaultInfo?: { environment: string[] };
}
export interface ObjectTypeSpec {
  type: "object";
  description?: string;
  properties: Record<string, PropertySpec>;
  required?: string[];
}
export interface EnumTypeSpec {
  type: "string";
  description?: string;
  enum: { value: string }[];
}
export type ComplexTypeSpec = ObjectTypeSpec | EnumTypeSpec;
export interface ResourceSpec extends Omit<ObjectTypeSpec, "type"> {
  inputProperties: Record<string, PropertySpec>;
  requiredInputs?: string[];
}
export interface FunctionSpec {
  description: string;
  inputs: ObjectTypeSpec;
  outputs: ObjectTypeSpec | TypeSpec;
}
export interface PackageSpec {
  name: string;
  displayName: string;
  description: string;
  version: string;
  license: string;
  keywords: string[];
  config: { variables: Record<string, PropertySpec> };
  provider: { description: string; inputProperties: Record<string, PropertySpec> };
  resources: Record<string, ResourceSpec>;
  types: Record<string, ComplexTypeSpec>;
  functions: Record<string, FunctionSpec>;
  /** Where the engine downloads the plugin: GitHub releases of pulumi-svc/pulumi-svc, tag `v<version>`. */
  pluginDownloadURL: string;
  /** What `pulumi package gen-sdk` reads for one language. */
  language: {
    nodejs: { packageName: string };
    python: { packageName: string; respectSchemaVersion: boolean };
    go: { importBasePath: string; generateResourceContainerTypes: boolean; respectSchemaVersion: boolean };
  };
}

/** `webhooks:Endpoint` → `svc:webhooks:Endpoint`. */
export const resourceToken = (kind: ResourceKind) => `${PACKAGE}:${kind}`;
const typeRef = (module: string, name: string) => `#/types/${PACKAGE}:${module}:${name}`;
const pascal = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

/* ---------- zod → Pulumi types ---------- */

interface JsonSchema {
  type?: string | string[];
  enum?: unknown[];
  anyOf?: JsonSchema[];
  items?: JsonSchema;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: JsonSchema | boolean;
  title?: string;
  description?: string;
}

const jsonSchemaOf = (schema: z.ZodType) => z.toJSONSchema(schema, { unrepresentable: "any", io: "input" }) as JsonSchema;

/** `X | null` says only that the value may be absent: Pulumi types have no null. */
function withoutNull(json: JsonSchema): { json: JsonSchema; nullable: boolean } {
  if (Array.isArray(json.type) && json.type.includes("null")) {
    const types = json.type.filter((t) => t !== "null");
    return { json: { ...json, type: types.length === 1 ? types[0] : types }, nullable: true };
  }
  const rest = json.anyOf?.filter((s) => s.type !== "null");
  if (rest && rest.length < json.anyOf!.length) return { json: rest.length === 1 ? { ...rest[0], description: json.description ?? rest[0]!.description } : { ...json, anyOf: rest }, nullable: true };
  return { json, nullable: false };
}

/** Turns zod's JSON Schema into Pulumi types, hoisting enums and objects into `types` under their `title` (or a name made from where they are). */
class TypeMaker {
  readonly types: Record<string, ComplexTypeSpec> = {};

  constructor(private readonly module: string) {}

  of(schema: z.ZodType, nameHint: string): { spec: TypeSpec; nullable: boolean; description?: string } {
    const { json, nullable } = withoutNull(jsonSchemaOf(schema));
    return { spec: this.convert(json, nameHint), nullable, description: json.description };
  }

  private convert(json: JsonSchema, nameHint: string): TypeSpec {
    const name = json.title ?? nameHint;
    if (json.anyOf) return { oneOf: json.anyOf.map((s, i) => this.convert(s, `${name}${i}`)) };
    if (Array.isArray(json.type)) return { oneOf: json.type.map((t) => this.convert({ type: t }, name)) };
    if (json.enum) return this.hoist(name, { type: "string", ...(json.description ? { description: json.description } : {}), enum: json.enum.map((v) => ({ value: String(v) })) });
    switch (json.type) {
      case "string":
      case "integer":
      case "number":
      case "boolean":
        return { type: json.type };
      case "array":
        return { type: "array", items: json.items ? this.convert(json.items, name) : { $ref: ANY } };
      case "object": {
        if (!json.properties) {
          const values = typeof json.additionalProperties === "object" ? json.additionalProperties : {};
          if (values.type || values.enum || values.anyOf) return { type: "object", additionalProperties: this.convert(values, name) };
          // A free-form object (an event type's JSON Schema) is Any, not a map of Any: Pulumi's Go generator writes
          // arrays inside a map of Any as `pulumi.Any{...}`, which does not build (pulumi/pulumi#16384), and
          // `pulumi import` of such a value would write that code.
          return { $ref: ANY, jsonObject: true };
        }
        const properties = Object.fromEntries(
          Object.entries(json.properties).map(([prop, s]) => [prop, { ...this.convert(s, `${name}${pascal(prop)}`), ...(s.description ? { description: s.description } : {}) }]),
        );
        return this.hoist(name, { type: "object", ...(json.description ? { description: json.description } : {}), properties, ...(json.required?.length ? { required: json.required } : {}) });
      }
      default:
        return { $ref: ANY };
    }
  }

  private hoist(name: string, spec: ComplexTypeSpec): TypeSpec {
    const token = `${PACKAGE}:${this.module}:${name}`;
    const known = this.types[token];
    if (known && JSON.stringify(known) !== JSON.stringify(spec)) throw new Error(`two different types are named ${token}: give one a title (zod .meta({ title }))`);
    this.types[token] = spec;
    return { $ref: typeRef(this.module, name) };
  }
}

/* ---------- resources ---------- */

/** Fields the program declares: the SDK computes the `checkOnly` ones. */
export const isArgument = (spec: FieldSpec) => isInputField(spec) && !spec.checkOnly;

function described(kind: string, name: string, spec: FieldSpec): string {
  if (!spec.description) throw new Error(`${kind}.${name} has no description: add one to its field in the definition (users read it in the docs and the SDK)`);
  return spec.description;
}

/**
 * Bounds a field's zod type states (lengths, ranges, item counts), from its JSON Schema;
 * enum values are left to the type.
 */
export function fieldLimits(spec: FieldSpec): string[] {
  if (!spec.input) return [];
  let schema: Record<string, unknown>;
  try {
    schema = z.toJSONSchema(spec.input, { unrepresentable: "any" }) as Record<string, unknown>;
  } catch {
    return [];
  }
  const parts: string[] = [];
  const bound = (key: string, label: string) => {
    // A whole number's own range (±2^53 − 1) is no limit worth stating.
    if (typeof schema[key] === "number" && Math.abs(schema[key]) < Number.MAX_SAFE_INTEGER) parts.push(`${label} ${String(schema[key])}`);
  };
  if (schema.minLength === 1) parts.push("not empty");
  else bound("minLength", "length ≥");
  bound("maxLength", "length ≤");
  bound("minimum", "≥");
  bound("maximum", "≤");
  bound("exclusiveMinimum", ">");
  bound("minItems", "items ≥");
  bound("maxItems", "items ≤");
  return parts;
}

/** What the kind's owner field (provider/README.md, "Ownership") says besides its own text. */
export const OWNER_FIELD_NOTE =
  "Left out, the create writes the owner mark `managed by pulumi-svc (owner <token>)` here, which reads back as unset: a create whose answer was lost then finds its own object by it.";

/**
 * An argument's description with what the definition knows besides: its default, the
 * limits its type states (each unless the text already says it: a number it names), and
 * the owner mark when it is the kind's owner field.
 */
function argumentDescription(def: ResourceDefinition, name: string, spec: FieldSpec): string {
  let text = described(def.kind, name, spec);
  if (def.ownerField === name) text += ` ${OWNER_FIELD_NOTE}`;
  if (spec.default !== undefined && !/\bdefault\b/i.test(text)) text += ` Default: \`${JSON.stringify(spec.default)}\`.`;
  const unsaid = fieldLimits(spec).filter((limit) => !/\d/.test(limit) || !new RegExp(`\\b${limit.split(" ").pop()}\\b`).test(text));
  if (unsaid.length > 0) text += ` Limits: ${unsaid.join("; ")}.`;
  return text;
}

function resourceSpec(def: ResourceDefinition, types: TypeMaker): ResourceSpec {
  const typeName = def.kind.split(":")[1]!;
  if (!def.description) throw new Error(`${def.kind} has no description`);
  const inputProperties: Record<string, PropertySpec> = {};
  const requiredInputs: string[] = [];
  const properties: Record<string, PropertySpec> = {};
  const required: string[] = [];
  for (const [name, spec] of fieldEntries(def)) {
    const description = described(def.kind, name, spec);
    const replaces = spec.mode === "createOnly" ? { replaceOnChanges: true } : {};
    const hint = `${typeName}${pascal(name)}`;
    const secret = spec.secret ? { secret: true } : {};
    const declared = spec.type ?? spec.input;
    if (!declared) throw new Error(`${def.kind}.${name} has no type: give the output field a zod \`type\``);
    if (isArgument(spec)) {
      const primitiveDefault = ["string", "number", "boolean"].includes(typeof spec.default) ? { default: spec.default as string | number | boolean } : {};
      inputProperties[name] = { ...types.of(declared, hint).spec, description: argumentDescription(def, name, spec), ...secret, ...primitiveDefault };
      if (spec.required) requiredInputs.push(name);
    }
    const output = types.of(spec.outputType ?? declared, hint);
    properties[name] = { ...output.spec, description: spec.outputDescription ?? description, ...secret, ...replaces };
    const present = spec.mode === "output" || spec.outputType ? !output.nullable : spec.required || spec.default !== undefined || spec.whenOmitted === "unmanaged";
    if (present) required.push(name);
  }
  return { description: def.description, properties, required, inputProperties, requiredInputs };
}

/* ---------- functions ---------- */

/**
 * The read functions of provider/functions.ts, which return one kind's objects as the
 * service reports them (its fields the service returns, `remoteFields`). The SDK's other
 * functions (getAuthMe, getPlan, getUsage, getQuota, getQuotaUsage, getQuotas, getVms,
 * getMessages, getDeliveries, getEventTypePolicy, getEventTypes) are left out: their
 * answers are the service's own documents with no definition here to make their types
 * from (each is typed only in its SDK file).
 */
const PROFILE_INPUT: PropertySpec = { type: "string", description: "Connection profile (see the resources' `profile`); omit for the stack's default connection." };

function functionSpecs(resources: Record<string, ResourceSpec>, typesOf: (module: string) => TypeMaker): Record<string, FunctionSpec> {
  const out: Record<string, FunctionSpec> = {};
  for (const [name, fn] of Object.entries(READ_FUNCTIONS) as [string, ReadFunction][]) {
    const [module, typeName] = fn.kind.split(":") as [string, string];
    const def = DEFINITIONS[fn.kind]!;
    const resource = resources[resourceToken(fn.kind)]!;
    const shown = fieldEntries(def).filter(([, spec]) => spec.api && !spec.writeOnly && spec.mode !== "action" && spec.mode !== "local");
    const secret = shown.filter(([field]) => resource.properties[field]!.secret).map(([field]) => field);
    // The plugin's Invoke (native/server.ts) returns every answer in plaintext.
    if (secret.length) throw new Error(`${name} would return the secret ${secret.join(", ")}: mark it secret in the plugin's Invoke before declaring it`);
    const infoRef: TypeSpec = { $ref: typeRef(module, `${typeName}Info`) };
    const info: Pick<ObjectTypeSpec, "properties" | "required"> = {
      properties: { id: { type: "string", description: `The ${def.noun}'s id.` }, ...Object.fromEntries(shown.map(([field]) => [field, resource.properties[field]!])) },
      required: ["id", ...shown.map(([field]) => field).filter((field) => resource.required?.includes(field))],
    };
    typesOf(module).types[`${PACKAGE}:${module}:${typeName}Info`] = { type: "object", description: `${sentenceCase(withArticle(def.noun))} as the service reports it (values it never returns are not here).`, ...info };
    out[`${PACKAGE}:${name}`] =
      fn.shape === "one"
        ? {
            description: `One ${def.noun} by id. Fails when it does not exist or the key cannot see it.`,
            inputs: { type: "object", properties: { id: { type: "string", description: `The ${def.noun}'s id.` }, profile: PROFILE_INPUT }, required: ["id"] },
            // The object's properties, as pulumi-aws's functions return theirs: a bare `$ref` is a single-value return,
            // whose property access crashes Pulumi YAML's language host (`fn::invoke` then `${one.url}`).
            outputs: { type: "object", ...info },
          }
        : {
            description: `Every ${def.noun} the key can see (all pages)${fn.filter ? `, ${fn.filter.phrase}` : ""}.`,
            inputs: { type: "object", properties: { ...(fn.filter ? { [fn.filter.arg]: { type: "string", description: fn.filter.description } } : {}), profile: PROFILE_INPUT } },
            // An object of one property, `items` (the plugin's answer, native/operations.ts): Pulumi's Python generator types a
            // function returning a bare list as `list` of plain dicts; an object's property is `Sequence[EndpointInfo]`, typed objects.
            outputs: {
              type: "object",
              properties: { items: { type: "array", items: infoRef, description: `Every ${def.noun} the key can see, in the service's order.` } },
              required: ["items"],
            },
          };
  }
  return out;
}

/* ---------- the package ---------- */

function configVariables(): Record<string, PropertySpec> {
  return Object.fromEntries(
    CONFIG_KEYS.map((k) => {
      const type: TypeSpec = k.type === "object" ? { type: "object", additionalProperties: { $ref: ANY } } : { type: k.type };
      // A variable pattern (`SVC_PROFILE_<NAME>_...`) is no variable the engine can probe.
      const environment = k.env && !k.env.includes("<") ? { defaultInfo: { environment: [k.env] } } : {};
      const description = `${k.description}${k.requiredFor ? ` Needed by ${k.requiredFor}.` : ` Default: ${k.default ?? "none"}.`}`;
      return [k.key.replace(/^svc:/, ""), { ...type, description, ...(k.secret ? { secret: true } : {}), ...environment }];
    }),
  );
}

export function buildSchema(): PackageSpec {
  const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { description: string; version: string; license: string };
  const makers = new Map<string, TypeMaker>();
  const typesOf = (module: string) => makers.get(module) ?? makers.set(module, new TypeMaker(module)).get(module)!;
  const resources: Record<string, ResourceSpec> = {};
  for (const [kind, def] of Object.entries(DEFINITIONS) as [ResourceKind, ResourceDefinition][]) {
    resources[resourceToken(kind)] = resourceSpec(def, typesOf(def.product));
  }
  const functions = functionSpecs(resources, typesOf);
  const variables = configVariables();
  const types = Object.fromEntries([...makers.values()].flatMap((m) => Object.entries(m.types)).sort(([a], [b]) => a.localeCompare(b)));
  return {
    name: PACKAGE,
    displayName: "svc",
    description: pkg.description,
    version: pkg.version,
    license: pkg.license,
    keywords: ["pulumi", "svc", "webhooks", "inboxes", "quotas"],
    config: { variables },
    provider: { description: "The svc provider: its settings are the `svc:` stack config keys (docs/reference/configuration.md).", inputProperties: variables },
    resources,
    types,
    functions,
    pluginDownloadURL: "github://api.github.com/pulumi-svc",
    language: {
      nodejs: { packageName: "pulumi-svc" },
      // The Python and Go SDKs' version is the package's (else 0.0.0 for Python, none for Go: meant to be
      // replaced by a release script), so their resources ask the engine for the plugin at that version.
      python: { packageName: "pulumi_svc", respectSchemaVersion: true },
      go: { importBasePath: "github.com/pulumi-svc/pulumi-svc/sdk/go/svc", generateResourceContainerTypes: true, respectSchemaVersion: true },
    },
  };
}

/* ---------- TypeScript renderings (the reference pages, the policy types, the SDK test) ---------- */

/**
 * A type as TypeScript spells it. `input`: an object type is `<Name>Args` (the SDK's
 * argument interfaces), `output`: `<Name>`. `wrap` wraps every value, e.g. policies'
 * `Value<...>` or the SDK's `pulumi.Input<...>`. An enum is its union of values, or its
 * name when `enumNames` (the SDK declares each as a type).
 */
export function tsType(spec: TypeSpec, schema: Pick<PackageSpec, "types">, side: "input" | "output", wrap = (t: string) => t, enumNames = false): string {
  const render = (t: TypeSpec): string => {
    if (t.$ref === ANY) return t.jsonObject ? `Record<string, ${wrap("unknown")}>` : "unknown";
    if (t.$ref) {
      const token = t.$ref.replace("#/types/", "");
      const complex = schema.types[token]!;
      if ("enum" in complex) return enumNames ? token.split(":")[2]! : complex.enum.map((e) => JSON.stringify(e.value)).join(" | ");
      const name = token.split(":")[2]!;
      return side === "input" ? `${name}Args` : name;
    }
    if (t.oneOf) return t.oneOf.map(render).join(" | ");
    if (t.type === "array") {
      const item = wrap(render(t.items!));
      return item.includes(" | ") ? `(${item})[]` : `${item}[]`;
    }
    if (t.type === "object") return `Record<string, ${wrap(render(t.additionalProperties!))}>`;
    return t.type === "integer" ? "number" : t.type!;
  };
  return wrap(render(spec));
}

/** What a TypeScript SDK class accepts beyond the schema's type of an argument (a field's `sdk.acceptsMap`: a Map would serialize as `{}`). */
export function tsAlsoAccepts(def: ResourceDefinition, name: string): string {
  return def.fields[name]?.sdk?.acceptsMap ? " | Map<string, string>" : "";
}

/** What a TypeScript SDK class says beyond the schema's description of an argument (a Map is a JavaScript notion). */
export function tsAlsoSays(def: ResourceDefinition, name: string): string {
  return def.fields[name]?.sdk?.acceptsMap ? " A `Map` is taken as its entries." : "";
}

/** The object types a property's type names, deepest last. */
export function objectTypesOf(spec: TypeSpec, schema: Pick<PackageSpec, "types">): string[] {
  const found: string[] = [];
  const visit = (t: TypeSpec | undefined): void => {
    if (!t) return;
    if (t.$ref && t.$ref !== ANY) {
      const token = t.$ref.replace("#/types/", "");
      const complex = schema.types[token]!;
      if ("properties" in complex && !found.includes(token)) {
        found.push(token);
        for (const p of Object.values(complex.properties)) visit(p);
      }
    }
    visit(t.items);
    visit(t.additionalProperties);
    t.oneOf?.forEach(visit);
  };
  visit(spec);
  return found;
}

const tsDoc = (text: string | undefined, indent: string) => (text ? `${indent}/** ${text.replace(/\*\//g, "*\\/")} */\n` : "");

/** policy/lib/inputs.ts: each kind's arguments as a policy reads them, every value possibly unknown. */
export function renderPolicyInputs(schema: PackageSpec): string {
  const value = (t: string) => `Value<${t}>`;
  const out: string[] = [
    "// Generated by `npm run generate` (scripts/schema.ts) from the resource definitions. Do not edit.",
    "/**",
    " * The input properties of each pulumi-svc resource as policies read them: the",
    " * camelCase names the SDK classes take, each possibly unknown during preview",
    " * (`Value<T>`). `__provider` (the serialized dynamic provider) is present on every",
    " * resource and never read.",
    " */",
    'import type { ResourceKind } from "../../sdk/tokens";',
    'import type { Value } from "./props";',
    "",
  ];
  const objects = new Set<string>();
  const byKind: string[] = [];
  for (const [token, resource] of Object.entries(schema.resources)) {
    const kind = token.slice(PACKAGE.length + 1) as ResourceKind;
    const name = `${token.split(":")[2]}Inputs`;
    byKind.push(`  "${kind}": ${name};`);
    out.push(`export interface ${name} {`);
    // Policies see the inputs the SDK computes (`checkOnly`: e.g. plaintextHeaderNames) too.
    const inputs = fieldEntries(DEFINITIONS[kind]!).filter(([, spec]) => isInputField(spec));
    for (const [prop] of inputs) {
      const spec = resource.inputProperties[prop] ?? resource.properties[prop]!;
      objectTypesOf(spec, schema).forEach((t) => objects.add(t));
      out.push(`${tsDoc(spec.description, "  ")}  ${prop}: ${tsType(spec, schema, "input", value)};`);
    }
    out.push("}", "");
  }
  for (const token of objects) {
    const complex = schema.types[token] as ObjectTypeSpec;
    out.push(`${tsDoc(complex.description, "")}export interface ${token.split(":")[2]}Args {`);
    for (const [prop, spec] of Object.entries(complex.properties)) out.push(`${tsDoc(spec.description, "  ")}  ${prop}: ${tsType(spec, schema, "input", value)};`);
    out.push("}", "");
  }
  out.push("export interface InputsByKind {", ...byKind, "}", "");
  out.push("/** Every property is optional from the policy's point of view: the program may omit it. */");
  out.push("export type InputsOf<K extends ResourceKind> = Partial<InputsByKind[K]>;", "");
  return out.join("\n");
}

export const renderSchema = (schema: PackageSpec) => `${JSON.stringify(schema, (key: string, value: unknown) => (key === "jsonObject" ? undefined : value), 2)}\n`;
