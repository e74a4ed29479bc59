import { eventTypeSchemaInProduction } from "../../../policy/policies/event-type-schema-in-production";
import { UNKNOWN_STRING } from "../wire";
import { inputs, type PolicyCases } from "./types";

const schema = { type: "object", properties: { id: { type: "string" } }, additionalProperties: false };
const missing = (stack: string) =>
  `payloadSchema is missing; every event type on production stack "${stack}" (config productionStacks) needs one so malformed payloads are refused at publish.`;

export const cases: PolicyCases = {
  policy: eventTypeSchemaInProduction,
  resource: [
    { title: "a schema on prod passes", kind: "webhooks:EventType", stack: "prod", props: inputs({ name: "order.created", payloadSchema: schema }), violations: [] },
    { title: "no schema on dev passes", kind: "webhooks:EventType", stack: "dev", props: inputs({ name: "order.created" }), violations: [] },
    { title: "no schema on prod", kind: "webhooks:EventType", stack: "prod", props: inputs({ name: "order.created" }), violations: [missing("prod")] },
    { title: "null schema on prod-us", kind: "webhooks:EventType", stack: "prod-us", props: inputs({ name: "order.created", payloadSchema: null }), violations: [missing("prod-us")] },
    {
      title: "config names other production stacks",
      kind: "webhooks:EventType",
      stack: "live",
      config: { productionStacks: ["live"] },
      props: inputs({ name: "order.created" }),
      violations: [missing("live")],
    },
    { title: "schema unknown during preview: silent", kind: "webhooks:EventType", stack: "prod", props: inputs({ name: "order.created", payloadSchema: UNKNOWN_STRING }), violations: [] },
  ],
};
