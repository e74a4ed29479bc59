/**
 * Every stack-config key the provider reads, as data: the reference page
 * docs/reference/configuration.md and the schema's provider config (schema.json) are
 * generated from this table (scripts/docs.ts, scripts/schema.ts), so a new key appears
 * there once it is added here. How the keys are read: config.ts.
 */
import { closestName } from "../rules/names";
import { configSetCommand, PRODUCTS, profileTable, RECONCILE_WINDOW_DEFAULT_SECONDS, RECONCILE_WINDOW_MAX_SECONDS, settingNames, type ConfigSource, type Product } from "./config";
import { SKIP_REMOTE_CHECKS } from "./engine/remote-checks";

export interface ConfigKeyDoc {
  /** The stack-config key, e.g. `svc:webhooksUrl`. */
  key: string;
  /** The value's type, as the schema declares it (`object`: a map of the named settings). */
  type: "string" | "integer" | "number" | "boolean" | "object";
  /** The environment variable read when the stack config has no value, if any. */
  env?: string;
  /** Set it with `pulumi config set --secret`. */
  secret: boolean;
  /** Needed by which resources and functions; absent: optional. */
  requiredFor?: string;
  /** What happens without it, for an optional key. */
  default?: string;
  description: string;
}

const PRODUCT_TITLE: Record<Product, string> = { webhooks: "Webhooks", inboxes: "Inboxes", infra: "Infrastructure" };
const EMULATOR_PATH: Record<Product, string> = { webhooks: "/webhooks", inboxes: "/inboxes", infra: "/infra" };
const KEY_NOTE: Record<Product, string> = {
  webhooks: "`admin` scope to manage resources; a `read` key is enough for the functions.",
  inboxes: "`admin` scope to manage inboxes.",
  infra: "`svc_live_...` or `svc_test_...`; `QuotaLimits` needs an admin key (`iam:write`).",
};

export const CONFIG_KEYS: ConfigKeyDoc[] = [
  ...PRODUCTS.flatMap((product): ConfigKeyDoc[] => {
    const url = settingNames(product, "Url");
    const key = settingNames(product, "ApiKey");
    const requiredFor = `every ${PRODUCT_TITLE[product]} resource and function`;
    return [
      {
        key: url.configKey,
        type: "string",
        env: url.envVar,
        secret: false,
        requiredFor,
        description: `Address of the ${PRODUCT_TITLE[product]} API, with its product path (the emulator's: \`http://127.0.0.1:4010${EMULATOR_PATH[product]}\`).`,
      },
      { key: key.configKey, type: "string", env: key.envVar, secret: true, requiredFor, description: `The ${PRODUCT_TITLE[product]} API key: ${KEY_NOTE[product]}` },
    ];
  }),
  {
    key: "svc:profiles",
    type: "object",
    env: "SVC_PROFILE_<NAME>_<SETTING>",
    secret: true,
    default: "no named profiles",
    description:
      "Named connection profiles for several workspaces in one program, chosen per resource with its `profile` argument: an object `{\"<name>\": {\"webhooksUrl\": ..., \"webhooksApiKey\": ...}}` (set with `pulumi config set --secret --path 'svc:profiles.<name>.webhooksApiKey' ...`); in the environment `SVC_PROFILE_<NAME>_WEBHOOKS_URL` and so on (the name upper-cased, other characters than A-Z and 0-9 as `_`).",
  },
  {
    key: "svc:maxConcurrency",
    type: "integer",
    env: "SVC_MAX_CONCURRENCY",
    secret: false,
    default: "adaptive: starts at 8 requests in flight per connection, grows while the service keeps up, halves on a 429 or 503",
    description:
      "A fixed ceiling on the requests in flight to one service with one key (a whole number from 1 to 10000), for something between you and the service that cannot take many connections. A profile takes its own (`svc:profiles.<name>.maxConcurrency`).",
  },
  {
    key: "svc:requestsPerSecond",
    type: "number",
    env: "SVC_REQUESTS_PER_SECOND",
    secret: false,
    default: "no fixed rate: a 429's Retry-After pauses the connection and the provider paces itself near the rate the service allows",
    description:
      "A fixed ceiling on requests per second to one service with one key (above 0, at most 100000). Set it a little under the key's limit to draw no 429 at all, or split a key's rate between stacks that share it. A profile takes its own (`svc:profiles.<name>.requestsPerSecond`).",
  },
  {
    key: "svc:reconcileWindowSeconds",
    type: "number",
    env: "SVC_RECONCILE_WINDOW_SECONDS",
    secret: false,
    default: `${RECONCILE_WINDOW_DEFAULT_SECONDS} seconds`,
    description: `How long the provider keeps looking for the object of a create whose answer was lost (a dropped connection, a 5xx) before it decides the create made nothing, from 0 to ${RECONCILE_WINDOW_MAX_SECONDS} seconds. Raise it for a service that finishes creates late; see provider/README.md, "Invariants".`,
  },
  {
    key: SKIP_REMOTE_CHECKS.configKey,
    type: "boolean",
    env: SKIP_REMOTE_CHECKS.envVar,
    secret: false,
    default: "false: preview reads the service, and fails when the key is refused or the service does not answer",
    description:
      "`true` previews offline: the checks that read the service (plan ceilings and features, allocations, names already taken, open quota requests, the object an `adoptId` names, a Webhooks key's scope) are skipped with a warning naming them; the service still judges them at `up`.",
  },
];

