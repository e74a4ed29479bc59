import { eventTypeSchemaClosed } from "../../../policy/policies/event-type-schema-closed";
import { UNKNOWN_STRING } from "../wire";
import { inputs, type PolicyCases } from "./types";

const open = 'payloadSchema allows additional properties at the top level; set "additionalProperties": false so unknown payload members are refused.';

export const cases: PolicyCases = {
  policy: eventTypeSchemaClosed,
  resource: [
    {
      title: "closed schema passes (nested objects may stay open)",
      kind: "webhooks:EventType",
      props: inputs({ name: "order.created", payloadSchema: { type: "object", properties: { meta: { type: "object" } }, additionalProperties: false } }),
      violations: [],
    },
    { title: "no schema: not this policy's concern", kind: "webhooks:EventType", props: inputs({ name: "order.created" }), violations: [] },
    { title: "additionalProperties absent", kind: "webhooks:EventType", props: inputs({ name: "order.created", payloadSchema: { type: "object" } }), violations: [open] },
    {
      title: "additionalProperties true",
      kind: "webhooks:EventType",
      props: inputs({ name: "order.created", payloadSchema: { type: "object", additionalProperties: true } }),
      violations: [open],
    },
    {
      title: "additionalProperties as a schema still lets unknown members in",
      kind: "webhooks:EventType",
      props: inputs({ name: "order.created", payloadSchema: { type: "object", additionalProperties: { type: "string" } } }),
      violations: [open],
    },
    {
      title: "additionalProperties unknown during preview: silent",
      kind: "webhooks:EventType",
      props: inputs({ name: "order.created", payloadSchema: { type: "object", additionalProperties: UNKNOWN_STRING } }),
      violations: [],
    },
  ],
};
