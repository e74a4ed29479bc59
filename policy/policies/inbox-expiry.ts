/**
 * Inboxes are throwaway addresses: one that never expires keeps collecting mail (and
 * whatever personal data is in it) long after the test that needed it. Every inbox
 * sets `expiresInMinutes`, at most a ceiling (a week by default).
 */
import type { ResourceValidationPolicy } from "@pulumi/policy";
import { configSchema, readConfig } from "../lib/config";
import { validateKinds } from "../lib/match";
import { isUnknown } from "../lib/props";

export interface InboxExpiryConfig {
  maxExpiresInMinutes: number;
}

const schema = configSchema<InboxExpiryConfig>({
  maxExpiresInMinutes: { type: "integer", minimum: 1, default: 10080, description: "Longest allowed expiresInMinutes (10080: one week)." },
});

export const inboxExpiry: ResourceValidationPolicy = {
  name: "inbox-expiry",
  description: "Inboxes set expiresInMinutes, at most the configured ceiling.",
  enforcementLevel: "mandatory",
  remediationSteps: "Set expiresInMinutes on the inbox to at most the ceiling (maxExpiresInMinutes in this policy's config).",
  configSchema: schema,
  validateResource: validateKinds(["inboxes:Inbox"], (inputs, { args }, report) => {
    const { maxExpiresInMinutes } = readConfig(schema, args);
    const expires = inputs.expiresInMinutes;
    if (isUnknown(expires)) return;
    if (typeof expires !== "number") {
      report(`expiresInMinutes is not set; set it to at most ${maxExpiresInMinutes} minutes (config maxExpiresInMinutes) so the inbox expires.`);
    } else if (expires > maxExpiresInMinutes) {
      report(`expiresInMinutes is ${expires}, above the maximum of ${maxExpiresInMinutes} minutes (config maxExpiresInMinutes).`);
    }
  }),
};
