/**
 * `svc.webhooks.Endpoint`: a receiving endpoint of the Webhooks product.
 *
 *   const ep = new svc.webhooks.Endpoint("orders", {
 *     url: "https://example.com/hooks/orders",
 *     subscriptions: [{ eventType: "order.*" }],
 *     customHeaders: { "X-Team": "orders" },
 *     maxAttempts: 5,
 *     retrySchedule: [5, 60, 600],
 *   });
 *   export const endpointId = ep.id;
 */
import * as pulumi from "@pulumi/pulumi";
import * as dynamic from "@pulumi/pulumi/dynamic";
import { PROTOTYPE_KEY_NAMES, prototypeKeyHeaderMessage } from "../../rules/endpoint";
import { programName, withProgramArgs } from "../props";
import { providerShim } from "../shim";
import { moduleAndType, TYPE_TOKENS } from "../tokens";

const KIND = "webhooks:Endpoint";

/** A subscription: event type names matched by a pattern. */
export interface EndpointSubscriptionArgs {
  /**
   * Pattern over whole dot-separated names: `*` matches exactly one segment, `**`
   * one or more, anything else literally (`order.*` matches `order.created`, not
   * `order.item.added`; `order.**` matches both). The type need not be registered.
   */
  eventType: pulumi.Input<string>;
}

export interface EndpointSubscription {
  /**
   * Pattern over whole dot-separated names: `*` matches exactly one segment, `**`
   * one or more, anything else literally (`order.*` matches `order.created`, not
   * `order.item.added`; `order.**` matches both). The type need not be registered.
   */
  eventType: string;
}

/** Why the service suspended an endpoint. */
export interface EndpointSuspension {
  /** The most serious cause of the suspension. */
  cause: "abuse" | "non_payment" | "plan_downgrade";
}

/** `enabled`, `disabled`, or `auto_disabled` (switched off after repeated delivery failures; only enabling recovers it). */
export type EndpointStatus = "enabled" | "disabled" | "auto_disabled";

export interface EndpointArgs {
  /** The receiver's address; must be an absolute `https://` URL. Changing it resets `verified`. */
  url: pulumi.Input<string>;
  /** Event type patterns this endpoint receives, in order (at most 100). Changing them replaces the whole set in one call. Default: none. */
  subscriptions?: pulumi.Input<pulumi.Input<EndpointSubscriptionArgs>[]>;
  /**
   * The signing secret to use instead of a generated `whsec_` one. Only accepted on
   * create: changing it REPLACES the endpoint. Always stored as a Pulumi secret.
   * To get a fresh secret without replacing, change `secretRotation` instead.
   */
  secret?: pulumi.Input<string>;
  /** Delivery attempts before a delivery is dead. Above the plan's ceiling (free 5, pro 15, enterprise 30) the preview fails. Omit for the service default. */
  maxAttempts?: pulumi.Input<number>;
  /** Delays between attempts, in seconds, each 0 to 604800. Omit for the service default. */
  retrySchedule?: pulumi.Input<pulumi.Input<number>[]>;
  /** Project of the workspace the endpoint belongs to. Omit for the workspace's default project. Changing it REPLACES the endpoint. */
  projectId?: pulumi.Input<string>;
  /** Free text, at most 1024 characters. */
  description?: pulumi.Input<string>;
  /**
   * Headers sent with every delivery, test ping and verification: at most 20, each
   * value at most 1024 ASCII characters, names plus values at most 8192 bytes; not
   * `Content-Type`, `User-Agent`, `X-Webhook-*` or hop-by-hop names. The service never
   * returns the values, so the provider compares them with the last applied ones.
   * Always stored as a Pulumi secret. A `Map` is taken as its entries.
   */
  customHeaders?: pulumi.Input<Record<string, pulumi.Input<string>>> | Map<string, pulumi.Input<string>>;
  /** Per-delivery timeout in milliseconds, 1 to 60000. Omit for the service default. */
  deliveryTimeoutMs?: pulumi.Input<number>;
  /**
   * `enabled` or `disabled`. Omit to leave the status to the service. `enabled` on an
   * endpoint the service auto-disabled calls `POST /enable` (after `pulumi refresh`
   * has seen the `auto_disabled` status).
   */
  status?: pulumi.Input<"enabled" | "disabled">;
  /** Any value; every change rotates the signing secret (`rotate-secret`) and updates `signingSecret`. Not used on create. */
  secretRotation?: pulumi.Input<string | number>;
  /**
   * Verify the URL after create and after a URL change (`POST /verify`: a signed
   * challenge the receiver must echo with a 2xx). When verification fails the
   * endpoint is kept in the state, the update fails with the reason, and the next
   * `pulumi up` retries it. Default false.
   */
  verify?: pulumi.Input<boolean>;
  /**
   * Seconds a delete (`pulumi destroy`, a removal, a replacement's delete of the old
   * endpoint) waits for queued, sending or retrying deliveries before giving up (the
   * service refuses to delete an endpoint with pending deliveries, and disables it
   * instead). A delete uses the value stored with the endpoint it deletes: to have a
   * replacement's delete wait, set it in an `up` before the change that replaces it.
   * Default 0: fail at once with the count.
   */
  drainTimeoutSeconds?: pulumi.Input<number>;
  /**
   * Id of an existing endpoint to take over instead of creating one: create reads it
   * and brings it to the declared state with PATCH/PUT. (Pulumi's `import` does not
   * work for dynamic resources.) `secret` cannot be given together with it.
   */
  adoptId?: pulumi.Input<string>;
  /**
   * Connection profile: which workspace (address and key) to use. Omit for the
   * stack's `svc:webhooksUrl` / `svc:webhooksApiKey` (or `SVC_WEBHOOKS_URL` /
   * `SVC_WEBHOOKS_API_KEY`); a name picks `svc:profiles.<name>` (or
   * `SVC_PROFILE_<NAME>_WEBHOOKS_URL` / `..._API_KEY`). Changing it REPLACES the endpoint.
   */
  profile?: string;
}

