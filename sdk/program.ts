/**
 * What the SDK's functions use to talk to the service. They run in the program
 * process (not in the plugin): settings come from `new pulumi.Config("svc")` there,
 * else the environment; keys only ever reach the client's Authorization header.
 *
 * The provider's modules (its client, definitions and read functions, with zod, ajv and
 * undici) load at a function's first call, not with the SDK: a program that declares
 * resources and calls no function does not pay for them at every start (about 0.2 s of
 * CPU, for each preview and update).
 */
import * as pulumi from "@pulumi/pulumi";
import type { ConfigSource, Product } from "../provider/config";
import type { OperationContext } from "../provider/engine/fields";
import type * as functions from "../provider/functions";

/** The stack config of the program (namespace `svc`). */
export function programConfig(): ConfigSource {
  const config = new pulumi.Config("svc");
  return (key) => config.get(key);
}

/** The provider's modules the functions call, loaded once, at the first call. */
export const providerSide = () => import("./provider-side.js");

/** One of the read functions the native plugin serves too (provider/functions.ts), with the program's settings. */
export async function runReadFunction<T>(name: keyof typeof functions.READ_FUNCTIONS, args: object): Promise<T> {
  return (await (await providerSide()).READ_FUNCTIONS[name].run({ ...args }, programConfig())) as unknown as T;
}

/** A client (and read cache) for a product and connection profile, from the program's settings. */
export async function programContext(product: Product, profile: string | undefined): Promise<OperationContext> {
  return (await providerSide()).operationContext({ product }, profile, programConfig());
}
