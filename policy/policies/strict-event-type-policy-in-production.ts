/**
 * Production stacks declare the workspace's event type policy as `strict`: only
 * registered event types can then be published, so a typo in a producer fails loudly
 * instead of creating a new type nobody subscribes to. A stack policy, because the
 * violation is an absence. Stacks without any webhooks resource (only inboxes or
 * quotas, say) have no catalog to protect and are left alone.
 */
import type { StackValidationPolicy } from "@pulumi/policy";
import { RESOURCE_KINDS } from "../../sdk/tokens";
import { configSchema, productionStacksProperty, readConfig, type ProductionConfig } from "../lib/config";
import { validateStackView } from "../lib/match";
import { isUnknown } from "../lib/props";
import { isProductionStack } from "../lib/stacks";

const WEBHOOKS_KINDS = RESOURCE_KINDS.filter((k) => k.startsWith("webhooks:"));

const schema = configSchema<ProductionConfig>({ productionStacks: productionStacksProperty });

export const strictEventTypePolicyInProduction: StackValidationPolicy = {
  name: "strict-event-type-policy-in-production",
  description: "Production stacks declare a workspace EventTypePolicy with policy: strict.",
  enforcementLevel: "mandatory",
  remediationSteps: 'Declare `new EventTypePolicy("workspace", { policy: "strict" })` (no projectId) in the stack, and an EventType for every type you publish.',
  configSchema: schema,
  validateStack: validateStackView((view, args, report) => {
    const { productionStacks } = readConfig(schema, args);
    if (!isProductionStack(view.stack, productionStacks)) return;
    const usesWebhooks = WEBHOOKS_KINDS.some((kind) => view.ofKind(kind).length > 0);
    if (!usesWebhooks) return;
    const policies = view.ofKind("webhooks:EventTypePolicy");
    const workspacePolicies = policies.filter((p) => p.props.projectId === undefined || p.props.projectId === null);
    // A policy whose projectId is unknown during preview may turn out to be the workspace's.
    const maybeWorkspace = policies.some((p) => isUnknown(p.props.projectId) && (p.props.policy === "strict" || isUnknown(p.props.policy)));
    if (workspacePolicies.length === 0 && maybeWorkspace) return;
    if (workspacePolicies.length === 0) {
      report(
        `production stack "${view.stack}" (config productionStacks) declares no workspace EventTypePolicy; declare one with policy: "strict" and no projectId.`,
      );
      return;
    }
    for (const p of workspacePolicies) {
      const policy = p.props.policy;
      if (policy === "strict" || isUnknown(policy)) continue;
      report(`policy is ${JSON.stringify(policy ?? null)}; the workspace EventTypePolicy on production stack "${view.stack}" must be "strict".`, p.urn);
    }
  }),
};
