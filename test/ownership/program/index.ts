/**
 * Declares what config `ownership:resources` lists: `[{ kind, name, inputs, dependsOn }]`,
 * each through the SDK class of its kind, `dependsOn` naming resources listed before it.
 * A value `{ "$secret": "k" }` in the inputs is the secret config `ownership:k`.
 */
import * as pulumi from "@pulumi/pulumi";
import * as svc from "pulumi-svc";

interface Declared {
  kind: string;
  name: string;
  inputs: Record<string, unknown>;
  dependsOn?: string[];
}

const config = new pulumi.Config("ownership");
const declared = JSON.parse(config.get("resources") ?? "[]") as Declared[];

type Ctor = new (name: string, args: Record<string, unknown>, opts?: pulumi.CustomResourceOptions) => pulumi.CustomResource;
function classOf(kind: string): Ctor {
  const [product, type] = kind.split(":") as [string, string];
  const cls = (svc as unknown as Record<string, Record<string, Ctor> | undefined>)[product]?.[type];
  if (!cls) throw new Error(`pulumi-svc has no SDK class for ${kind}`);
  return cls;
}

function withSecrets(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withSecrets);
  if (value && typeof value === "object") {
    const ref = (value as { $secret?: unknown }).$secret;
    if (typeof ref === "string") return config.requireSecret(ref);
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, withSecrets(v)]));
  }
  return value;
}

const made: Record<string, pulumi.CustomResource> = {};
for (const d of declared) {
  made[d.name] = new (classOf(d.kind))(d.name, withSecrets(d.inputs) as Record<string, unknown>, { dependsOn: (d.dependsOn ?? []).map((n) => made[n]!) });
}

export const resourceIds = Object.fromEntries(Object.entries(made).map(([n, r]) => [n, r.id]));