/** What `Endpoint.get` may be told besides the id. */
export interface EndpointState {
  /** Profile to read the endpoint with (see `EndpointArgs.profile`). */
  profile?: string;
}

export class Endpoint extends dynamic.Resource {
  /** The type token, so `@pulumi/policy`'s `validateResourceOfType(Endpoint, ...)` matches. */
  static readonly __pulumiType: string = TYPE_TOKENS[KIND];

  /** Read an existing endpoint into the program (no changes are made to it). */
  static get(name: string, id: pulumi.Input<pulumi.ID>, opts?: pulumi.CustomResourceOptions, state?: EndpointState): Endpoint {
    return new Endpoint(name, { ...(state ?? {}) } as EndpointArgs, { ...opts, id });
  }

  /** The receiver's address. */
  declare readonly url: pulumi.Output<string>;
  /** The subscriptions, in the order set. */
  declare readonly subscriptions: pulumi.Output<EndpointSubscription[]>;
  /** A seal of the signing secret given in `secret` (`hmac-sha256:...`, keyed by the API key; never the value), or null when the service generated it. */
  declare readonly secret: pulumi.Output<string | null>;
  /** The secret deliveries are signed with, as generated by create or the last rotation (secret). Null when it is the declared `secret` (the program has it; it is not repeated in the outputs), and after `Endpoint.get`. */
  declare readonly signingSecret: pulumi.Output<string | null>;
  /** Delivery attempts before a delivery is dead; null for the service default. */
  declare readonly maxAttempts: pulumi.Output<number | null>;
  /** Delays between attempts in seconds; null for the service default. */
  declare readonly retrySchedule: pulumi.Output<number[] | null>;
  /** The project the endpoint belongs to (the default project when none was given). */
  declare readonly projectId: pulumi.Output<string>;
  /** Free text, or null. */
  declare readonly description: pulumi.Output<string | null>;
  /** The names of the custom headers last applied, each with a seal of its value (`hmac-sha256:...`, keyed by the API key; never the value). */
  declare readonly customHeaders: pulumi.Output<Record<string, string> | null>;
  /** Names of the custom headers the service holds (sorted); values are never returned. */
  declare readonly customHeaderNames: pulumi.Output<string[]>;
  /** Per-delivery timeout in milliseconds; null for the service default. */
  declare readonly deliveryTimeoutMs: pulumi.Output<number | null>;
  /** `enabled`, `disabled` or `auto_disabled`. */
  declare readonly status: pulumi.Output<EndpointStatus>;
  /** True once the URL passed verification; false again after a URL change. */
  declare readonly verified: pulumi.Output<boolean>;
  /** Null, or the most serious cause of a suspension. */
  declare readonly suspension: pulumi.Output<EndpointSuspension | null>;
  /** ISO 8601 UTC. */
  declare readonly createdAt: pulumi.Output<string>;
  /** ISO 8601 UTC. */
  declare readonly updatedAt: pulumi.Output<string>;
  /** The `secretRotation` value the signing secret was last rotated for (null: never rotated). */
  declare readonly secretRotation: pulumi.Output<string | number | null>;
  /** Whether the provider verifies the URL after create and URL changes. */
  declare readonly verify: pulumi.Output<boolean>;
  /** Seconds destroy waits for pending deliveries. */
  declare readonly drainTimeoutSeconds: pulumi.Output<number>;
  /** The id given to adopt an existing endpoint, or null. */
  declare readonly adoptId: pulumi.Output<string | null>;
  /** The connection profile used (null: the default one). */
  declare readonly profile: pulumi.Output<string | null>;
  /** The resource's name in the program, set by the SDK: an adoption of an object another resource of the program holds fails naming it. */
  declare readonly resourceName: pulumi.Output<string | null>;
  /**
   * Names (never values) of the custom headers the program gave as plain, non-secret
   * values. Every value is stored as a secret regardless; policy packs read this to
   * flag credentials written in plaintext in the program.
   */
  declare readonly plaintextHeaderNames: pulumi.Output<string[] | null>;

