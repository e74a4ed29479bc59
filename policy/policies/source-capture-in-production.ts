/**
 * On production stacks sources keep captures of what they receive: when a provider
 * changes its payloads or signatures, the captured requests are the evidence (and
 * the `unknown_event_type` outcome shows types that slipped through).
 */
import type { ResourceValidationPolicy } from "@pulumi/policy";
import { configSchema, productionStacksProperty, readConfig, type ProductionConfig } from "../lib/config";
import { validateKinds } from "../lib/match";
import { isUnknown } from "../lib/props";
import { isProductionStack } from "../lib/stacks";

const schema = configSchema<ProductionConfig>({ productionStacks: productionStacksProperty });

export const sourceCaptureInProduction: ResourceValidationPolicy = {
  name: "source-capture-in-production",
  description: "Sources on production stacks set captureEnabled: true.",
  enforcementLevel: "advisory",
  remediationSteps: "Set captureEnabled: true on the source so received requests are stored for inspection.",
  configSchema: schema,
  validateResource: validateKinds(["webhooks:Source"], (inputs, { stack, args }, report) => {
    const { productionStacks } = readConfig(schema, args);
    if (!isProductionStack(stack, productionStacks) || inputs.captureEnabled === true || isUnknown(inputs.captureEnabled)) return;
    report(`captureEnabled is not true on production stack "${stack}" (config productionStacks); set captureEnabled: true so received requests are kept.`);
  }),
};
