/**
 * A payload schema that allows unknown top-level members accepts typos and
 * accidental data (a whole customer record where an id was meant) without a word.
 * `additionalProperties: false` at the top makes the schema the contract.
 */
import type { ResourceValidationPolicy } from "@pulumi/policy";
import { validateKinds } from "../lib/match";
import { isRecord } from "../lib/props";

export const eventTypeSchemaClosed: ResourceValidationPolicy = {
  name: "event-type-schema-closed",
  description: "Event type payload schemas forbid additional properties at the top level.",
  enforcementLevel: "advisory",
  remediationSteps: 'Add "additionalProperties": false at the top level of the payloadSchema and list every allowed member in "properties".',
  validateResource: validateKinds(["webhooks:EventType"], (inputs, _ctx, report) => {
    const payloadSchema = inputs.payloadSchema;
    if (!isRecord(payloadSchema)) return; // absent or unknown: event-type-schema-in-production's concern
    const additional = payloadSchema["additionalProperties"];
    if (additional === false || typeof additional === "symbol") return;
    report('payloadSchema allows additional properties at the top level; set "additionalProperties": false so unknown payload members are refused.');
  }),
};