/** The settings of one profile (`svc:profiles.<name>.<setting>`), which config.ts reads: each product's address and key, and the pacing ceilings. */
export const PROFILE_SETTINGS: readonly string[] = [...PRODUCTS.flatMap((product) => [`${product}Url`, `${product}ApiKey`]), "maxConcurrency", "requestsPerSecond"];

/**
 * A warning for each key of the stack's config the provider does not read, named with the known key it is close to, or
 * else the known keys: the `svc:` keys given (`keys`, without the namespace; none when the front end cannot list
 * them) and the keys inside each profile of `svc:profiles` (from `source`). Both front ends show them at preview and up.
 */
export function unknownConfigKeyWarnings(keys: readonly string[], source: ConfigSource): string[] {
  const known = CONFIG_KEYS.map((k) => k.key.replace(/^svc:/, ""));
  const topLevel = keys
    .filter((key) => !known.includes(key))
    .map((key) => {
      // `pulumi config set` without --path makes a flat key named `profiles.<name>.<setting>`, not the profile's setting.
      if (key.startsWith("profiles.")) return `Stack config \`svc:${key}\` is not a setting of this provider and is ignored: it was set without --path, so it is a flat key, not a profile's setting: remove it (\`pulumi config rm svc:${key}\`) and set it with ${configSetCommand(`svc:${key}`, "<value>")}.`;
      const guess = closestName(key, known);
      return `Stack config \`svc:${key}\` is not a setting of this provider and is ignored: ${guess ? `did you mean \`svc:${guess}\`?` : `its settings are ${known.map((k) => `\`svc:${k}\``).join(", ")}.`} (\`pulumi config rm svc:${key}\`)`;
    });
  let profiles: ReturnType<typeof profileTable> = {};
  try {
    profiles = profileTable(source);
  } catch {
    // Not a JSON object: the connection of a resource that uses a profile says so.
  }
  const inProfiles = Object.entries(profiles).flatMap(([profile, settings]) => {
    if (!settings || typeof settings !== "object" || Array.isArray(settings))
      return [`Stack config \`svc:profiles.${profile}\` is not an object of settings and is ignored: set a profile's settings with ${configSetCommand(`svc:profiles.${profile}.webhooksUrl`, "...")} (a profile's settings are ${PROFILE_SETTINGS.map((k) => `\`${k}\``).join(", ")}).`];
    return Object.keys(settings)
      .filter((key) => !PROFILE_SETTINGS.includes(key))
      .map((key) => {
        const at = (setting: string) => `svc:profiles.${profile}.${setting}`;
        const guess = closestName(key, PROFILE_SETTINGS);
        return `Stack config \`${at(key)}\` is not a setting of a profile and is ignored: ${guess ? `did you mean \`${at(guess)}\`?` : `a profile's settings are ${PROFILE_SETTINGS.map((k) => `\`${k}\``).join(", ")}.`} (\`pulumi config rm --path ${at(key)}\`)`;
      });
  });
  return [...topLevel, ...inProfiles];
}
