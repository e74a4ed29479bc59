/**
 * schema.json and policy/lib/inputs.ts are generated from the definitions (`npm run
 * generate`, scripts/schema.ts; test/schema/generated.test.ts checks they are current):
 * they cover every kind. That the real Pulumi CLI binds it: schema-cli.test.ts.
 */
import { describe, expect, it } from "vitest";
import { DEFINITIONS } from "../../provider/registry";
import { buildSchema, resourceToken } from "../../scripts/schema";
import { RESOURCE_KINDS } from "../../sdk/tokens";

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
});
