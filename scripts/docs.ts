/**
 * Part of `npm run generate` (scripts/generate.ts): docs/reference/, one page per resource kind and one for the
 * provider's configuration, generated from what the code says:
 *
 * - the package schema the definitions make (scripts/schema.ts): the
 *   kind's description, each argument's and output's type, whether it is required, its
 *   description, and which values are kept as secrets;
 * - the resource definitions (provider/registry.ts, provider/<product>/*.ts): how a
 *   change of each argument is applied (update or replace), defaults, adoption;
 * - the limits in rules/, and the messages preview gives for common mistakes, made by
 *   running the provider's own check (offline) on them (scripts/docs-mistakes.ts);
 * - provider/config-keys.ts for the configuration page;
 * - the SDK's data functions (sdk/<product>/functions.ts, queries.ts) for the functions
 *   page: each exported function's signature, TSDoc and which walk of provider/walk.ts its
 *   body calls (for one of provider/functions.ts, the walk of its shape), and the rule those
 *   walks follow, taken from provider/walk.ts's own comment;
 * - the example program docs/examples/<page>/index.ts (type-checked and applied
 *   against the emulator in npm test).
 *
 * test/docs/reference.test.ts fails when the committed pages differ from these.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import ts from "typescript";
import { z } from "zod";
import { CONFIG_KEYS } from "../provider/config-keys";
import { checkInputs } from "../provider/engine/check";
import type { FieldSpec, ResourceDefinition } from "../provider/engine/fields";
import { READ_FUNCTIONS, type ReadFunction } from "../provider/functions";
import { DEFINITIONS } from "../provider/registry";
import type { ResourceKind } from "../sdk/tokens";
import { KIND_LIMITS, MISTAKES } from "./docs-mistakes";
import { buildSchema, fieldLimits, OWNER_FIELD_NOTE, objectTypesOf, resourceToken, tsAlsoAccepts, tsType, type ObjectTypeSpec, type PackageSpec } from "./schema";

const ROOT = join(__dirname, "..");
export const REFERENCE_DIR = join(ROOT, "docs/reference");

/** `webhooks:EventTypePolicy` → `webhooks-event-type-policy` (the page, the SDK file, the example). */
export function pageName(kind: string): string {
  const [product, type] = kind.split(":") as [string, string];
  return `${product}-${kebab(type)}`;
}
const kebab = (s: string) => s.replace(/([a-z0-9])([A-Z])/g, "$1-$2").toLowerCase();

/* ---------- the definitions ---------- */

function changeOf(spec: FieldSpec): string {
  switch (spec.mode) {
    case "createOnly":
      return "**replaces**";
    case "patch":
      return "update (one PATCH with the other changed fields)";
    case "put":
      return `update (PUT \`${spec.put?.path ?? ""}\`)`;
    case "action":
      return `update (POST \`${spec.action?.path ?? ""}\`)`;
    case "local":
      return "no call (read by the provider)";
    default:
      return "";
  }
}

function defaultOf(spec: FieldSpec): string {
  if (spec.default !== undefined) return `\`${JSON.stringify(spec.default)}\``;
  if (spec.whenOmitted === "unmanaged") return "left to the service";
  return "—";
}

/** Limits a field's schema states: its enum values, then its bounds (scripts/schema.ts `fieldLimits`). */
function schemaLimits(spec: FieldSpec): string {
  let values: unknown;
  try {
    values = spec.input && (z.toJSONSchema(spec.input, { unrepresentable: "any" }) as { enum?: unknown }).enum;
  } catch {
    values = undefined;
  }
  const oneOf = Array.isArray(values) ? [`one of ${values.map((v) => `\`${String(v)}\``).join(", ")}`] : [];
  return [...oneOf, ...fieldLimits(spec)].join("; ");
}

function adoptionOf(def: ResourceDefinition): string {
  if (def.singleton) {
    return "This setting always exists: `pulumi up` takes it over (what it found is kept in the outputs), and deleting the resource writes the values found before back. Nothing to adopt. `pulumi import` (native plugin) takes it into the stack by its id with no write; an imported setting has no earlier value, so deleting it from the stack leaves it as it is.";
  }
  const lines = ["`pulumi import` works with the native plugin (`pulumi-resource-svc`), not with the TypeScript SDK's dynamic resources."];
  if (def.adoption) lines.push("Set `adoptExisting: true` to take over an object that already exists in its scope instead of failing the preview.");
  if (def.fields.adoptId) lines.push("Set `adoptId` to the id of an existing object to take it over instead of creating one: it must exist, and the arguments that replace must match it.");
  lines.push("A create whose outcome was lost (a dropped connection, a 5xx) is reconciled on the next `up`: the object it made is adopted, never duplicated.");
  lines.push(`If a create's outcome is unknown: ${def.adoptHint}`);
  return lines.join(" ");
}

