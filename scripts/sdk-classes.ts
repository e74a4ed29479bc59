/**
 * The TypeScript SDK's resource classes (sdk/<product>/<kind>.ts), made from the
 * schema the definitions make (scripts/schema.ts): per kind its named types (enums as
 * unions, objects as `<Name>Args` for arguments and `<Name>` for outputs), `<Type>Args`,
 * what `get` may be told, the class (token, `get`, one `Output` per property, the
 * constructor handing every input and output name to `dynamic.Resource`, secret
 * arguments wrapped and secret outputs listed), and the read functions' answer
 * (`<Type>Info`) when a function reads the kind. What a generator cannot say lives in
 * the hand-written sdk/<product>/<kind>.extra.ts beside it (a field's `sdk.extraProps`),
 * whose `extraProps(args, props)` the constructor calls last.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { fieldEntries, type ResourceDefinition } from "../provider/engine/fields";
import type { ResourceKind } from "../sdk/tokens";
import { isArgument, resourceToken, tsAlsoSays, tsType, type ObjectTypeSpec, type PackageSpec, type TypeSpec } from "./schema";

const ROOT = join(__dirname, "..");
const ANY = "pulumi.json#/Any";
/** Arguments the class takes as plain values, never `Input`s: the connection profile. */
const PLAIN_ARGS = new Set(["profile"]);

const kebab = (s: string) => s.replace(/([a-z0-9])([A-Z])/g, "$1-$2").toLowerCase();
/** `webhooks:EventTypePolicy` → `sdk/webhooks/event-type-policy` (without `.ts`). */
export function sdkFileBase(kind: string): string {
  const [product, type] = kind.split(":") as [string, string];
  return `sdk/${product}/${kebab(type)}`;
}

