/**
 * `svc.inboxes.Inbox`: a disposable email address or HTTP request bin.
 *
 *   const bin = new svc.inboxes.Inbox("hooks", { transport: "http", label: "webhook capture", expiresInMinutes: 1440 });
 *   const mail = new svc.inboxes.Inbox("signup", { label: "signup e-mails" });
 *   export const binUrl = bin.url;
 *   export const address = mail.address;
 */
import * as pulumi from "@pulumi/pulumi";
import * as dynamic from "@pulumi/pulumi/dynamic";
import { programName, resourceProps } from "../props";
import { providerShim } from "../shim";
import { moduleAndType, TYPE_TOKENS } from "../tokens";

const KIND = "inboxes:Inbox";

/** `email` gives an address; `http` a request bin with a slug and a URL. */
export type InboxTransport = "email" | "http";
/** `active` or `paused` (a paused inbox still receives). */
export type InboxStatus = "active" | "paused";

export interface InboxArgs {
  /** Free text, at most 200 characters (the preview fails above). Omit for none. */
  label?: pulumi.Input<string>;
  /**
   * Turn the phrase gate on or off. Needs the plan feature `optional_phrase_gate`
   * (Pro): on a plan without it the preview fails. Omit to leave the service's default (off).
   */
  phrase?: pulumi.Input<boolean>;
  /** Minutes until the inbox expires (at least 1). Create only: changing it REPLACES the inbox. Omit for no expiry. */
  expiresInMinutes?: pulumi.Input<number>;
  /** `email` (default) or `http`. Changing it REPLACES the inbox. Counts against the plan's addresses or bins. */
  transport?: pulumi.Input<InboxTransport>;
  /** `active` or `paused`. Omit to leave it to the service. */
  status?: pulumi.Input<InboxStatus>;
  /** Id of an existing inbox to take over instead of creating one (`expiresInMinutes` cannot be given with it). */
  adoptId?: pulumi.Input<string>;
  /**
   * Connection profile: omit for `svc:inboxesUrl` / `svc:inboxesApiKey` (or
   * `SVC_INBOXES_URL` / `SVC_INBOXES_API_KEY`); a name picks `svc:profiles.<name>`.
   * Changing it REPLACES the inbox.
   */
  profile?: string;
}

/** What `Inbox.get` may be told besides the id. */
export interface InboxState {
  profile?: string;
}

/**
 * An inbox. When it expires or is released it is gone: `pulumi refresh` drops it from
 * the state, and the next `pulumi up` (whose preview says so) creates a new one, with
 * a new address.
 */
export class Inbox extends dynamic.Resource {
  /** The type token, so `@pulumi/policy`'s `validateResourceOfType(Inbox, ...)` matches. */
  static readonly __pulumiType: string = TYPE_TOKENS[KIND];

  /** Read an existing inbox into the program (no changes are made to it). */
  static get(name: string, id: pulumi.Input<pulumi.ID>, opts?: pulumi.CustomResourceOptions, state?: InboxState): Inbox {
    return new Inbox(name, { ...(state ?? {}) } as InboxArgs, { ...opts, id });
  }

  declare readonly label: pulumi.Output<string | null>;
  declare readonly phrase: pulumi.Output<boolean>;
  /** The value the inbox was created with (the service returns `expiresAt`). */
  declare readonly expiresInMinutes: pulumi.Output<number | null>;
  declare readonly transport: pulumi.Output<InboxTransport>;
  declare readonly status: pulumi.Output<InboxStatus>;
  /** Email transport: the address (`<slug>@...`); null for a request bin. */
  declare readonly address: pulumi.Output<string | null>;
  /** The bin's slug (also set on an email inbox by some services). */
  declare readonly slug: pulumi.Output<string | null>;
  /** Request bin: the URL that records every request; null for an email inbox. */
  declare readonly url: pulumi.Output<string | null>;
  /** ISO 8601 UTC, or null when it never expires. */
  declare readonly expiresAt: pulumi.Output<string | null>;
  /** ISO 8601 UTC. */
  declare readonly createdAt: pulumi.Output<string>;
  declare readonly adoptId: pulumi.Output<string | null>;
  declare readonly profile: pulumi.Output<string | null>;
  /** The resource's name in the program, set by the SDK: an adoption of an object another resource of the program holds fails naming it. */
  declare readonly resourceName: pulumi.Output<string | null>;

  constructor(name: string, args: InboxArgs = {}, opts?: pulumi.CustomResourceOptions) {
    const { module, type } = moduleAndType(KIND);
    const inputs = ["label", "phrase", "expiresInMinutes", "transport", "status", "adoptId", "profile"] as const;
    const props = resourceProps(name, args, inputs, ["address", "slug", "url", "expiresAt", "createdAt"]);
    props.resourceName = programName(name, opts);
    super(providerShim(KIND), name, props, opts, module, type);
  }
}