/* ---------- pages ---------- */

const cell = (s: string) => s.replace(/\|/g, "\\|").replace(/\n/g, " ");
const code = (s: string) => `\`${cell(s.replace(/`/g, "'"))}\``;

function classPath(kind: string): string {
  const [product, type] = kind.split(":") as [string, string];
  return `svc.${product}.${type}`;
}

/** The fields of an object type an argument or output names (`EndpointSubscriptionArgs`, `EndpointSuspension`). */
function objectTypeSection(token: string, schema: PackageSpec, side: "input" | "output"): string[] {
  const type = schema.types[token] as ObjectTypeSpec;
  const out = [`### ${code(`${token.split(":")[2]}${side === "input" ? "Args" : ""}`)}`, ""];
  if (type.description) out.push(type.description, "");
  out.push("| field | type | required | description |", "|---|---|---|---|");
  for (const [name, p] of Object.entries(type.properties)) out.push(`| ${code(name)} | ${code(tsType(p, schema, side))} | ${type.required?.includes(name) ? "**required**" : "optional"} | ${cell(p.description ?? "")} |`);
  return [...out, ""];
}

function kindPage(kind: ResourceKind, def: ResourceDefinition, schema: PackageSpec): string {
  const resource = schema.resources[resourceToken(kind)]!;
  const page = pageName(kind);
  const out: string[] = [];
  out.push(`<!-- Generated by \`npm run generate\` (scripts/docs.ts) from the schema (scripts/schema.ts), provider/ and rules/. Do not edit. -->`, "");
  out.push(`# ${classPath(kind)}`, "");
  out.push(resource.description ?? "", "");
  out.push(`Product: ${def.product} (config \`svc:${def.product}Url\`, \`svc:${def.product}ApiKey\`; see [configuration](configuration.md)).`, "");
  const id = def.idDescription ?? `the ${def.noun}'s id as the service gives it`;
  out.push(`Its id (for \`get\` and \`pulumi import\`) is ${id}; one of a named profile (\`svc:profiles\`) is imported as \`profile:<name>/<id>\`.`, "");

  out.push("## Arguments", "");
  out.push("| argument | type | required | default | limits | a change | secret | description |", "|---|---|---|---|---|---|---|---|");
  for (const [name, arg] of Object.entries(resource.inputProperties)) {
    const spec = def.fields[name]!;
    const required = resource.requiredInputs?.includes(name) ? "**required**" : "optional";
    out.push(`| ${code(name)} | ${code(tsType(arg, schema, "input") + tsAlsoAccepts(def, name))} | ${required} | ${defaultOf(spec)} | ${cell(schemaLimits(spec))} | ${changeOf(spec)} | ${arg.secret ? "secret" : ""} | ${cell(`${spec.description ?? ""}${def.ownerField === name ? ` ${OWNER_FIELD_NOTE}` : ""}`)} |`);
  }
  out.push("");
  const inputTypes = new Set(Object.values(resource.inputProperties).flatMap((p) => objectTypesOf(p, schema)));
  for (const token of inputTypes) out.push(...objectTypeSection(token, schema, "input"));

  out.push("## Outputs", "", "Besides `id` and every argument:", "", "| output | type | secret | description |", "|---|---|---|---|");
  for (const [name, o] of Object.entries(resource.properties)) {
    if (name in resource.inputProperties) continue;
    const type = tsType(o, schema, "output") + (resource.required?.includes(name) ? "" : " | null");
    out.push(`| ${code(name)} | ${code(type)} | ${o.secret ? "secret" : ""} | ${cell(o.description ?? "")} |`);
  }
  out.push("");
  const outputTypes = new Set(Object.values(resource.properties).flatMap((p) => objectTypesOf(p, schema)));
  for (const token of outputTypes) if (!inputTypes.has(token)) out.push(...objectTypeSection(token, schema, "output"));

  const limits = KIND_LIMITS[kind];
  if (limits) {
    out.push("## Limits", "", "The service's limits (rules/), checked at preview:", "", "| limit | value |", "|---|---|");
    for (const [name, value] of Object.entries(limits)) out.push(`| ${code(name)} | ${cell(typeof value === "object" ? JSON.stringify(value) : String(value))} |`);
    out.push("");
  }

  out.push("## Adoption", "", adoptionOf(def), "");

  const mistakes = MISTAKES[kind] ?? [];
  if (mistakes.length) {
    out.push("## Mistakes preview catches", "");
    out.push("What `pulumi preview` says (the provider's check, run on these arguments); each message names the property, the problem and the limit, and the fix is to change that argument:", "");
    out.push("| arguments | preview fails with |", "|---|---|");
    for (const m of mistakes) {
      const { failures } = checkInputs(def, m.inputs);
      const said = failures.length ? failures.map((f) => `${code(f.property)}: ${f.reason}`).join("<br>") : "(nothing: a mistake list out of date)";
      out.push(`| ${code(m.shown ?? JSON.stringify(m.inputs))} | ${cell(said)} |`);
    }
    out.push("");
  }
  if (def.hooks?.checkRemote) {
    out.push("With the service reachable, preview also reads it (once per run) to catch what the account would refuse: plan ceilings and features, names or requests that already exist.", "");
  }

  out.push("## Example", "", `[docs/examples/${page}/index.ts](../examples/${page}/index.ts), applied against the emulator in \`npm test\`:`, "");
  out.push("```ts", readFileSync(join(ROOT, "docs/examples", page, "index.ts"), "utf8").trimEnd(), "```", "");
  return out.join("\n");
}

