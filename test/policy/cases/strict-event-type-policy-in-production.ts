import { strictEventTypePolicyInProduction } from "../../../policy/policies/strict-event-type-policy-in-production";
import { UNKNOWN_STRING } from "../wire";
import { inputs, type PolicyCases } from "./types";

const type = { kind: "webhooks:EventType" as const, name: "order-created", props: inputs({ name: "order.created" }) };
const strict = { kind: "webhooks:EventTypePolicy" as const, name: "workspace-policy", props: inputs({ policy: "strict" }) };
const none = (stack: string) =>
  `production stack "${stack}" (config productionStacks) declares no workspace EventTypePolicy; declare one with policy: "strict" and no projectId.`;

export const cases: PolicyCases = {
  policy: strictEventTypePolicyInProduction,
  stack: [
    { title: "strict workspace policy on prod passes", stack: "prod", resources: [type, strict], violations: [] },
    { title: "no policy on dev passes", stack: "dev", resources: [type], violations: [] },
    { title: "no policy on prod", stack: "prod", resources: [type], violations: [{ message: none("prod") }] },
    {
      title: "only a project override does not count",
      stack: "prod",
      resources: [type, { kind: "webhooks:EventTypePolicy", name: "project-policy", props: inputs({ policy: "strict", projectId: "proj-1" }) }],
      violations: [{ message: none("prod") }],
    },
    {
      title: "a lenient workspace policy on prod-eu",
      stack: "prod-eu",
      resources: [type, { kind: "webhooks:EventTypePolicy", name: "workspace-policy", props: inputs({ policy: "lenient" }) }],
      violations: [{ message: 'policy is "lenient"; the workspace EventTypePolicy on production stack "prod-eu" must be "strict".', resource: "workspace-policy" }],
    },
    {
      title: "a production stack without webhooks resources has no catalog to protect",
      stack: "prod",
      resources: [{ kind: "inboxes:Inbox", name: "signup-inbox", props: inputs({ label: "signup", expiresInMinutes: 60 }) }],
      violations: [],
    },
    { title: "config names other production stacks", stack: "live", config: { productionStacks: ["live"] }, resources: [type], violations: [{ message: none("live") }] },
    {
      title: "only a policy whose projectId is unknown during preview: it may be the workspace's, silent",
      stack: "prod",
      resources: [type, { kind: "webhooks:EventTypePolicy", name: "maybe-workspace", props: inputs({ policy: "strict", projectId: UNKNOWN_STRING }) }],
      violations: [],
    },
    {
      title: "a lenient policy whose projectId is unknown cannot be the strict workspace policy: still reported",
      stack: "prod",
      resources: [type, { kind: "webhooks:EventTypePolicy", name: "maybe-workspace", props: inputs({ policy: "lenient", projectId: UNKNOWN_STRING }) }],
      violations: [{ message: none("prod") }],
    },
    {
      title: "policy unknown during preview: silent",
      stack: "prod",
      resources: [{ kind: "webhooks:EventTypePolicy", name: "workspace-policy", props: inputs({ policy: UNKNOWN_STRING }) }],
      violations: [],
    },
  ],
};
