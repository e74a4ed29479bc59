/**
 * What the SDK's functions use to talk to the service. They run in the program
 * process (not in the plugin): settings come from `new pulumi.Config("svc")` there,
 * else the environment; keys only ever reach the client's Authorization header.
 */
import * as pulumi from "@pulumi/pulumi";
import type { ConfigSource, Product } from "../provider/config";
import type { OperationContext } from "../provider/engine/fields";
import { operationContext } from "../provider/engine/engine-operation";

/** The stack config of the program (namespace `svc`). */
export function programConfig(): ConfigSource {
  const config = new pulumi.Config("svc");
  return (key) => config.get(key);
}

/** A client (and read cache) for a product and connection profile, from the program's settings. */
export function programContext(product: Product, profile: string | undefined): OperationContext {
  return operationContext({ product }, profile, programConfig());
}
