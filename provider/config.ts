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
 *
 * Optional pacing ceilings per connection (provider/client/pacing.ts):
 * `svc:maxConcurrency` / `svc:requestsPerSecond`, env `SVC_MAX_CONCURRENCY` /
 * `SVC_REQUESTS_PER_SECOND`; in a profile `svc:profiles` `{"P": {"maxConcurrency": 8}}`,
 * env `SVC_PROFILE_<P>_MAX_CONCURRENCY`, else the stack-wide value.
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
  /** Fixed ceilings of the connection's traffic; unset: the controller adapts alone. */
  ceilings: { maxConcurrency?: number; requestsPerSecond?: number };
}

/** Why a connection cannot be made: names the config key and the env variable to set. */
export class MissingSettingError extends Error {
  constructor(
    readonly configKey: string,
    readonly envVar: string,
    /** What is missing, e.g. `address of webhooks for profile "other"`. */
    readonly what: string,
  ) {
    super(`Missing ${what}: set stack config \`${configKey}\` (e.g. ${configSetCommand(configKey, "...")}) or the environment variable ${envVar}.`);
    this.name = "MissingSettingError";
  }
}

/** The `pulumi config set` command that sets `configKey` to `value`: --secret for an API key only (an address is no secret), --path for a profile's setting (without it the CLI makes a flat key named `profiles.<name>...`). */
export function configSetCommand(configKey: string, value: string): string {
  const secret = configKey.endsWith("ApiKey") ? "--secret " : "";
  const path = configKey.startsWith("svc:profiles.") ? "--path " : "";
  return `\`pulumi config set ${secret}${path}${configKey} ${value}\``;
}

const envName = (s: string) => s.replace(/[^A-Za-z0-9]/g, "_").toUpperCase();

/** The config key and env variable that hold one setting of a product in a profile. */
/** The named profile a resource's props choose (its `profile` input), or undefined for the default one. */
export function profileOf(props: Readonly<Record<string, unknown>> | undefined): string | undefined {
  return typeof props?.profile === "string" ? props.profile : undefined;
}

export function settingNames(product: Product, setting: "Url" | "ApiKey", profile?: string): { configKey: string; envVar: string } {
  const key = `${product}${setting}`;
  const envSuffix = `${envName(product)}_${setting === "Url" ? "URL" : "API_KEY"}`;
  if (!profile) return { configKey: `svc:${key}`, envVar: `SVC_${envSuffix}` };
  return { configKey: `svc:profiles.${profile}.${key}`, envVar: `SVC_PROFILE_${envName(profile)}_${envSuffix}` };
}

/** The config keys (`svc:webhooksApiKey`, `svc:profiles.<name>.inboxesApiKey`, ...) that hold an API key in `source`. */
export function apiKeysIn(source: ConfigSource): string[] {
  const profiles = Object.entries(profileTable(source));
  return PRODUCTS.flatMap((product) => {
    const key = `${product}ApiKey`;
    const named = profiles.filter(([, settings]) => nonEmpty(settings?.[key])).map(([profile]) => settingNames(product, "ApiKey", profile).configKey);
    return [...(nonEmpty(source(key)) ? [settingNames(product, "ApiKey").configKey] : []), ...named];
  });
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
    const problem = setting === "Url" ? addressProblem(value, product) : undefined;
    if (problem) {
      const where = configured !== undefined ? `Stack config \`${names.configKey}\`` : `The environment variable ${names.envVar}`;
      throw new InvalidSettingError(`${where} ${problem}`);
    }
    return value;
  };
  const ceilings = {
    maxConcurrency: readCeiling(source, "maxConcurrency", profile, env, () => (usedEnv = true)),
    requestsPerSecond: readCeiling(source, "requestsPerSecond", profile, env, () => (usedEnv = true)),
  };
  const conn: Connection = { product, profile, baseUrl: read("Url"), apiKey: read("ApiKey"), ceilings };
  if (!usedEnv && env === process.env) {
    let bySource = fromConfig.get(source);
    if (!bySource) fromConfig.set(source, (bySource = new Map()));
    bySource.set(memoKey, conn);
  }
  return conn;
}

/**
 * Why a service address is not one (undefined: it is). A user name, password or query would be sent on every request
 * and printed in every message that names the address, and a query breaks the paths appended to it: refused, without
 * repeating them (the key goes in the ApiKey setting).
 */
