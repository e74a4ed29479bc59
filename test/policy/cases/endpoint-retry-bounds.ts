import { endpointRetryBounds } from "../../../policy/policies/endpoint-retry-bounds";
import { UNKNOWN_STRING } from "../wire";
import { inputs, type PolicyCases } from "./types";

const url = "https://hooks.example.com/svc";

export const cases: PolicyCases = {
  policy: endpointRetryBounds,
  resource: [
    { title: "within bounds passes", kind: "webhooks:Endpoint", props: inputs({ url, maxAttempts: 8, retrySchedule: [5, 300, 3600, 86400] }), violations: [] },
    { title: "service defaults (nothing set) pass", kind: "webhooks:Endpoint", props: inputs({ url }), violations: [] },
    {
      title: "too many attempts",
      kind: "webhooks:Endpoint",
      props: inputs({ url, maxAttempts: 30 }),
      violations: ["maxAttempts is 30, above the maximum of 15 (config maxAttempts)."],
    },
    {
      title: "too few attempts",
      kind: "webhooks:Endpoint",
      props: inputs({ url, maxAttempts: 1 }),
      violations: ["maxAttempts is 1, below the minimum of 2 (config minAttempts); allow at least one retry."],
    },
    {
      title: "a delay above the maximum and a window above the maximum",
      kind: "webhooks:Endpoint",
      props: inputs({ url, retrySchedule: [60, 172800, 100000] }),
      violations: [
        "retrySchedule[1] is 172800 seconds, above the maximum delay of 86400 seconds (config maxRetryDelaySeconds).",
        "retrySchedule[2] is 100000 seconds, above the maximum delay of 86400 seconds (config maxRetryDelaySeconds).",
        "retrySchedule adds up to 272860 seconds, above the maximum retry window of 259200 seconds (config maxRetryWindowSeconds).",
      ],
    },
    {
      title: "config raises the bounds",
      kind: "webhooks:Endpoint",
      props: inputs({ url, maxAttempts: 30, retrySchedule: [60, 172800, 100000] }),
      config: { maxAttempts: 30, maxRetryDelaySeconds: 604800, maxRetryWindowSeconds: 604800 },
      violations: [],
    },
    {
      title: "config lowers the bounds",
      kind: "webhooks:Endpoint",
      props: inputs({ url, maxAttempts: 8, retrySchedule: [5, 300] }),
      config: { maxAttempts: 5, maxRetryDelaySeconds: 60, maxRetryWindowSeconds: 120, minAttempts: 1 },
      violations: [
        "maxAttempts is 8, above the maximum of 5 (config maxAttempts).",
        "retrySchedule[1] is 300 seconds, above the maximum delay of 60 seconds (config maxRetryDelaySeconds).",
        "retrySchedule adds up to 305 seconds, above the maximum retry window of 120 seconds (config maxRetryWindowSeconds).",
      ],
    },
    {
      title: "unknown values during preview are skipped, known ones still checked",
      kind: "webhooks:Endpoint",
      props: inputs({ url, maxAttempts: UNKNOWN_STRING, retrySchedule: [UNKNOWN_STRING, 200000] }),
      violations: ["retrySchedule[1] is 200000 seconds, above the maximum delay of 86400 seconds (config maxRetryDelaySeconds)."],
    },
  ],
};
