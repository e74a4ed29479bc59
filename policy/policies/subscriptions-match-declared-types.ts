/**
 * Under a strict event type policy only registered types can be published, so a
 * subscription pattern that matches none of the stack's declared types can never
 * receive an event: usually a typo (`order.create` for `order.created`) or a type
 * someone forgot to declare. Matching uses the API's pattern rules
 * (rules/endpoint.ts) and scopes (lib/catalog.ts).
 *
 * Types registered outside this stack are invisible here; a stack that relies on
 * them can disable this policy in its config.
 */
import type { StackValidationPolicy } from "@pulumi/policy";
import { subscriptionMatches } from "../../rules/endpoint";
import { readCatalog, strictPolicyInForce, typeVisibleTo } from "../lib/catalog";
import { validateStackView } from "../lib/match";

export const subscriptionsMatchDeclaredTypes: StackValidationPolicy = {
  name: "subscriptions-match-declared-types",
  description: "Under a strict event type policy, every endpoint subscription matches an event type declared in the stack.",
  enforcementLevel: "mandatory",
  remediationSteps: "Fix the subscription pattern, or declare the EventType it is meant to receive in the same stack.",
  validateStack: validateStackView((view, _args, report) => {
    const catalog = readCatalog(view);
    for (const endpoint of catalog.endpoints) {
      if (!strictPolicyInForce(catalog, endpoint.projectId)) continue;
      const visible = catalog.eventTypes.filter((t) => typeVisibleTo(t.projectId, endpoint.projectId));
      // A type whose name is unknown during preview might be the match: decide after it is known.
      if (visible.some((t) => t.name === undefined)) continue;
      for (const sub of endpoint.subscriptions) {
        if (sub.pattern === undefined || visible.some((t) => subscriptionMatches(sub.pattern!, t.name!))) continue;
        report(
          `subscriptions[${sub.index}].eventType ${JSON.stringify(sub.pattern)} matches no event type declared in this stack; ` +
            `under the strict event type policy it can never receive an event. Declare a matching EventType or fix the pattern.`,
          endpoint.urn,
        );
      }
    }
  }),
};
