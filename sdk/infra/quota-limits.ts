/**
 * `svc.infra.QuotaLimits` (admins): a project's limits for one service.
 *
 *   new svc.infra.QuotaLimits("compute", { service: "compute", region: "us-east-1", limits: { vms: 120 }, profile: "admin" });
 *
 * Needs an infrastructure key with the `iam:write` scope (e.g. `profile: "admin"`).
 */
import * as pulumi from "@pulumi/pulumi";
import * as dynamic from "@pulumi/pulumi/dynamic";
import { programName, resourceProps } from "../props";
import { providerShim } from "../shim";
import { moduleAndType, TYPE_TOKENS } from "../tokens";

const KIND = "infra:QuotaLimits";

export interface QuotaLimitsArgs {
  /** `compute`, `block-storage`, `network`, `dns` or `iam`. Changing it REPLACES the resource. */
  service: pulumi.Input<string>;
  /** Omit for the key's project. */
  projectId?: pulumi.Input<string>;
  /**
   * Region of the per-region quotas (e.g. `vms`); omit for the default region (or a
   * service with only project-wide quotas). Project-wide quotas (`vcpu`, `ram_gb`,
   * `block_storage_gb`, ...) are one figure whatever the region: two QuotaLimits of a
   * program setting the same one fail the preview.
   */
  region?: pulumi.Input<string>;
  /**
   * Quota name → limit. Only the names given are managed: create and every change
   * are ONE PATCH with the entries that differ; a name removed here is written back to
   * the value it had before this resource first set it (in this region and project only).
   */
  limits: pulumi.Input<Record<string, pulumi.Input<number>>>;
  /** Connection profile holding an admin key (see `QuotaRequestArgs.profile`). Changing it REPLACES the resource. */
  profile?: string;
}

/** What each declared quota name was before the resource first set it. */
export interface QuotaLimitsBefore {
  /** Quota name → the value delete writes back. */
  limits: Record<string, number>;
}

/**
 * Quota limits. The resource manages only the quota names it declares, in its own
 * region and project: `pulumi destroy` writes each of them back to the value it had
 * before this resource first set it (one PATCH in that region and project), unless
 * someone else changed it since (left as it is, with a warning). Other
 * names, other regions and other resources' limits are left as they are; the
 * service-wide `POST /api/v1/quota/{service}/reset` is never sent.
 */
export class QuotaLimits extends dynamic.Resource {
  /** The type token, so `@pulumi/policy`'s `validateResourceOfType(QuotaLimits, ...)` matches. */
  static readonly __pulumiType: string = TYPE_TOKENS[KIND];

  declare readonly service: pulumi.Output<string>;
  declare readonly projectId: pulumi.Output<string>;
  declare readonly region: pulumi.Output<string | null>;
  /** Every limit of the service as the service reports it (the declared ones included). */
  declare readonly limits: pulumi.Output<Record<string, number>>;
  /** What each declared quota name was before this resource first set it: what delete writes back. */
  declare readonly limitsBefore: pulumi.Output<QuotaLimitsBefore | null>;
  declare readonly profile: pulumi.Output<string | null>;
  /** The resource's name in the program, set by the SDK: tells two QuotaLimits of one program apart at preview. */
  declare readonly resourceName: pulumi.Output<string | null>;

  constructor(name: string, args: QuotaLimitsArgs, opts?: pulumi.CustomResourceOptions) {
    const { module, type } = moduleAndType(KIND);
    const props = resourceProps(name, args, ["service", "projectId", "region", "limits", "profile"], ["limitsBefore"]);
    // The preview tells two QuotaLimits of one program setting the same quota apart by
    // their names. Present either way, so the output resolves (null after `get`).
    props.resourceName = programName(name, opts);
    super(providerShim(KIND), name, props, opts, module, type);
  }
}
