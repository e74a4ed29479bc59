import { eventTypesHaveSubscribers } from "../../../policy/policies/event-types-have-subscribers";
import { UNKNOWN_ARRAY, UNKNOWN_STRING } from "../wire";
import { inputs, type PolicyCases } from "./types";

const eventType = (name: string, projectId?: string) => ({
  kind: "webhooks:EventType" as const,
  name: `type-${name}`,
  props: inputs({ name, ...(projectId ? { projectId } : {}) }),
});
const endpoint = (name: string, subscriptions: unknown, projectId?: string) => ({
  kind: "webhooks:Endpoint" as const,
  name,
  props: inputs({
    url: "https://hooks.example.com/svc",
    subscriptions: Array.isArray(subscriptions) ? subscriptions.map((eventType) => ({ eventType })) : (subscriptions as string),
    ...(projectId ? { projectId } : {}),
  }),
});
const lonely = (name: string) => `event type "${name}" has no subscriber: no endpoint subscription in this stack matches it.`;

export const cases: PolicyCases = {
  policy: eventTypesHaveSubscribers,
  stack: [
    { title: "every type has a subscriber", resources: [eventType("order.created"), eventType("order.item.added"), endpoint("e", ["order.**"])], violations: [] },
    {
      title: "types nobody subscribes to are reported on the type",
      resources: [eventType("order.created"), eventType("invoice.paid"), endpoint("e", ["order.*"])],
      violations: [{ message: lonely("invoice.paid"), resource: "type-invoice.paid" }],
    },
    { title: "no endpoints at all", resources: [eventType("order.created")], violations: [{ message: lonely("order.created"), resource: "type-order.created" }] },
    {
      title: "a project's type is not served by another project's endpoint",
      resources: [eventType("invoice.paid", "proj-a"), endpoint("b", ["invoice.paid"], "proj-b")],
      violations: [{ message: lonely("invoice.paid"), resource: "type-invoice.paid" }],
    },
    { title: "a workspace type is served by any project's endpoint", resources: [eventType("invoice.paid"), endpoint("b", ["invoice.paid"], "proj-b")], violations: [] },
    { title: "a pattern unknown during preview could be the subscriber: silent", resources: [eventType("invoice.paid"), endpoint("e", [UNKNOWN_STRING])], violations: [] },
    { title: "a subscription list unknown during preview: silent", resources: [eventType("invoice.paid"), endpoint("e", UNKNOWN_ARRAY)], violations: [] },
    {
      title: "an endpoint whose projectId is unknown during preview could be in the type's project: silent",
      resources: [eventType("invoice.paid", "proj-a"), endpoint("e", ["invoice.paid"], UNKNOWN_STRING)],
      violations: [],
    },
    {
      title: "a type whose projectId is unknown during preview could be visible to the endpoint: silent",
      resources: [eventType("invoice.paid", UNKNOWN_STRING), endpoint("e", ["invoice.paid"], "proj-b")],
      violations: [],
    },
    { title: "a type name unknown during preview: silent for it", resources: [eventType(UNKNOWN_STRING), endpoint("e", ["order.*"])], violations: [] },
  ],
};
