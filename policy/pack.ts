/**
 * The svc-guardrails pack's contents, without starting anything: tests and tools
 * import this; index.ts serves it.
 */
import type { PolicyPackArgs } from "@pulumi/policy";
import { endpointCredentialHeadersSecret } from "./policies/endpoint-credential-headers-secret";
import { endpointHeaderNameCase } from "./policies/endpoint-header-name-case";
import { endpointHttpsOnly } from "./policies/endpoint-https-only";
import { endpointPublicHost } from "./policies/endpoint-public-host";
import { endpointRetryBounds } from "./policies/endpoint-retry-bounds";
import { endpointUrlHostLowercase } from "./policies/endpoint-url-host-lowercase";
import { endpointVerifyInProduction } from "./policies/endpoint-verify-in-production";
import { eventTypeSchemaClosed } from "./policies/event-type-schema-closed";
import { eventTypeSchemaInProduction } from "./policies/event-type-schema-in-production";
import { eventTypesHaveSubscribers } from "./policies/event-types-have-subscribers";
import { inboxExpiry } from "./policies/inbox-expiry";
import { quotaRequestJustification } from "./policies/quota-request-justification";
import { quotaRequestSize } from "./policies/quota-request-size";
import { sourceCaptureInProduction } from "./policies/source-capture-in-production";
import { sourceSigningSecret } from "./policies/source-signing-secret";
import { strictEventTypePolicyInProduction } from "./policies/strict-event-type-policy-in-production";
import { subscriptionsMatchDeclaredTypes } from "./policies/subscriptions-match-declared-types";

export const PACK_NAME = "svc-guardrails";

export const policies: PolicyPackArgs["policies"] = [
  // Remediations first in the list; the engine runs every remediation before any validation anyway.
  endpointUrlHostLowercase,
  endpointHeaderNameCase,
  endpointHttpsOnly,
  endpointPublicHost,
  endpointCredentialHeadersSecret,
  endpointRetryBounds,
  endpointVerifyInProduction,
  eventTypeSchemaInProduction,
  eventTypeSchemaClosed,
  strictEventTypePolicyInProduction,
  subscriptionsMatchDeclaredTypes,
  eventTypesHaveSubscribers,
  sourceSigningSecret,
  sourceCaptureInProduction,
  inboxExpiry,
  quotaRequestJustification,
  quotaRequestSize,
];

export const packArgs: PolicyPackArgs = {
  description: "Guardrails for pulumi-svc programs: safe endpoints, declared event types, signed sources, expiring inboxes, reasoned quota requests.",
  policies,
};
