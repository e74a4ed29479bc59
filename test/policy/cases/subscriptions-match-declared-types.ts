import { subscriptionsMatchDeclaredTypes } from "../../../policy/policies/subscriptions-match-declared-types";
import type { WireProps } from "../wire";
import { UNKNOWN_STRING } from "../wire";
import { inputs, type PolicyCases } from "./types";

const eventType = (name: string, projectId?: string) => ({
  kind: "webhooks:EventType" as const,
  name: `type-${name}`,
  props: inputs({ name, ...(projectId ? { projectId } : {}) }),
});
const policy = (policy: string, projectId?: string) => ({
  kind: "webhooks:EventTypePolicy" as const,
  name: projectId ? `policy-${projectId}` : "workspace-policy",
  props: inputs({ policy, ...(projectId ? { projectId } : {}) }),
});
const endpoint = (name: string, patterns: string[], extra: WireProps = {}) => ({
  kind: "webhooks:Endpoint" as const,
  name,
  props: inputs({ url: "https://hooks.example.com/svc", subscriptions: patterns.map((eventType) => ({ eventType })), ...extra }),
});
const unmatched = (index: number, pattern: string) =>
  `subscriptions[${index}].eventType "${pattern}" matches no event type declared in this stack; ` +
  `under the strict event type policy it can never receive an event. Declare a matching EventType or fix the pattern.`;

export const cases: PolicyCases = {
  policy: subscriptionsMatchDeclaredTypes,
  stack: [
    {
      title: "every pattern matches a declared type (exact, *, **)",
      resources: [eventType("order.created"), eventType("order.item.added"), policy("strict"), endpoint("orders", ["order.created", "order.*", "order.**", "**"])],
      violations: [],
    },
    {
      title: "strict: patterns matching nothing are reported on their endpoint",
      resources: [
        eventType("order.created"),
        eventType("order.item.added"),
        policy("strict"),
        endpoint("orders", ["order.created", "invoice.paid", "order.*.*.*"]),
      ],
      violations: [
        { message: unmatched(1, "invoice.paid"), resource: "orders" },
        { message: unmatched(2, "order.*.*.*"), resource: "orders" },
      ],
    },
    {
      title: "subscriptions read from outputs in the API's shape too",
      resources: [eventType("order.created"), policy("strict"), { kind: "webhooks:Endpoint", name: "out", props: inputs({ subscriptions: [{ event_type: "invoice.paid" }] }) }],
      violations: [{ message: unmatched(0, "invoice.paid"), resource: "out" }],
    },
    { title: "lenient: nothing to check", resources: [eventType("order.created"), policy("lenient"), endpoint("orders", ["invoice.paid"])], violations: [] },
    { title: "no policy declared: nothing to check", resources: [eventType("order.created"), endpoint("orders", ["invoice.paid"])], violations: [] },
    {
      title: "a project's lenient override wins over a strict workspace",
      resources: [eventType("order.created"), policy("strict"), policy("lenient", "proj-a"), endpoint("a", ["invoice.paid"], { projectId: "proj-a" })],
      violations: [],
    },
    {
      title: "a project's strict override applies to that project only",
      resources: [
        eventType("order.created"),
        policy("strict", "proj-a"),
        endpoint("a", ["invoice.paid"], { projectId: "proj-a" }),
        endpoint("b", ["invoice.paid"], { projectId: "proj-b" }),
      ],
      violations: [{ message: unmatched(0, "invoice.paid"), resource: "a" }],
    },
    {
      title: "another project's types are not visible",
      resources: [eventType("invoice.paid", "proj-b"), policy("strict"), endpoint("a", ["invoice.paid"], { projectId: "proj-a" })],
      violations: [{ message: unmatched(0, "invoice.paid"), resource: "a" }],
    },
    {
      title: "workspace-wide and own-project types are visible",
      resources: [eventType("order.created"), eventType("invoice.paid", "proj-a"), policy("strict"), endpoint("a", ["order.created", "invoice.paid"], { projectId: "proj-a" })],
      violations: [],
    },
    {
      title: "an event type name unknown during preview could be the match: silent",
      resources: [eventType("order.created"), { ...eventType("x"), props: inputs({ name: UNKNOWN_STRING }) }, policy("strict"), endpoint("orders", ["invoice.paid"])],
      violations: [],
    },
    {
      title: "an endpoint's projectId unknown during preview, and a project has a lenient override: it may be that project, silent",
      resources: [eventType("order.created"), policy("strict"), policy("lenient", "proj-a"), endpoint("a", ["invoice.paid"], { projectId: UNKNOWN_STRING })],
      violations: [],
    },
    {
      title: "an endpoint's projectId unknown during preview, every override strict: reported",
      resources: [eventType("order.created"), policy("strict"), policy("strict", "proj-a"), endpoint("a", ["invoice.paid"], { projectId: UNKNOWN_STRING })],
      violations: [{ message: unmatched(0, "invoice.paid"), resource: "a" }],
    },
    {
      title: "an override whose projectId is unknown during preview could be the endpoint's project: silent",
      resources: [
        eventType("order.created"),
        policy("strict"),
        { kind: "webhooks:EventTypePolicy" as const, name: "policy-computed", props: inputs({ policy: "lenient", projectId: UNKNOWN_STRING }) },
        endpoint("a", ["invoice.paid"], { projectId: "proj-a" }),
      ],
      violations: [],
    },
    {
      title: "an override whose policy is unknown during preview: silent for its project",
      resources: [eventType("order.created"), policy("strict"), policy(UNKNOWN_STRING, "proj-a"), endpoint("a", ["invoice.paid"], { projectId: "proj-a" })],
      violations: [],
    },
    {
      title: "an event type's projectId unknown during preview could make it visible: silent",
      resources: [eventType("invoice.paid", UNKNOWN_STRING), policy("strict"), endpoint("a", ["invoice.paid"], { projectId: "proj-a" })],
      violations: [],
    },
    {
      title: "a pattern unknown during preview: silent for it, others still checked",
      resources: [eventType("order.created"), policy("strict"), endpoint("orders", [UNKNOWN_STRING, "invoice.paid"])],
      violations: [{ message: unmatched(1, "invoice.paid"), resource: "orders" }],
    },
  ],
};
