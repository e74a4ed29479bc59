/**
 * Connections: a client and a read cache per product and profile, from the configured
 * settings. Plugin-process state, never serialized: one client per address and key
 * (its pacing sees the whole stack's traffic), and the reads remote checks share
 * (stack-run.ts says why once per process is sound).
 */
import { SvcClient } from "../client";
import { pluginConfigSource, resolveConnection, settingNames, type ConfigSource, type Connection, type Product } from "../config";
import type { OperationContext, ResourceDefinition } from "./fields";
import { forgetClaims } from "./claims";
import { forgetStackRun } from "./stack-run";
import { watchEngine } from "./engine-link";

const clients = new Map<string, SvcClient>();
const readCache = new Map<string, Promise<unknown>>();
/** Address and key → `connection N`, so no key is kept in what names a connection. */
const connectionIds = new Map<string, string>();

/** A client and a read cache for a product and profile, from the configured settings. */
export function operationContext(def: Pick<ResourceDefinition, "product">, profile: string | undefined, source: ConfigSource = pluginConfigSource()): OperationContext {
  // A plugin whose engine is gone (a killed \`pulumi\`) ends, from its first call on.
  watchEngine();
  const conn = resolveConnection(source, def.product, profile);
  // A connection resolved from config is the same object each time (resolveConnection's memo): so is its context.
  let ctx = contexts.get(conn);
  if (!ctx) contexts.set(conn, (ctx = newOperationContext(conn, def.product, profile)));
  return ctx;
}

const contexts = new WeakMap<Connection, OperationContext>();

function newOperationContext(conn: Connection, product: Product, profile: string | undefined): OperationContext {
  const cacheKey = `${conn.baseUrl}\u0000${conn.apiKey}`;
  // Errors name the setting that holds the address, so two profiles with the same
  // connection get a client each; they share its pacing (one per base URL and key).
  const names = settingNames(product, "Url", profile);
  const addressSetting = `${names.configKey} (or ${names.envVar})`;
  const clientKey = `${cacheKey}\u0000${addressSetting}`;
  let client = clients.get(clientKey);
  if (!client) {
    client = new SvcClient({ baseUrl: conn.baseUrl, apiKey: conn.apiKey, pacing: conn.ceilings, addressSetting });
    clients.set(clientKey, client);
  }
  let connectionId = connectionIds.get(cacheKey);
  if (!connectionId) connectionIds.set(cacheKey, (connectionId = `connection ${connectionIds.size + 1}`));
  return {
    client,
    profile,
    connectionId,
    cached<T>(key: string, load: () => Promise<T>): Promise<T> {
      const k = `${cacheKey}\u0000${key}`;
      let p = readCache.get(k) as Promise<T> | undefined;
      if (!p) {
        p = load();
        // A failed read is not cached: the next check may succeed.
        p.catch(() => readCache.delete(k));
        readCache.set(k, p);
      }
      return p;
    },
  };
}

/** Forget cached reads, what the checks learnt of the stack (stack-run.ts) and the ids held (claims.ts), as a new plugin process would (tests). */
export function clearReadCache(): void {
  readCache.clear();
  forgetStackRun();
  forgetClaims();
}