function configurationPage(): string {
  const out: string[] = ["<!-- Generated by `npm run generate` (scripts/docs.ts) from provider/config-keys.ts. Do not edit. -->", "", "# Provider configuration", ""];
  out.push("Stack config first, then the environment. Keys are read inside the provider plugin at run time: never in a resource's inputs, outputs or any message.", "");
  out.push("| stack config | environment | secret | needed | description |", "|---|---|---|---|---|");
  for (const k of CONFIG_KEYS) {
    out.push(`| ${code(k.key)} | ${k.env ? code(k.env) : "—"} | ${k.secret ? "`--secret`" : ""} | ${k.requiredFor ? `for ${k.requiredFor}` : `optional (default: ${k.default ?? "none"})`} | ${cell(k.description)} |`);
  }
  out.push("", "A missing setting fails `pulumi preview`, naming the config key and the environment variable.", "");
  return out.join("\n");
}

/* ---------- the data functions (sdk/<product>/functions.ts, queries.ts) ---------- */

const PRODUCTS = ["webhooks", "inboxes", "infra"] as const;
const FUNCTION_FILES = ["functions.ts", "queries.ts"];

/** How a function reads: the walk of provider/walk.ts it calls (its rule numbers), a cursor walk, or one request. */
const WALKS: [callee: string, says: string][] = [
  ["walkNewestFirst", "every page, each object once, as the list stood when the call began (rules 1 and 2)"],
  ["walkList", "every page, each object once (rule 1)"],
  ["listAllByCursor", "every page, following `next_cursor` until it is null (cursor pages: no offsets to shift)"],
];

interface SdkFunction {
  name: string;
  params: string;
  returns: string;
  doc: string;
  reads: string;
}

/** The exported functions of a product's function files, in file order, with what their bodies call. */
function readFunctions(product: string): SdkFunction[] {
  const out: SdkFunction[] = [];
  for (const fileName of FUNCTION_FILES) {
    const file = join(ROOT, "sdk", product, fileName);
    let text: string;
    try {
      text = readFileSync(file, "utf8");
    } catch {
      continue;
    }
    const source = ts.createSourceFile(file, text, ts.ScriptTarget.ES2022, true);
    for (const stmt of source.statements) {
      if (!ts.isFunctionDeclaration(stmt) || !stmt.name || !stmt.body || !stmt.modifiers?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword)) continue;
      const called = new Set<string>();
      const visit = (node: ts.Node): void => {
        if (ts.isCallExpression(node)) {
          const callee = node.expression;
          called.add(ts.isPropertyAccessExpression(callee) ? callee.name.text : callee.getText(source));
        }
        ts.forEachChild(node, visit);
      };
      visit(stmt.body);
      const doc = ts.getJSDocCommentsAndTags(stmt).filter(ts.isJSDoc).map((d) => ts.getTextOfJSDocComment(d.comment) ?? "").join(" ").replace(/\s+/g, " ").trim();
      out.push({
        name: stmt.name.text,
        params: stmt.parameters.map((p) => p.getText(source).replace(/\s+/g, " ")).join(", "),
        returns: (stmt.type?.getText(source) ?? "").replace(/^Promise<(.*)>$/s, "$1"),
        doc,
        reads: readsOf(product, stmt.name.text, called),
      });
    }
  }
  return out;
}

