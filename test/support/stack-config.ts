/** The stack settings that point a program at a workspace of the emulator. */
import type { RunningEmulator } from "../../emulator";
import type { EngineOptions } from "./run-types";

export interface ProductKeys {
  webhooks: { admin: string };
  inboxes: { admin: string };
  infra: { admin: string };
}

type Product = keyof ProductKeys;
/** The emulator's address of each product. */
export type EmulatorUrls = Pick<RunningEmulator, "webhooksUrl" | "inboxesUrl" | "infraUrl">;
const PRODUCTS: readonly Product[] = ["webhooks", "inboxes", "infra"];

/** The config of every product for a workspace, its admin keys (the provider's default profile), in-process. */
export function allProductsConfig(emu: RunningEmulator, ws: ProductKeys): Record<string, string> {
  const { config, secrets } = emulatorStack(emu, { webhooks: ws.webhooks.admin, inboxes: ws.inboxes.admin, infra: ws.infra.admin });
  return { ...config, ...secrets };
}

/** The environment fallback of every product's address and key blanked (config.ts reads SVC_*_URL, SVC_*_API_KEY): only the stack's settings count. */
export const NO_ENV_SETTINGS: Readonly<Record<string, string>> = Object.fromEntries(PRODUCTS.flatMap((p) => [`SVC_${p.toUpperCase()}_URL`, `SVC_${p.toUpperCase()}_API_KEY`]).map((k) => [k, ""]));

/**
 * A stack run's settings for the emulator: each product given a key gets its address as
 * stack config and the key as secret config, the environment fallback is blanked, and
 * `extra` adds the program's own.
 */
export function emulatorStack(emu: EmulatorUrls, keys: Partial<Record<Product, string>>, extra: Pick<EngineOptions, "config" | "secrets" | "env"> = {}): Required<Pick<EngineOptions, "config" | "secrets" | "env">> {
  const given = PRODUCTS.filter((p) => keys[p] !== undefined);
  return {
    config: { ...Object.fromEntries(given.map((p) => [`svc:${p}Url`, emu[`${p}Url`]])), ...extra.config },
    secrets: { ...Object.fromEntries(given.map((p) => [`svc:${p}ApiKey`, keys[p]!])), ...extra.secrets },
    env: { ...NO_ENV_SETTINGS, ...extra.env },
  };
}
