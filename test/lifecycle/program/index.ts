/**
 * Declares what config `lifecycle:resources` lists: `[{ kind, name, inputs, dependsOn?, options? }]`,
 * each through the SDK class of its kind (`webhooks:Endpoint` -> svc.webhooks.Endpoint),
 * `dependsOn` naming resources listed before it, `options` plain resource options
 * (e.g. `deleteBeforeReplace`).
 * A value `{ "$secret": "k" }` anywhere in the inputs is the secret config
 * `lifecycle:k`, so secret inputs never sit in plaintext in the stack's config.
 * Exports each resource's id under its name. Kept free of today's helpers so the
 * same program runs with older releases (test/fixtures/state/README.md).
 */
import * as pulumi from "@pulumi/pulumi";
import * as svc from "pulumi-svc";

interface Declared {
  kind: string;
  name: string;
  inputs: Record<string, unknown>;
  dependsOn?: string[];
  options?: pulumi.CustomResourceOptions;
}

const config = new pulumi.Config("lifecycle");
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
  const dependsOn = (d.dependsOn ?? []).map((n) => made[n]!);
  const opts = { ...d.options, ...(dependsOn.length > 0 ? { dependsOn } : {}) };
  made[d.name] = new (classOf(d.kind))(d.name, withSecrets(d.inputs) as Record<string, unknown>, Object.keys(opts).length > 0 ? opts : undefined);
}

export const resourceIds = Object.fromEntries(Object.entries(made).map(([n, r]) => [n, r.id]));
