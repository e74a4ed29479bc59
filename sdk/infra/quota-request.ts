/**
 * `svc.infra.QuotaRequest`: a request to raise quota limits of a project, decided by
 * an admin.
 *
 *   const more = new svc.infra.QuotaRequest("more-vms", {
 *     service: "compute", region: "us-east-1",
 *     limits: { vms: 80 },
 *     justification: "load tests of the launch week",
 *     waitForDecision: 600,
 *   });
 *   export const state = more.state;
 */
import * as pulumi from "@pulumi/pulumi";
import * as dynamic from "@pulumi/pulumi/dynamic";
import { programName, resourceProps } from "../props";
import { providerShim } from "../shim";
import { moduleAndType, TYPE_TOKENS } from "../tokens";

const KIND = "infra:QuotaRequest";

/** `pending`, `needs_updates` (an admin asked for changes), `approved` (limits applied), `rejected`, `withdrawn`. */
export type QuotaRequestState = "pending" | "needs_updates" | "approved" | "rejected" | "withdrawn";

export interface QuotaRequestArgs {
  /** `compute`, `block-storage`, `network`, `dns` or `iam`. Changing it REPLACES the request. */
  service: pulumi.Input<string>;
  /** Omit for the key's project (a key acts on its own project only). Changing it REPLACES the request. */
  projectId?: pulumi.Input<string>;
  /**
   * Required when a named quota is per region (e.g. `vms`). It does not apply to the
   * project-wide quotas (`vcpu`, `ram_gb`: one figure across the running VMs of every
   * region; `block_storage_gb`, `dns_zones`, `users`): omit it for a request naming only
   * those (a new one naming a region anyway gets a warning; `dns` and `iam` refuse one).
   * Changing it REPLACES the request.
   */
  region?: pulumi.Input<string>;
  /**
   * Quota name → requested value, each above the current limit (the preview fails
   * otherwise, and on a name the service does not have). While the request is open a
   * change is one PATCH; once decided, a change files a new request (replace).
   */
  limits: pulumi.Input<Record<string, pulumi.Input<number>>>;
  /** Why, 1 to 2000 characters. Edited like `limits`. */
  justification: pulumi.Input<string>;
  /**
   * Seconds `pulumi up` waits (polling with backoff) for an admin's decision. Approved:
   * done. Rejected: the update fails with the admin's message. Still open at the end:
   * the update fails but the request stays in the state, and the next up waits again
   * (no second request is filed). Default 0: do not wait.
   */
  waitForDecision?: pulumi.Input<number>;
  /** Id of an existing open request to take over instead of filing another (the preview names it when one exists). */
  adoptId?: pulumi.Input<string>;
  /** Connection profile: omit for `svc:infraUrl` / `svc:infraApiKey` (or `SVC_INFRA_URL` / `SVC_INFRA_API_KEY`). Changing it REPLACES the request. */
  profile?: string;
}

export interface QuotaRequestGetState {
  profile?: string;
}

/**
 * A quota request. `pulumi destroy` withdraws an open request; a decided one cannot
 * be withdrawn and is dropped from the state with a warning (approved limits stay).
 * The preview fails when another open request asks for one of the same quotas: one
 * already filed (it names its id, to adopt), or another QuotaRequest of the program.
 */
export class QuotaRequest extends dynamic.Resource {
  /** The type token, so `@pulumi/policy`'s `validateResourceOfType(QuotaRequest, ...)` matches. */
  static readonly __pulumiType: string = TYPE_TOKENS[KIND];

  /** Read an existing request into the program (no changes are made to it). */
  static get(name: string, id: pulumi.Input<pulumi.ID>, opts?: pulumi.CustomResourceOptions, state?: QuotaRequestGetState): QuotaRequest {
    return new QuotaRequest(name, { ...(state ?? {}) } as QuotaRequestArgs, { ...opts, id });
  }

  declare readonly service: pulumi.Output<string>;
  declare readonly projectId: pulumi.Output<string>;
  declare readonly region: pulumi.Output<string | null>;
  declare readonly limits: pulumi.Output<Record<string, number>>;
  declare readonly justification: pulumi.Output<string>;
  /** Where the request is: see `QuotaRequestState`. */
  declare readonly state: pulumi.Output<QuotaRequestState>;
  /** The admin's message (asking for updates, explaining a rejection or an approval), or null. */
  declare readonly adminMessage: pulumi.Output<string | null>;
  /** ISO 8601 UTC of the approval, rejection or withdrawal; null while open. */
  declare readonly decidedAt: pulumi.Output<string | null>;
  /** Who filed it: a stable, non-secret id of the key. */
  declare readonly requestedBy: pulumi.Output<string>;
  /** ISO 8601 UTC. */
  declare readonly createdAt: pulumi.Output<string>;
  /** ISO 8601 UTC. */
  declare readonly updatedAt: pulumi.Output<string>;
  declare readonly waitForDecision: pulumi.Output<number>;
  declare readonly adoptId: pulumi.Output<string | null>;
  declare readonly profile: pulumi.Output<string | null>;
  /** The resource's name in the program, set by the SDK: tells two requests of one program apart at preview. */
  declare readonly resourceName: pulumi.Output<string | null>;

  constructor(name: string, args: QuotaRequestArgs, opts?: pulumi.CustomResourceOptions) {
    const { module, type } = moduleAndType(KIND);
    const inputs = ["service", "projectId", "region", "limits", "justification", "waitForDecision", "adoptId", "profile"] as const;
    const props = resourceProps(name, args, inputs, ["state", "adminMessage", "decidedAt", "requestedBy", "createdAt", "updatedAt"]);
    // The preview tells two requests of one program for the same quota apart by their names.
    // Present either way, so the output resolves (null after `get`).
    props.resourceName = programName(name, opts);
    super(providerShim(KIND), name, props, opts, module, type);
  }
}
