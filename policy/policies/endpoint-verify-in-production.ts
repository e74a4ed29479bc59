/**
 * On production stacks an endpoint must be verified (`verify: true`): the receiver
 * proves it controls the URL before real events, with real customer data, are sent
 * to it.
 */
import type { ResourceValidationPolicy } from "@pulumi/policy";
import { configSchema, productionStacksProperty, readConfig, type ProductionConfig } from "../lib/config";
import { validateKinds } from "../lib/match";
import { isProductionStack } from "../lib/stacks";

const schema = configSchema<ProductionConfig>({ productionStacks: productionStacksProperty });

export const endpointVerifyInProduction: ResourceValidationPolicy = {
  name: "endpoint-verify-in-production",
  description: "Endpoints on production stacks set verify: true.",
  enforcementLevel: "mandatory",
  remediationSteps: "Set verify: true on the endpoint so its URL is verified before it receives production deliveries.",
  configSchema: schema,
  validateResource: validateKinds(["webhooks:Endpoint"], (inputs, { stack, args }, report) => {
    const { productionStacks } = readConfig(schema, args);
    if (!isProductionStack(stack, productionStacks) || inputs.verify === true) return;
    if (inputs.verify !== undefined && typeof inputs.verify !== "boolean") return; // unknown during preview
    report(`verify must be true on production stack "${stack}" (config productionStacks); set verify: true.`);
  }),
};
