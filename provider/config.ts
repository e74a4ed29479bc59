/**
 * Where each product lives and which key to use, for a resource's `profile`.
 *
 * Sources, first match wins, per setting:
 *   default profile: stack config `svc:webhooksUrl` / `svc:webhooksApiKey` (likewise
 *                    inboxes, infra), else env `SVC_WEBHOOKS_URL` / `SVC_WEBHOOKS_API_KEY`.
 *   named profile P: stack config `svc:profiles` (a JSON object
 *                    `{"P": {"webhooksUrl": ..., "webhooksApiKey": ...}}`), else env
 *                    `SVC_PROFILE_<P>_WEBHOOKS_URL` / `SVC_PROFILE_<P>_WEBHOOKS_API_KEY`
 *                    (P upper-cased, every other character than A-Z0-9 as `_`).
 *
 * Inside the dynamic-provider plugin the stack config comes from `configure()` (the
 * engine passes it whole, namespaced, secrets unwrapped); in the program process
 * (the SDK's functions) from `new pulumi.Config("svc")`. Both are a ConfigSource.
 * Keys are only ever handed to the client: never to inputs, outputs or messages.
 */

export type Product = "webhooks" | "inboxes" | "infra";
export const PRODUCTS: Product[] = ["webhooks", "inboxes", "infra"];

/** Reads one stack-config key without its namespace, e.g. `webhooksApiKey`. */
export type ConfigSource = (key: string) => string | undefined;

export interface Connection {
  product: Product;
  profile: string | undefined;
  baseUrl: string;
  apiKey: string;
}

/** Why a connection cannot be made: names the config key and the env variable to set. */
export class MissingSettingError extends Error {
  constructor(
    readonly configKey: string,
    readonly envVar: string,
    what: string,
  ) {
    super(`Missing ${what}: set stack config \`${configKey}\` (e.g. \`pulumi config set --secret ${configKey} ...\`) or the environment variable ${envVar}.`);
    this.name = "MissingSettingError";
  }
}

const envName = (s: string) => s.replace(/[^A-Za-z0-9]/g, "_").toUpperCase();

/** The config key and env variable that hold one setting of a product in a profile. */
export function settingNames(product: Product, setting: "Url" | "ApiKey", profile?: string): { configKey: string; envVar: string } {
  const key = `${product}${setting}`;
  const envSuffix = `${envName(product)}_${setting === "Url" ? "URL" : "API_KEY"}`;
  if (!profile) return { configKey: `svc:${key}`, envVar: `SVC_${envSuffix}` };
  return { configKey: `svc:profiles.${profile}.${key}`, envVar: `SVC_PROFILE_${envName(profile)}_${envSuffix}` };
}

export function resolveConnection(source: ConfigSource, product: Product, profile?: string, env: NodeJS.ProcessEnv = process.env): Connection {
  const memoKey = `${product}\u0000${profile ?? ""}`;
  const memo = env === process.env ? fromConfig.get(source)?.get(memoKey) : undefined;
  if (memo) return memo;
  let usedEnv = false;
  const read = (setting: "Url" | "ApiKey"): string => {
    const names = settingNames(product, setting, profile);
    const key = `${product}${setting}`;
    const configured = nonEmpty(profile ? profileTable(source)[profile]?.[key] : source(key));
    const value = configured ?? nonEmpty(env[names.envVar]);
    if (value === undefined) {
      const what = `${setting === "Url" ? "address" : "API key"} of ${product}${profile ? ` for profile "${profile}"` : ""}`;
      throw new MissingSettingError(names.configKey, names.envVar, what);
    }
    usedEnv ||= configured === undefined;
    return value;
  };
  const conn: Connection = { product, profile, baseUrl: read("Url"), apiKey: read("ApiKey") };
  if (!usedEnv && env === process.env) {
    let bySource = fromConfig.get(source);
    if (!bySource) fromConfig.set(source, (bySource = new Map()));
    bySource.set(memoKey, conn);
  }
  return conn;
}

/**
 * Connections resolved wholly from a config source, per product and profile. A
 * source is one run's stack config, which does not change while it lives (the
 * plugin gets a new one on every configure()); every resource operation resolves
 * its connection, so this saves re-reading (and re-parsing `svc:profiles`) each
 * time. Connections that fell back to the environment are resolved afresh.
 */
const fromConfig = new WeakMap<ConfigSource, Map<string, Connection>>();

function profileTable(source: ConfigSource): Record<string, Record<string, string | undefined> | undefined> {
  const raw = source("profiles");
  if (!raw) return {};
  try {
    const parsed = JSON.parse(raw) as unknown;
    return parsed && typeof parsed === "object" ? (parsed as Record<string, Record<string, string>>) : {};
  } catch {
    // Never echo the raw text: it holds keys.
    throw new Error("Stack config `svc:profiles` is not a JSON object of profiles; expected {\"<profile>\": {\"webhooksUrl\": ..., \"webhooksApiKey\": ...}}.");
  }
}

function nonEmpty(v: unknown): string | undefined {
  return typeof v === "string" && v.trim() !== "" ? v.trim() : undefined;
}

/**
 * The stack config the plugin received through `configure()`. Module state of the
 * provider package, set in the plugin process only, so it is never serialized.
 */
let pluginConfig: ConfigSource = () => undefined;

/** Adapter for the dynamic provider's `configure({config})`: keys are namespaced there. */
export function setPluginConfig(config: { get(key: string): string | undefined }): void {
  pluginConfig = (key) => config.get(`svc:${key}`);
  fromConfig.delete(followsPluginConfig); // connections resolved from the previous config
}

/** One source for the plugin's config, whichever configure() set it last. */
const followsPluginConfig: ConfigSource = (key) => pluginConfig(key);

export function pluginConfigSource(): ConfigSource {
  return followsPluginConfig;
}
