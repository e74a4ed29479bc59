/**
 * The benchmark stack as a Pulumi program: the same resources as bench/stack.ts
 * declares for the provider-direct runs, through the SDK classes of the registered kinds.
 */
import * as pulumi from "@pulumi/pulumi";
import * as svc from "pulumi-svc";
import { mixedStack, stackKinds } from "../stack";

const config = new pulumi.Config("bench");
const count = config.requireNumber("count");
const variant = config.getNumber("variant") ?? 1;
const offset = config.getNumber("offset") ?? 0;
const kinds = stackKinds(JSON.parse(config.require("kinds")) as string[]);

type Ctor = new (name: string, args: Record<string, unknown>) => pulumi.CustomResource;
const classOf = (kind: string): Ctor => {
  const [product, type] = kind.split(":") as [string, string];
  const cls = (svc as unknown as Record<string, Record<string, Ctor> | undefined>)[product]?.[type];
  if (!cls) throw new Error(`pulumi-svc has no SDK class for ${kind}`);
  return cls;
};

for (const d of mixedStack(count, variant, kinds, offset)) new (classOf(d.kind))(d.name, d.inputs);
