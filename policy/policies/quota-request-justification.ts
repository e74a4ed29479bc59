/**
 * Quota requests are decided by a person; a one-word justification gets the request
 * sent back (`needs_updates`) and the deployment waits. Ask for a real explanation
 * up front. Only the length is reported, never the text.
 */
import type { ResourceValidationPolicy } from "@pulumi/policy";
import { configSchema, readConfig } from "../lib/config";
import { validateKinds } from "../lib/match";
import { isUnknown } from "../lib/props";

export interface QuotaJustificationConfig {
  minJustificationLength: number;
}

const schema = configSchema<QuotaJustificationConfig>({
  minJustificationLength: { type: "integer", minimum: 0, default: 30, description: "Fewest characters a justification may have (surrounding whitespace not counted)." },
});

export const quotaRequestJustification: ResourceValidationPolicy = {
  name: "quota-request-justification",
  description: "Quota requests carry a justification of at least the configured length.",
  enforcementLevel: "mandatory",
  remediationSteps: "Write a justification that explains what the higher limits are for and why now.",
  configSchema: schema,
  validateResource: validateKinds(["infra:QuotaRequest"], (inputs, { args }, report) => {
    const { minJustificationLength } = readConfig(schema, args);
    const text = inputs.justification;
    if (isUnknown(text)) return;
    const length = typeof text === "string" ? text.trim().length : 0;
    if (length >= minJustificationLength) return;
    report(`justification has ${length} characters; at least ${minJustificationLength} are required (config minJustificationLength). Explain what the higher limits are for.`);
  }),
};
