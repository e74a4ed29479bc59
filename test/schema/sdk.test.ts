/**
 * The TypeScript SDK classes (sdk/<product>/<kind>.ts) are generated (scripts/sdk-classes.ts,
 * with what no schema says in a hand-written <kind>.extra.ts) and read back here, as a
 * program's author sees them, against the schema the definitions make: each argument and output, and each object type they name, with
 * the same name, type, optionality, secrecy and description (TSDoc), and the class's
 * TSDoc the kind's description; and the read functions' answers (`EndpointInfo`, ...)
 * to the schema's functions. Read with the TypeScript compiler API.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { DEFINITIONS } from "../../provider/registry";
import { buildSchema, isArgument, objectTypesOf, resourceToken, tsAlsoAccepts, tsAlsoSays, tsType, type ObjectTypeSpec, type PackageSpec } from "../../scripts/schema";
import type { ResourceKind } from "../../sdk/tokens";

const ROOT = join(__dirname, "../..");
const schema = buildSchema();

interface Member {
  type: string;
  optional: boolean;
  doc: string;
}

interface SdkFile {
  summary: string;
  args: Record<string, Member>;
  outputs: Record<string, Member>;
  interfaces: Map<string, Record<string, Member>>;
  /** Arguments wrapped in `pulumi.secret(args.x)`. */
  secretArgs: string[];
  /** The `secretOutputs` list (additionalSecretOutputs). */
  secretOutputs: string[];
}

const kebab = (s: string) => s.replace(/([a-z0-9])([A-Z])/g, "$1-$2").toLowerCase();

/** `pulumi.Input<pulumi.Input<X>[]>` → `X[]`, `pulumi.Output<X>` → `X`: what a program writes and reads. */
function unwrap(text: string): string {
  let out = text.replace(/\s+/g, " ");
  for (const wrapper of ["pulumi.Input<", "pulumi.Output<"]) {
    for (let start = out.lastIndexOf(wrapper); start >= 0; start = out.lastIndexOf(wrapper)) {
      let depth = 0;
      let end = start + wrapper.length - 1;
      for (; end < out.length; end++) {
        if (out[end] === "<") depth++;
        else if (out[end] === ">" && --depth === 0) break;
      }
      out = out.slice(0, start) + out.slice(start + wrapper.length, end) + out.slice(end + 1);
    }
  }
  return out;
}

const docOf = (node: ts.Node) =>
  ts
    .getJSDocCommentsAndTags(node)
    .filter(ts.isJSDoc)
    .map((d) => ts.getTextOfJSDocComment(d.comment) ?? "")
    .join(" ")
    .replace(/\s+/g, " ")
    .trim();

/** The files of one product's SDK, with its type aliases (`EndpointStatus`) spelled out wherever a type names them. */
function productSdk(product: string) {
  const dir = join(ROOT, "sdk", product);
  const sources = readdirSync(dir).map((f) => ts.createSourceFile(join(dir, f), readFileSync(join(dir, f), "utf8"), ts.ScriptTarget.ES2022, true));
  const aliases = new Map<string, string>();
  for (const source of sources) for (const stmt of source.statements) if (ts.isTypeAliasDeclaration(stmt)) aliases.set(stmt.name.text, unwrap(stmt.type.getText(source)));
  const inline = (text: string) => {
    let out = unwrap(text);
    for (const [name, value] of aliases) out = out.replace(new RegExp(`\\b${name}\\[\\]`, "g"), `(${value})[]`).replace(new RegExp(`\\b${name}\\b`, "g"), value);
    return out;
  };
  const member = (m: ts.PropertySignature | ts.PropertyDeclaration): Member => ({ type: inline(m.type?.getText(m.getSourceFile()) ?? "unknown"), optional: !!m.questionToken, doc: docOf(m) });
  const interfacesOf = (source: ts.SourceFile) =>
    new Map(source.statements.filter(ts.isInterfaceDeclaration).map((i) => [i.name.text, Object.fromEntries(i.members.filter(ts.isPropertySignature).map((m) => [m.name.getText(source), member(m)]))]));
  return { sources, member, interfacesOf };
}

