/**
 * schema.json must be one the real Pulumi CLI binds (its metaschema included): `pulumi
 * package get-schema` refuses one it cannot bind. (What it covers: schema.test.ts.)
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { buildSchema, renderSchema, SCHEMA_FILE, type PackageSpec } from "../../scripts/schema";
import { countCliCommand } from "../support/cli-commands";
import { cliBinDir, PULUMI_CLI_MISSING } from "../support/pulumi-cli";

const schema = buildSchema();

describe.skipIf(PULUMI_CLI_MISSING !== undefined)("schema.json under the real Pulumi CLI", () => {
  const getSchema = (file: string) => {
    countCliCommand(["package", "get-schema"]);
    return spawnSync(join(cliBinDir(), "pulumi"), ["package", "get-schema", file], {
      cwd: mkdtempSync(join(tmpdir(), "svc-schema-")),
      encoding: "utf8",
      env: { ...process.env, PULUMI_HOME: mkdtempSync(join(tmpdir(), "svc-schema-home-")), PULUMI_SKIP_UPDATE_CHECK: "true", PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION: "true" },
    });
  };

  it("`pulumi package get-schema ./schema.json` binds it and gives back the nine resources", () => {
    const r = getSchema(SCHEMA_FILE);
    expect(r.stderr).toBe("");
    expect(r.status).toBe(0);
    const bound = JSON.parse(r.stdout) as PackageSpec;
    expect(bound.name).toBe("svc");
    expect(Object.keys(bound.resources).sort()).toEqual(Object.keys(schema.resources).sort());
  });

  it("refuses a schema the metaschema rejects (so the check above can fail)", () => {
    const broken = structuredClone(schema);
    (broken.resources["svc:webhooks:Endpoint"]!.properties["url"] as { type: string }).type = "text";
    const file = join(mkdtempSync(join(tmpdir(), "svc-schema-")), "schema.json");
    writeFileSync(file, renderSchema(broken));
    const r = getSchema(file);
    expect(r.status).not.toBe(0);
    expect(r.stderr).toContain("#/resources/svc:webhooks:Endpoint/properties/url");
  });
});
