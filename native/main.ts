#!/usr/bin/env node
/**
 * `pulumi-resource-svc`: the native provider plugin. The engine starts it with its own
 * address as the one argument (besides logging flags) and reads the port from the
 * first line of stdout; nothing else is ever written there.
 */
import * as grpc from "@grpc/grpc-js";
import * as provrpc from "@pulumi/pulumi/proto/provider_grpc_pb";
import { preload } from "./operations";
import { providerService } from "./server";

async function main(): Promise<void> {
  const engineAddress = process.argv.slice(2).find((a) => !a.startsWith("-"));
  // The engine's own limit: a stack's properties can be large.
  const server = new grpc.Server({ "grpc.max_receive_message_length": 400 * 1024 * 1024 });
  server.addService(provrpc.ResourceProviderService, providerService(engineAddress));
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync("127.0.0.1:0", grpc.ServerCredentials.createInsecure(), (err, p) => (err ? reject(err) : resolve(p))),
  );
  process.stdout.write(`${port}\n`);
  preload();
}

main().catch((err: unknown) => {
  console.error(`pulumi-resource-svc: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
});