/** How a function reads: a function of provider/functions.ts by its shape (a list walks with walkList), any other by what its body calls. */
function readsOf(product: string, name: string, called: Set<string>): string {
  const shared = (READ_FUNCTIONS as Record<string, ReadFunction>)[`${product}:${name}`];
  const callee = shared ? (shared.shape === "list" ? "walkList" : undefined) : WALKS.find(([c]) => called.has(c))?.[0];
  return WALKS.find(([c]) => c === callee)?.[1] ?? "one request";
}

/** The rule the walks follow: provider/walk.ts's own comment, from its first numbered point on. */
function walkRule(): string {
  const text = readFileSync(join(ROOT, "provider/walk.ts"), "utf8");
  const comment = text.slice(text.indexOf("/**") + 3, text.indexOf("*/"));
  const lines = comment.split("\n").map((line) => line.replace(/^\s*\* ?/, ""));
  return lines.slice(lines.findIndex((line) => /^1\. /.test(line))).join("\n").trim();
}

function functionsPage(): string {
  const out = ["<!-- Generated by `npm run generate` (scripts/docs.ts) from sdk/<product>/functions.ts, queries.ts and provider/walk.ts. Do not edit. -->", "", "# Functions", ""];
  out.push(
    "Read-only functions a program calls for plain data (not Outputs). They run in the program process: settings come from the stack config (`svc:<product>Url`, `svc:<product>ApiKey`, `svc:profiles`), else the environment; `profile` picks a connection profile. See [configuration](configuration.md).",
    "",
    `Python and Go programs (the native plugin \`pulumi-resource-svc\`) have the schema's functions, ${Object.keys(READ_FUNCTIONS).map((name) => code(`svc:${name}`)).join(", ")} (\`get_endpoint\`, ... in Python), served by the plugin with the stack's \`svc:\` config: the same implementation (provider/functions.ts), paging and errors as these.`,
    "",
  );
  out.push("## How lists are walked", "", "A list the service pages by offset (`limit`, `offset`) shifts when objects arrive during a walk. Every function that walks one follows this rule (provider/walk.ts):", "", walkRule(), "");
  for (const product of PRODUCTS) {
    out.push(`## svc.${product}`, "", "| function | returns | reads | description |", "|---|---|---|---|");
    for (const f of readFunctions(product)) out.push(`| ${code(`${f.name}(${f.params})`)} | ${code(f.returns)} | ${cell(f.reads)} | ${cell(f.doc)} |`);
    out.push("");
  }
  return out.join("\n");
}

function indexPage(kinds: ResourceKind[]): string {
  const out = ["<!-- Generated by `npm run generate` (scripts/docs.ts). Do not edit. -->", "", "# Reference", "", "- [Provider configuration](configuration.md)"];
  for (const kind of kinds) out.push(`- [${classPath(kind)}](${pageName(kind)}.md)`);
  out.push("- [Functions (data reads) and how lists are walked](functions.md)");
  return `${out.join("\n")}\n`;
}

/** Every page, file name → content. */
export function renderReference(schema: PackageSpec = buildSchema()): Map<string, string> {
  const pages = new Map<string, string>();
  const kinds = Object.keys(DEFINITIONS) as ResourceKind[];
  for (const kind of kinds) pages.set(`${pageName(kind)}.md`, kindPage(kind, DEFINITIONS[kind]!, schema));
  pages.set("configuration.md", configurationPage());
  pages.set("functions.md", functionsPage());
  pages.set("README.md", indexPage(kinds));
  return pages;
}
