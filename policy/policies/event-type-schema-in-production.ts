/**
 * On production stacks every event type carries a payload schema: the service then
 * checks each publish against it (spec 2, "Event type and policy"), so a producer
 * bug is refused at the door instead of reaching every subscriber.
 */
import type { ResourceValidationPolicy } from "@pulumi/policy";
import { configSchema, productionStacksProperty, readConfig, type ProductionConfig } from "../lib/config";
import { validateKinds } from "../lib/match";
import { isUnknown } from "../lib/props";
import { isProductionStack } from "../lib/stacks";

const schema = configSchema<ProductionConfig>({ productionStacks: productionStacksProperty });

export const eventTypeSchemaInProduction: ResourceValidationPolicy = {
  name: "event-type-schema-in-production",
  description: "Event types on production stacks have a payloadSchema.",
  enforcementLevel: "mandatory",
  remediationSteps: "Give the event type a payloadSchema (JSON Schema draft 7) describing its payload.",
  configSchema: schema,
  validateResource: validateKinds(["webhooks:EventType"], (inputs, { stack, args }, report) => {
    const { productionStacks } = readConfig(schema, args);
    if (!isProductionStack(stack, productionStacks)) return;
    if (isUnknown(inputs.payloadSchema) || (inputs.payloadSchema !== undefined && inputs.payloadSchema !== null)) return;
    report(`payloadSchema is missing; every event type on production stack "${stack}" (config productionStacks) needs one so malformed payloads are refused at publish.`);
  }),
};
