/**
 * Retries within the organisation's bounds. The API's own limits (each delay at
 * most 604800 s, max_attempts at most the plan ceiling) are the provider's `check`;
 * this policy is the house rule on top: enough attempts that one failure does not
 * drop an event, not so many (or so long) that a dead receiver is hammered for
 * days. Advisory by default: a team may have reasons.
 */
import type { ResourceValidationPolicy } from "@pulumi/policy";
import { ENDPOINT_LIMITS } from "../../rules/endpoint";
import { configSchema, readConfig } from "../lib/config";
import { validateKinds } from "../lib/match";

export interface RetryBoundsConfig {
  minAttempts: number;
  maxAttempts: number;
  maxRetryDelaySeconds: number;
  maxRetryWindowSeconds: number;
}

const DAY = 86400;

const schema = configSchema<RetryBoundsConfig>({
  minAttempts: { type: "integer", minimum: 1, default: 2, description: "Smallest maxAttempts allowed (2: at least one retry)." },
  maxAttempts: { type: "integer", minimum: 1, default: 15, description: "Largest maxAttempts allowed (15: the pro plan's ceiling)." },
  maxRetryDelaySeconds: {
    type: "number",
    minimum: 0,
    maximum: ENDPOINT_LIMITS.retryDelayMaxSeconds,
    default: DAY,
    description: "Largest single retrySchedule delay, in seconds.",
  },
  maxRetryWindowSeconds: {
    type: "number",
    minimum: 0,
    default: 3 * DAY,
    description: "Largest sum of the retrySchedule delays, in seconds.",
  },
});

export const endpointRetryBounds: ResourceValidationPolicy = {
  name: "endpoint-retry-bounds",
  description: "Endpoint maxAttempts and retrySchedule stay within the configured bounds.",
  enforcementLevel: "advisory",
  remediationSteps: "Bring maxAttempts and retrySchedule within the bounds, or change the bounds in this policy's config.",
  configSchema: schema,
  validateResource: validateKinds(["webhooks:Endpoint"], (inputs, { args }, report) => {
    const config = readConfig(schema, args);
    const attempts = inputs.maxAttempts;
    if (typeof attempts === "number") {
      if (attempts > config.maxAttempts) {
        report(`maxAttempts is ${attempts}, above the maximum of ${config.maxAttempts} (config maxAttempts).`);
      } else if (attempts < config.minAttempts) {
        report(`maxAttempts is ${attempts}, below the minimum of ${config.minAttempts} (config minAttempts); allow at least one retry.`);
      }
    }
    const schedule = inputs.retrySchedule;
    if (!Array.isArray(schedule)) return;
    let total = 0;
    let allKnown = true;
    schedule.forEach((delay, i) => {
      if (typeof delay !== "number") {
        allKnown = false;
        return;
      }
      total += delay;
      if (delay > config.maxRetryDelaySeconds) {
        report(`retrySchedule[${i}] is ${delay} seconds, above the maximum delay of ${config.maxRetryDelaySeconds} seconds (config maxRetryDelaySeconds).`);
      }
    });
    if (allKnown && total > config.maxRetryWindowSeconds) {
      report(`retrySchedule adds up to ${total} seconds, above the maximum retry window of ${config.maxRetryWindowSeconds} seconds (config maxRetryWindowSeconds).`);
    }
  }),
};
