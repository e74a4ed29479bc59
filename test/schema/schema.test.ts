/**
 * schema.json and policy/lib/inputs.ts are generated from the definitions (`npm run
 * generate`, scripts/schema.ts; test/schema/generated.test.ts checks they are current):
 * they cover every kind, and schema.json must be one the real Pulumi CLI binds
 * (its metaschema included): `pulumi package get-schema` refuses one it cannot bind.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { DEFINITIONS } from "../../provider/registry";
import { buildSchema, renderSchema, resourceToken, SCHEMA_FILE, type PackageSpec } from "../../scripts/schema";
import { RESOURCE_KINDS } from "../../sdk/tokens";
import { cliBinDir, PULUMI_CLI_MISSING } from "../support/pulumi-cli";

const schema = buildSchema();

describe("schema.json", () => {
  it("lists all nine kinds as svc:<product>:<Type>, each with a description, and every argument and output described", () => {
    expect(Object.keys(schema.resources).sort()).toEqual(RESOURCE_KINDS.map(resourceToken).sort());
    expect(schema.resources["svc:webhooks:Endpoint"]).toBeDefined();
    for (const [token, resource] of Object.entries(schema.resources)) {
      expect(resource.description, token).toBeTruthy();
      for (const [name, prop] of [...Object.entries(resource.inputProperties), ...Object.entries(resource.properties)]) expect(prop.description, `${token}.${name}`).toBeTruthy();
    }
  });

  it("marks every secret field of the definitions secret, as argument and as output, and nothing else", () => {
    for (const [kind, def] of Object.entries(DEFINITIONS)) {
      const resource = schema.resources[`svc:${kind}`]!;
      const secretFields = Object.entries(def!.fields).filter(([, spec]) => spec.secret).map(([name]) => name).sort();
      const secretOutputs = Object.entries(resource.properties).filter(([, p]) => p.secret).map(([name]) => name).sort();
      const secretArgs = Object.entries(resource.inputProperties).filter(([, p]) => p.secret).map(([name]) => name);
      expect(secretOutputs, kind).toEqual(secretFields);
      expect(secretArgs.every((name) => secretFields.includes(name)), kind).toBe(true);
    }
    expect(schema.resources["svc:webhooks:Endpoint"]!.inputProperties["customHeaders"]!.secret).toBe(true);
    expect(schema.resources["svc:webhooks:Source"]!.properties["generatedSecret"]!.secret).toBe(true);
  });

  it("declares every svc: config key as provider config, secrets secret", () => {
    expect(Object.keys(schema.config.variables)).toEqual(expect.arrayContaining(["webhooksUrl", "webhooksApiKey", "inboxesApiKey", "infraApiKey", "profiles", "skipRemoteChecks"]));
    expect(schema.config.variables["webhooksApiKey"]!.secret).toBe(true);
    expect(schema.config.variables["webhooksApiKey"]!.defaultInfo).toEqual({ environment: ["SVC_WEBHOOKS_API_KEY"] });
  });

  describe.skipIf(PULUMI_CLI_MISSING !== undefined)("under the real Pulumi CLI", () => {
    const getSchema = (file: string) =>
      spawnSync(join(cliBinDir(), "pulumi"), ["package", "get-schema", file], {
        cwd: mkdtempSync(join(tmpdir(), "svc-schema-")),
        encoding: "utf8",
        env: { ...process.env, PULUMI_HOME: mkdtempSync(join(tmpdir(), "svc-schema-home-")), PULUMI_SKIP_UPDATE_CHECK: "true", PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION: "true" },
      });

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
});
