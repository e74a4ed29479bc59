/** Every policy's case table; a policy of the pack without one fails the completeness test. */
import { cases as endpointCredentialHeadersSecret } from "./endpoint-credential-headers-secret";
import { cases as endpointHeaderNameCase } from "./endpoint-header-name-case";
import { cases as endpointHttpsOnly } from "./endpoint-https-only";
import { cases as endpointPublicHost } from "./endpoint-public-host";
import { cases as endpointRetryBounds } from "./endpoint-retry-bounds";
import { cases as endpointUrlHostLowercase } from "./endpoint-url-host-lowercase";
import { cases as endpointVerifyInProduction } from "./endpoint-verify-in-production";
import { cases as eventTypeSchemaClosed } from "./event-type-schema-closed";
import { cases as eventTypeSchemaInProduction } from "./event-type-schema-in-production";
import { cases as eventTypesHaveSubscribers } from "./event-types-have-subscribers";
import { cases as inboxExpiry } from "./inbox-expiry";
import { cases as quotaRequestJustification } from "./quota-request-justification";
import { cases as quotaRequestSize } from "./quota-request-size";
import { cases as sourceCaptureInProduction } from "./source-capture-in-production";
import { cases as sourceSigningSecret } from "./source-signing-secret";
import { cases as strictEventTypePolicyInProduction } from "./strict-event-type-policy-in-production";
import { cases as subscriptionsMatchDeclaredTypes } from "./subscriptions-match-declared-types";
import type { PolicyCases } from "./types";

export const ALL_CASES: PolicyCases[] = [
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