  constructor(name: string, args: EndpointArgs, opts?: pulumi.CustomResourceOptions) {
    const { module, type } = moduleAndType(KIND);
    const customHeaders = args.customHeaders === undefined ? undefined : headersInput(args.customHeaders);
    const props: Record<string, unknown> = {
      url: args.url,
      subscriptions: args.subscriptions,
      // Secrets in the program's hands stay secrets in the state and the CLI output.
      secret: args.secret === undefined ? undefined : pulumi.secret(args.secret),
      maxAttempts: args.maxAttempts,
      retrySchedule: args.retrySchedule,
      projectId: args.projectId,
      description: args.description,
      customHeaders: customHeaders === undefined ? undefined : pulumi.secret(customHeaders),
      deliveryTimeoutMs: args.deliveryTimeoutMs,
      status: args.status,
      secretRotation: args.secretRotation,
      verify: args.verify,
      drainTimeoutSeconds: args.drainTimeoutSeconds,
      adoptId: args.adoptId,
      profile: args.profile,
      resourceName: programName(name, opts),
      plaintextHeaderNames: customHeaders === undefined ? undefined : namesGivenInPlaintext(customHeaders),
      // Outputs must be present (undefined) for the SDK to resolve them (pulumi/pulumi#2931).
      signingSecret: undefined,
      customHeaderNames: undefined,
      verified: undefined,
      suspension: undefined,
      createdAt: undefined,
      updatedAt: undefined,
    };
    const secretOutputs = ["signingSecret", "secret", "customHeaders"];
    super(providerShim(KIND), name, withProgramArgs(name, props, args), { ...opts, additionalSecretOutputs: [...(opts?.additionalSecretOutputs ?? []), ...secretOutputs] }, module, type);
  }
}

type HeadersArg = NonNullable<EndpointArgs["customHeaders"]>;

/**
 * Custom headers as a plain object of name → value. A Map (which Pulumi would
 * serialize as `{}`, dropping every header) is taken as its entries; a header named
 * like a prototype key (which serialization drops) is refused with the rules' message.
 */
function headersInput(headers: unknown): HeadersArg {
  if (pulumi.Output.isInstance(headers) || headers instanceof Promise) {
    const later = pulumi.output(headers as pulumi.Input<Record<string, string>>);
    return later.apply(plainHeaders) as unknown as HeadersArg;
  }
  return plainHeaders(headers) as HeadersArg;
}

function plainHeaders(headers: unknown): unknown {
  const entries = headers instanceof Map ? [...headers.entries()] : headers && typeof headers === "object" ? Object.entries(headers) : undefined;
  if (!entries) return headers;
  const out: Record<string, unknown> = {};
  for (const [name, value] of entries) {
    if (PROTOTYPE_KEY_NAMES.includes(String(name).toLowerCase())) throw new Error(`customHeaders[${JSON.stringify(name)}]: ${prototypeKeyHeaderMessage(String(name))}`);
    // defineProperty: a plain assignment of "__proto__" would set the prototype instead of a key.
    Object.defineProperty(out, String(name), { value, enumerable: true, writable: true, configurable: true });
  }
  return out;
}

/**
 * The header names whose values the program did not mark secret: a plain string,
 * a promise, or a non-secret Output. Computed before the SDK wraps the map in a
 * secret, the only moment that knowledge exists. Names only: the result is not secret.
 */
function namesGivenInPlaintext(headers: NonNullable<EndpointArgs["customHeaders"]>): pulumi.Output<string[]> {
  if (pulumi.Output.isInstance(headers)) {
    // One Output for the whole map: all plaintext or all secret.
    const map = headers as pulumi.Output<Record<string, pulumi.Input<string>>>;
    const names = map.apply((h) => Object.keys(h ?? {}).sort());
    // Names are not sensitive: unsecret them even when derived from a secret map.
    return pulumi.unsecret(pulumi.all([pulumi.isSecret(map), names]).apply(([secret, list]) => (secret ? [] : list)));
  }
  const names = Object.entries(headers).map(([name, value]) =>
    pulumi.Output.isInstance(value) ? pulumi.output(pulumi.isSecret(value)).apply((secret) => (secret ? undefined : name)) : name,
  );
  return pulumi.all(names).apply((list) => list.filter((n): n is string => n !== undefined).sort());
}
