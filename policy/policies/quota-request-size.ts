/**
 * A quota request far above the service's default limit is usually a typo (an extra
 * zero) or a plan that deserves a conversation first. Flag requested values above a
 * multiple of the default (rules/quota.ts). Advisory: big requests can be right.
 */
import type { ResourceValidationPolicy } from "@pulumi/policy";
import { QUOTA_SERVICES } from "../../rules/quota";
import { configSchema, readConfig } from "../lib/config";
import { validateKinds } from "../lib/match";
import { isRecord } from "../lib/props";

export interface QuotaRequestSizeConfig {
  maxMultipleOfDefault: number;
}

const schema = configSchema<QuotaRequestSizeConfig>({
  maxMultipleOfDefault: { type: "number", exclusiveMinimum: 0, default: 4, description: "Largest requested value, as a multiple of the service's default limit." },
});

export const quotaRequestSize: ResourceValidationPolicy = {
  name: "quota-request-size",
  description: "Quota requests ask for at most a configured multiple of the service's default limits.",
  enforcementLevel: "advisory",
  remediationSteps: "Check the requested value (an extra zero?), or talk to the platform team before asking for more than the multiple allows.",
  configSchema: schema,
  validateResource: validateKinds(["infra:QuotaRequest"], (inputs, { args }, report) => {
    const { maxMultipleOfDefault } = readConfig(schema, args);
    const service = typeof inputs.service === "string" ? inputs.service : undefined;
    const defaults = service === undefined ? undefined : QUOTA_SERVICES[service];
    // An unknown service or quota name is the provider's check to report, not ours.
    if (!defaults || !isRecord(inputs.limits)) return;
    // Sorted, as the engine sends map keys: the same messages in the same order whatever the transport.
    for (const [quota, requested] of Object.entries(inputs.limits).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
      const byDefault = defaults[quota];
      if (typeof requested !== "number" || byDefault === undefined) continue;
      const ceiling = byDefault * maxMultipleOfDefault;
      if (requested > ceiling) {
        report(
          `limits.${quota} requests ${requested}, above ${maxMultipleOfDefault} × the ${service} default of ${byDefault} (${ceiling}, config maxMultipleOfDefault).`,
        );
      }
    }
  }),
};