function addressProblem(value: string, product: Product): string | undefined {
  const url = URL.canParse(value) ? new URL(value) : undefined;
  if (!url || !["http:", "https:"].includes(url.protocol))
    return `is ${JSON.stringify(value)}; it must be an http:// or https:// URL of the ${product} service (e.g. https://api.example.com/${product}).`;
  // A bare `?` or `#` leaves `search` and `hash` empty: looked for in the text.
  if (url.username || url.password || /[?#]/.test(value))
    return `holds ${url.username || url.password ? "a user name or password" : "a query or fragment"} (not shown here); it must be the ${product} service's base URL alone, e.g. ${url.protocol}//${url.host}${url.pathname.replace(/\/+$/, "")}: the API key goes in the ${product}ApiKey setting.`;
  return undefined;
}

/** A setting with a value it cannot take: names the key (or variable), the value and the limit. */
export class InvalidSettingError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "InvalidSettingError";
  }
}

type Ceiling = "maxConcurrency" | "requestsPerSecond";
const CEILING_LIMITS: Record<Ceiling, { max: number; whole: boolean; what: string }> = {
  maxConcurrency: { max: 10_000, whole: true, what: "a whole number of requests in flight from 1 to 10000" },
  requestsPerSecond: { max: 100_000, whole: false, what: "a number of requests per second above 0, at most 100000" },
};

/** A pacing ceiling: the profile's value, else the stack-wide one; config before env. */
function readCeiling(source: ConfigSource, name: Ceiling, profile: string | undefined, env: NodeJS.ProcessEnv, fromEnv: () => void): number | undefined {
  const envSuffix = name.replace(/[A-Z]/g, (c) => `_${c}`).toUpperCase();
  const places: { configKey: string; envVar: string; configured: unknown }[] = [];
  if (profile) places.push({ configKey: `svc:profiles.${profile}.${name}`, envVar: `SVC_PROFILE_${envName(profile)}_${envSuffix}`, configured: profileTable(source)[profile]?.[name] });
  places.push({ configKey: `svc:${name}`, envVar: `SVC_${envSuffix}`, configured: source(name) });
  for (const place of places) {
    const configured = typeof place.configured === "number" ? String(place.configured) : nonEmpty(place.configured);
    const raw = configured ?? nonEmpty(env[place.envVar]);
    if (raw === undefined) continue;
    if (configured === undefined) fromEnv();
    const value = Number(raw);
    const limit = CEILING_LIMITS[name];
    if (!Number.isFinite(value) || value <= 0 || value > limit.max || (limit.whole && !Number.isInteger(value))) {
      const where = configured !== undefined ? `Stack config \`${place.configKey}\`` : `The environment variable ${place.envVar}`;
      throw new InvalidSettingError(`${where} is ${JSON.stringify(raw)}; it must be ${limit.what}.`);
    }
    return value;
  }
  return undefined;
}

/**
 * Connections resolved wholly from a config source, per product and profile. A
 * source is one run's stack config, which does not change while it lives (the
 * plugin gets a new one on every configure()); every resource operation resolves
 * its connection, so this saves re-reading (and re-parsing `svc:profiles`) each
 * time. Connections that fell back to the environment are resolved afresh.
 */
const fromConfig = new WeakMap<ConfigSource, Map<string, Connection>>();

/** The `svc:profiles` table of `source`, by profile name. */
export function profileTable(source: ConfigSource): Record<string, Record<string, string | undefined> | undefined> {
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

/**
 * How long the provider keeps looking for the object of a create whose answer was
 * lost before it decides the create made nothing (provider/engine/reconcile.ts):
 * stack config `svc:reconcileWindowSeconds`, else env `SVC_RECONCILE_WINDOW_SECONDS`,
 * else RECONCILE_WINDOW_DEFAULT_SECONDS. Throws a message naming the setting, the
 * value's problem and the bounds (check() shows it at preview).
 */
export const RECONCILE_WINDOW_DEFAULT_SECONDS = 15;
export const RECONCILE_WINDOW_MAX_SECONDS = 600;

export function reconcileWindowSeconds(source: ConfigSource = pluginConfigSource(), env: NodeJS.ProcessEnv = process.env): number {
  const configured = nonEmpty(source("reconcileWindowSeconds"));
  const raw = configured ?? nonEmpty(env.SVC_RECONCILE_WINDOW_SECONDS);
  if (raw === undefined) return RECONCILE_WINDOW_DEFAULT_SECONDS;
  const where = configured !== undefined ? "Stack config `svc:reconcileWindowSeconds`" : "The environment variable SVC_RECONCILE_WINDOW_SECONDS";
  const value = Number(raw);
  if (!/^\d+(\.\d+)?$/.test(raw) || !Number.isFinite(value) || value > RECONCILE_WINDOW_MAX_SECONDS)
    throw new Error(`${where} is ${JSON.stringify(raw.slice(0, 40))}: expected a number of seconds from 0 to ${RECONCILE_WINDOW_MAX_SECONDS} (default ${RECONCILE_WINDOW_DEFAULT_SECONDS}).`);
  return value;
}