function readSdk(kind: ResourceKind): SdkFile {
  const [product, type] = kind.split(":") as [string, string];
  const { sources, member, interfacesOf } = productSdk(product);
  const source = sources.find((s) => s.fileName.endsWith(`/${kebab(type)}.ts`))!;
  const interfaces = interfacesOf(source);
  let summary = "";
  let outputs: Record<string, Member> = {};
  for (const stmt of source.statements) {
    if (ts.isClassDeclaration(stmt) && stmt.name?.text === type) {
      summary = docOf(stmt);
      const declared = stmt.members.filter((m): m is ts.PropertyDeclaration => ts.isPropertyDeclaration(m) && !!m.modifiers?.some((x) => x.kind === ts.SyntaxKind.DeclareKeyword));
      outputs = Object.fromEntries(declared.map((m) => [m.name.getText(source), member(m)]));
    }
  }
  // The class's TSDoc, else the first paragraph of the file's opening comment.
  const opening = ts.getLeadingCommentRanges(source.text, 0)?.[0];
  if (!summary && opening) {
    const text = source.text.slice(opening.pos, opening.end).replace(/^\/\*\*?|\*\/$/g, "").split("\n").map((l) => l.replace(/^\s*\* ?/, "")).join("\n");
    summary = (text.trim().split(/\n\s*\n/)[0] ?? "").replace(/\s+/g, " ").trim();
  }
  const secretArgs: string[] = [];
  const secretOutputs: string[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isCallExpression(node) && node.expression.getText(node.getSourceFile()) === "pulumi.secret") {
      const arg = node.arguments[0]?.getText(node.getSourceFile()) ?? "";
      // `pulumi.secret(args.secret)`, or of a local made from the argument of that name (`customHeaders`).
      if (/^(args\.)?\w+$/.test(arg)) secretArgs.push(arg.replace(/^args\./, ""));
    }
    if (ts.isVariableDeclaration(node) && node.name.getText(node.getSourceFile()) === "secretOutputs" && node.initializer && ts.isArrayLiteralExpression(node.initializer)) {
      for (const e of node.initializer.elements) if (ts.isStringLiteral(e)) secretOutputs.push(e.text);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  // What the generator cannot say is in the hand-written <kind>.extra.ts beside the class.
  const extra = sources.find((s) => s.fileName.endsWith(`/${kebab(type)}.extra.ts`));
  if (extra) visit(extra);
  return { summary, args: interfaces.get(`${type}Args`) ?? {}, outputs, interfaces, secretArgs: secretArgs.sort(), secretOutputs: secretOutputs.sort() };
}

/** An object type of the schema as the SDK must spell it: members with type, optionality and TSDoc. */
function expectedObject(token: string, side: "input" | "output", s: PackageSpec): Record<string, Member> {
  const type = s.types[token] as ObjectTypeSpec;
  return Object.fromEntries(
    Object.entries(type.properties).map(([name, prop]) => {
      const required = type.required?.includes(name) ?? false;
      return [name, { type: tsType(prop, s, side), optional: !required, doc: prop.description ?? "" }];
    }),
  );
}

describe("the TypeScript SDK classes agree with the schema", () => {
  for (const [kind, def] of Object.entries(DEFINITIONS) as [ResourceKind, NonNullable<(typeof DEFINITIONS)[ResourceKind]>][]) {
    describe(kind, () => {
      const sdk = readSdk(kind);
      const resource = schema.resources[resourceToken(kind)]!;

      it("its class's TSDoc is the kind's description, then its changeNote", () => {
        expect(sdk.summary).toBe([resource.description, def.changeNote].filter(Boolean).join(" "));
      });

      it("its args: names, types, optionality and TSDoc", () => {
        const expected = Object.fromEntries(
          Object.entries(resource.inputProperties).map(([name, prop]) => [
            name,
            { type: tsType(prop, schema, "input") + tsAlsoAccepts(def, name), optional: !resource.requiredInputs?.includes(name), doc: (prop.description ?? "") + tsAlsoSays(def, name) },
          ]),
        );
        expect(sdk.args).toEqual(expected);
      });

      it("its outputs: names, types (null when it may be absent) and TSDoc (an argument's output says only what differs)", () => {
        const expected = Object.fromEntries(
          Object.entries(resource.properties).map(([name, prop]) => {
            const spec = def.fields[name]!;
            const type = tsType(prop, schema, "output");
            return [name, { type: resource.required?.includes(name) ? type : `${type} | null`, optional: false, doc: spec.outputDescription ?? (isArgument(spec) ? "" : (spec.description ?? "")) }];
          }),
        );
        expect(sdk.outputs).toEqual(expected);
      });

      it("the object types its args and outputs name", () => {
        for (const side of ["input", "output"] as const) {
          const props = side === "input" ? resource.inputProperties : resource.properties;
          for (const token of new Set(Object.values(props).flatMap((p) => objectTypesOf(p, schema)))) {
            const name = `${token.split(":")[2]}${side === "input" ? "Args" : ""}`;
            expect(sdk.interfaces.get(name), `${name} in the SDK`).toEqual(expectedObject(token, side, schema));
          }
        }
      });

      it("wraps exactly the secret arguments in pulumi.secret and lists every secret output", () => {
        expect(sdk.secretArgs).toEqual(Object.entries(resource.inputProperties).filter(([, p]) => p.secret).map(([n]) => n).sort());
        expect(sdk.secretOutputs).toEqual(Object.entries(resource.properties).filter(([, p]) => p.secret).map(([n]) => n).sort());
      });
    });
  }
});

describe("the read functions' answers agree with the schema's functions", () => {
  for (const [token, fn] of Object.entries(schema.functions)) {
    it(token, () => {
      // A list function returns an object whose `items` lists Infos; one object's function, the Info's properties (an
      // object, not a bare `$ref`: Pulumi YAML's host cannot read a property of a single-value return).
      const outputs = fn.outputs as { properties?: Record<string, { items?: { $ref?: string } }> };
      const ref = outputs.properties?.["items"]?.items?.$ref;
      const info = ref ? ref.replace("#/types/", "") : `${token.replace(/:get(\w+)$/, ":$1")}Info`;
      if (!ref) expect(outputs.properties).toEqual((schema.types[info] as { properties: unknown }).properties);
      const [, product, name] = info.split(":") as [string, string, string];
      const { sources, interfacesOf } = productSdk(product);
      const sdk = sources.map(interfacesOf).find((m) => m.has(name))?.get(name);
      // Field by field as the resource's outputs describe them; the SDK's Info interfaces carry no TSDoc of their own.
      const strip = (members: Record<string, Member> | undefined) => Object.fromEntries(Object.entries(members ?? {}).map(([k, m]) => [k, { type: m.type, optional: m.optional }]));
      const expected = Object.fromEntries(Object.entries(expectedObject(info, "output", schema)).map(([k, m]) => [k, { type: m.optional ? `${m.type} | null` : m.type, optional: false }]));
      expect(strip(sdk)).toEqual(expected);
    });
  }
});
