/**
 * Sources from providers that sign their webhooks (payments, codehost) need the
 * provider's signing secret, or ingest cannot tell a real event from a forged one.
 * The API refuses such a source without it (api-assumptions: `secret` required on
 * create); saying so at preview names the fix before anything is created. Only the
 * presence of the secret is checked, never its value.
 */
import type { ResourceValidationPolicy } from "@pulumi/policy";
import { configSchema, readConfig } from "../lib/config";
import { validateKinds } from "../lib/match";
import { isUnknown } from "../lib/props";

export interface SourceSigningSecretConfig {
  providersRequiringSecret: string[];
}

const schema = configSchema<SourceSigningSecretConfig>({
  providersRequiringSecret: {
    type: "array",
    items: { type: "string", enum: ["payments", "codehost", "broker", "generic"] },
    default: ["payments", "codehost"],
    description: "Source providers whose sources must set secret.",
  },
});

export const sourceSigningSecret: ResourceValidationPolicy = {
  name: "source-signing-secret",
  description: "Sources of signing providers (payments, codehost) set the provider's signing secret.",
  enforcementLevel: "mandatory",
  remediationSteps: "Set secret to the provider's webhook signing secret, read from a secret config value (config.requireSecret).",
  configSchema: schema,
  validateResource: validateKinds(["webhooks:Source"], (inputs, { args }, report) => {
    const provider = inputs.provider;
    if (typeof provider !== "string") return;
    const { providersRequiringSecret } = readConfig(schema, args);
    if (!providersRequiringSecret.includes(provider)) return;
    const secret = inputs.secret;
    if (isUnknown(secret) || (typeof secret === "string" && secret.length > 0)) return;
    report(`secret is not set; a ${provider} source needs the provider's signing secret to verify ingested requests (config providersRequiringSecret).`);
  }),
};
