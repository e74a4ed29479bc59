/**
 * `npm run generate`: remakes every file derived from the resource definitions
 * (provider/<product>/<kind>.ts, provider/registry.ts) and provider/config-keys.ts:
 *
 * - schema.json and policy/lib/inputs.ts (scripts/schema.ts);
 * - the TypeScript SDK's resource classes, sdk/<product>/<kind>.ts, with the read
 *   functions' answer types (scripts/sdk-classes.ts);
 * - the reference pages, docs/reference/ (scripts/docs.ts);
 * - the resource table of README.md, between its `generated` markers (scripts/readme-table.ts).
 *
 * Each generated file says so in its first line (schema.json cannot: JSON has no
 * comments). test/schema/generated.test.ts fails when a committed file differs.
 */
import { readdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { ResourceDefinition } from "../provider/engine/fields";
import { DEFINITIONS } from "../provider/registry";
import type { ResourceKind } from "../sdk/tokens";
import { renderReference } from "./docs";
import { withReadmeTable } from "./readme-table";
import { buildSchema, renderPolicyInputs, renderSchema } from "./schema";
import { renderSdkClass, sdkFileBase } from "./sdk-classes";

const ROOT = join(__dirname, "..");
/** Directories whose every file is generated: a file no longer made is deleted. */
export const GENERATED_DIRS = ["docs/reference"];

/** Every generated file by its path from the repository root, with its content. */
export function generatedFiles(): Map<string, string> {
  const schema = buildSchema();
  const files = new Map<string, string>();
  files.set("schema.json", renderSchema(schema));
  files.set("policy/lib/inputs.ts", renderPolicyInputs(schema));
  for (const [kind, def] of Object.entries(DEFINITIONS) as [ResourceKind, ResourceDefinition][]) {
    const info = `svc:${def.product}:${kind.split(":")[1]}Info`;
    files.set(`${sdkFileBase(kind)}.ts`, renderSdkClass(kind, def, schema, schema.types[info] ? info : undefined));
  }
  for (const [page, content] of renderReference(schema)) files.set(`docs/reference/${page}`, content);
  files.set("README.md", withReadmeTable(schema));
  return files;
}

if (require.main === module) {
  const files = generatedFiles();
  for (const dir of GENERATED_DIRS) for (const f of readdirSync(join(ROOT, dir))) if (!files.has(`${dir}/${f}`)) rmSync(join(ROOT, dir, f));
  for (const [file, content] of files) writeFileSync(join(ROOT, file), content);
  process.stdout.write(`wrote ${files.size} files\n`);
}