/** A TSDoc comment, on one line when short, else wrapped near 100 columns. */
function doc(text: string | undefined, indent: string): string[] {
  if (!text) return [];
  const safe = text.replace(/\*\//g, "*\\/");
  if (safe.length + indent.length <= 110) return [`${indent}/** ${safe} */`];
  const lines: string[] = [];
  let line = "";
  for (const word of safe.split(/\s+/)) {
    if (line && line.length + word.length + 1 > 96 - indent.length) {
      lines.push(line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  if (line) lines.push(line);
  return [`${indent}/**`, ...lines.map((l) => `${indent} * ${l}`), `${indent} */`];
}

const tokenOf = (t: TypeSpec) => t.$ref!.replace("#/types/", "");
const nameOf = (token: string) => token.split(":")[2]!;

/** A type as the class spells it: `input` wraps values in `pulumi.Input` and names object types `<Name>Args`. */
const render = (t: TypeSpec, schema: PackageSpec, side: "input" | "output") =>
  tsType(t, schema, side, side === "input" ? (x) => `pulumi.Input<${x}>` : undefined, true);

/** The named types a property's type reaches, each once, deepest last. */
function namedTypes(t: TypeSpec | undefined, schema: PackageSpec, found: string[]): void {
  if (!t) return;
  if (t.$ref && t.$ref !== ANY) {
    const token = tokenOf(t);
    if (found.includes(token)) return;
    found.push(token);
    const complex = schema.types[token]!;
    if ("properties" in complex) for (const p of Object.values(complex.properties)) namedTypes(p, schema, found);
  }
  namedTypes(t.items, schema, found);
  namedTypes(t.additionalProperties, schema, found);
  t.oneOf?.forEach((x) => namedTypes(x, schema, found));
}

function objectInterface(name: string, type: ObjectTypeSpec, schema: PackageSpec, side: "input" | "output", info = false): string[] {
  const out = [...doc(type.description, ""), `export interface ${name} {`];
  for (const [prop, spec] of Object.entries(type.properties)) {
    const required = type.required?.includes(prop) ?? false;
    // An Info is what the service answered: every member present, null when absent.
    const member = info ? `${prop}: ${render(spec, schema, side)}${required ? "" : " | null"};` : `${prop}${required ? "" : "?"}: ${render(spec, schema, side)};`;
    out.push(...doc(spec.description, "  "), `  ${member}`);
  }
  out.push("}", "");
  return out;
}

export function renderSdkClass(kind: ResourceKind, def: ResourceDefinition, schema: PackageSpec, infoType?: string): string {
  const [, type] = kind.split(":") as [string, string];
  const base = sdkFileBase(kind);
  const file = base.split("/").pop()!;
  const hasExtra = existsSync(join(ROOT, `${base}.extra.ts`));
  const resource = schema.resources[resourceToken(kind)]!;
  const fields = fieldEntries(def);
  const args = Object.keys(resource.inputProperties);
  const extraFields = fields.filter(([, spec]) => spec.sdk?.extraProps).map(([name]) => name);
  if (extraFields.length > 0 && !hasExtra) throw new Error(`${kind}: ${extraFields.join(", ")} ask for ${base}.extra.ts (extraProps), which does not exist`);

  const inputTypes: string[] = [];
  const outputTypes: string[] = [];
  for (const p of Object.values(resource.inputProperties)) namedTypes(p, schema, inputTypes);
  for (const p of Object.values(resource.properties)) namedTypes(p, schema, outputTypes);
  const out: string[] = [
    `// Generated by \`npm run generate\` (scripts/sdk-classes.ts) from provider/${def.product}/${file}.ts. Do not edit${hasExtra ? `: what a generator cannot say is in ./${file}.extra.ts` : ""}.`,
    'import * as pulumi from "@pulumi/pulumi";',
    'import * as dynamic from "@pulumi/pulumi/dynamic";',
    `import { ${def.fields.resourceName ? "programName, " : ""}resourceProps } from "../props";`,
    'import { providerShim } from "../shim";',
    'import { moduleAndType, TYPE_TOKENS } from "../tokens";',
    ...(hasExtra ? [`import { extraProps } from "./${file}.extra";`] : []),
    "",
    `const KIND = "${kind}";`,
    "",
  ];
  const enums = [...new Set([...inputTypes, ...outputTypes])].filter((t) => "enum" in schema.types[t]!);
  for (const token of enums) {
    const e = schema.types[token] as { description?: string; enum: { value: string }[] };
    out.push(...doc(e.description, ""), `export type ${nameOf(token)} = ${e.enum.map((v) => JSON.stringify(v.value)).join(" | ")};`, "");
  }
  for (const token of inputTypes.filter((t) => !enums.includes(t))) out.push(...objectInterface(`${nameOf(token)}Args`, schema.types[token] as ObjectTypeSpec, schema, "input"));
  for (const token of outputTypes.filter((t) => !enums.includes(t))) out.push(...objectInterface(nameOf(token), schema.types[token] as ObjectTypeSpec, schema, "output"));

  out.push(`export interface ${type}Args {`);
  for (const name of args) {
    const prop = resource.inputProperties[name]!;
    const optional = resource.requiredInputs?.includes(name) ? "" : "?";
    const accepts = def.fields[name]?.sdk?.acceptsMap ? ` | Map<string, pulumi.Input<string>>` : "";
    const ts = PLAIN_ARGS.has(name) ? render(prop, schema, "output") : render(prop, schema, "input") + accepts;
    const says = tsAlsoSays(def, name);
    out.push(...doc(says ? `${prop.description ?? ""}${says}` : prop.description, "  "), `  ${name}${optional}: ${ts};`);
  }
  out.push("}", "");

  const stateName = schema.types[`svc:${def.product}:${type}State`] ? `${type}GetState` : `${type}State`;
  out.push(`/** What \`${type}.get\` may be told besides the id. */`, `export interface ${stateName} {`);
  if (def.fields.profile) out.push(`  /** The connection profile to read it with (see \`${type}Args.profile\`). */`, "  profile?: string;");
  out.push("}", "");

  if (infoType) out.push(...objectInterface(nameOf(infoType), schema.types[infoType] as ObjectTypeSpec, schema, "output", true));

  const required = resource.requiredInputs?.length ?? 0;
  const outputsOnly = Object.keys(resource.properties).filter((n) => !args.includes(n));
  const secretArgs = args.filter((n) => resource.inputProperties[n]!.secret && !extraFields.includes(n));
  const secretOutputs = Object.entries(resource.properties).filter(([, p]) => p.secret).map(([n]) => n);
  // The kind's description, then what a change does that its arguments' modes do not say.
  out.push(...doc([resource.description, def.changeNote].filter(Boolean).join(" "), ""), `export class ${type} extends dynamic.Resource {`);
  out.push(`  /** The type token, so \`@pulumi/policy\`'s \`validateResourceOfType(${type}, ...)\` matches. */`, "  static readonly __pulumiType: string = TYPE_TOKENS[KIND];", "");
  out.push(
    `  /** Read an existing ${def.noun} into the program (no changes are made to it)${def.idDescription ? `; the id is ${def.idDescription}` : ""}. */`,
    `  static get(name: string, id: pulumi.Input<pulumi.ID>, opts?: pulumi.CustomResourceOptions, state?: ${stateName}): ${type} {`,
    `    return new ${type}(name, { ...(state ?? {}) } as ${type}Args, { ...opts, id });`,
    "  }",
    "",
  );
  for (const [name, prop] of Object.entries(resource.properties)) {
    const spec = def.fields[name]!;
    const text = spec.outputDescription ?? (isArgument(spec) ? undefined : spec.description);
    const nullable = resource.required?.includes(name) ? "" : " | null";
    out.push(...doc(text, "  "), `  declare readonly ${name}: pulumi.Output<${render(prop, schema, "output")}${nullable}>;`);
  }
  out.push("", `  constructor(name: string, args: ${type}Args${required === 0 ? " = {}" : ""}, opts?: pulumi.CustomResourceOptions) {`);
  out.push("    const { module, type } = moduleAndType(KIND);");
  // JavaScript (or a cast) may pass no args: the provider's check then names each required argument missing.
  if (required > 0) out.push(`    args ??= {} as ${type}Args;`);
  const list = (names: string[]) => `[${names.map((n) => JSON.stringify(n)).join(", ")}]`;
  out.push(`    const props = resourceProps(name, args, ${list(args)}, ${list(outputsOnly)});`);
  // Present either way, so the output resolves (null after `get`).
  if (def.fields.resourceName) out.push("    props.resourceName = programName(name, opts);");
  // Secrets in the program's hands stay secrets in the state and the CLI output.
  for (const n of secretArgs) out.push(`    props.${n} = args.${n} === undefined ? undefined : pulumi.secret(args.${n});`);
  if (hasExtra) out.push("    extraProps(args, props);");
  if (secretOutputs.length > 0) {
    out.push(`    const secretOutputs = ${list(secretOutputs)};`);
    out.push("    super(providerShim(KIND), name, props, { ...opts, additionalSecretOutputs: [...(opts?.additionalSecretOutputs ?? []), ...secretOutputs] }, module, type);");
  } else out.push("    super(providerShim(KIND), name, props, opts, module, type);");
  out.push("  }", "}", "");
  return out.join("\n");
}
