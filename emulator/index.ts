/**
 * The svc emulator: a real HTTP server on loopback implementing the Webhooks,
 * Inboxes and Infrastructure APIs of shared/spec, for tests, demos and users' CI.
 *
 *   const emu = await startEmulator({ port: 0 });
 *   // emu.url + "/webhooks" is a webhooksUrl; GET emu.url + "/_emulator/keys" gives keys
 *   await emu.close();
 */
import { buildApp, type ProductModule } from "./core/app";
import { EmulatorContext, type DefaultKeys, type EmulatorOptions } from "./core/context";
import { controlRoutes } from "./core/control";
import { productModules } from "./products";

export type { EmulatorOptions, DefaultKeys } from "./core/context";
/** @internal (fastify's typings, which need `esModuleInterop`, stay out of the published ones) */
export type { ProductModule } from "./core/app";

export interface RunningEmulator {
  /** e.g. `http://127.0.0.1:4010`; products are under `/webhooks`, `/inboxes`, `/infra`. */
  url: string;
  webhooksUrl: string;
  inboxesUrl: string;
  infraUrl: string;
  /** The default workspace's ids and keys. */
  keys: DefaultKeys;
  /**
   * In-process access for tests that need it (prefer the HTTP control plane).
   * @internal not in the published typings (see `ProductModule`).
   */
  context: EmulatorContext;
  /** Every route the server answers (method, URL pattern such as `/webhooks/v1/endpoints/:id`). */
  routes: { method: string; url: string }[];
  close(): Promise<void>;
}

export async function startEmulator(options?: EmulatorOptions): Promise<RunningEmulator>;
/** @internal with product modules of a test's own (left out of the published typings, like `ProductModule`) */
export async function startEmulator(options: EmulatorOptions & { modules?: ProductModule[] }): Promise<RunningEmulator>;
export async function startEmulator(options: EmulatorOptions & { modules?: ProductModule[] } = {}): Promise<RunningEmulator> {
  const ctx = new EmulatorContext(options);
  const { app, routes } = buildApp(ctx, options.modules ?? productModules, controlRoutes(ctx));
  await app.listen({ host: "127.0.0.1", port: options.port ?? 0 });
  const address = app.server.address();
  const port = typeof address === "object" && address ? address.port : options.port;
  const url = `http://127.0.0.1:${port}`;
  ctx.baseUrl = url;
  return {
    url,
    webhooksUrl: `${url}/webhooks`,
    inboxesUrl: `${url}/inboxes`,
    infraUrl: `${url}/infra`,
    keys: ctx.defaults,
    context: ctx,
    routes,
    async close() {
      await app.close();
      await ctx.store.flush();
    },
  };
}
