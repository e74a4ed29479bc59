/**
 * An event type no endpoint in the stack subscribes to is published into the void:
 * either a subscriber is missing or the type is dead weight. Advisory, since the
 * subscriber may live in another stack.
 */
import type { StackValidationPolicy } from "@pulumi/policy";
import { subscriptionMatches } from "../../rules/endpoint";
import { readCatalog, typeVisibleTo } from "../lib/catalog";
import { validateStackView } from "../lib/match";

export const eventTypesHaveSubscribers: StackValidationPolicy = {
  name: "event-types-have-subscribers",
  description: "Every event type declared in the stack has at least one endpoint subscribed to it.",
  enforcementLevel: "advisory",
  remediationSteps: "Subscribe an endpoint to the event type (a subscription pattern that matches it), or remove the type.",
  validateStack: validateStackView((view, _args, report) => {
    const catalog = readCatalog(view);
    for (const type of catalog.eventTypes) {
      if (type.name === undefined) continue;
      const name = type.name;
      const subscribers = catalog.endpoints.filter((e) => typeVisibleTo(type.projectId, e.projectId));
      // A pattern unknown during preview might be the subscription.
      const covered = subscribers.some((e) => e.subscriptions.some((s) => s.pattern === undefined || subscriptionMatches(s.pattern, name)));
      if (!covered) {
        report(`event type ${JSON.stringify(name)} has no subscriber: no endpoint subscription in this stack matches it.`, type.urn);
      }
    }
  }),
};
