/**
 * The input properties of each pulumi-svc resource as policies read them: the
 * camelCase names the SDK classes take, each possibly unknown during preview
 * (`Value<T>`). Listed once here so that policies name properties the same way
 * their messages do. `__provider` (the serialized dynamic provider) is present on
 * every resource and never read.
 */
import type { ResourceKind } from "../../sdk/tokens";
import type { Value } from "./props";

export interface SubscriptionInput {
  eventType: Value<string>;
}

export interface EndpointInputs {
  url: Value<string>;
  subscriptions: Value<Value<SubscriptionInput>[]>;
  secret: Value<string>;
  maxAttempts: Value<number>;
  /** Delays in seconds between attempts. */
  retrySchedule: Value<Value<number>[]>;
  projectId: Value<string>;
  description: Value<string>;
  /** Header name -> value; every value is stored as a secret by the SDK. */
  customHeaders: Value<Record<string, Value<string>>>;
  deliveryTimeoutMs: Value<number>;
  status: Value<string>;
  verify: Value<boolean>;
  secretRotation: Value<unknown>;
  drainTimeoutSeconds: Value<number>;
  adoptId: Value<string>;
  profile: Value<string>;
  /** Names (never values) of custom headers the program gave as plain, non-secret strings. */
  plaintextHeaderNames: Value<Value<string>[]>;
}

export interface EventTypeInputs {
  name: Value<string>;
  description: Value<string>;
  projectId: Value<string>;
  payloadSchema: Value<Record<string, unknown>>;
  adoptExisting: Value<boolean>;
}

export interface EventTypePolicyInputs {
  policy: Value<"strict" | "lenient">;
  projectId: Value<string>;
}

export interface SourceInputs {
  provider: Value<"payments" | "codehost" | "broker" | "generic">;
  name: Value<string>;
  projectId: Value<string>;
  eventTypeSource: Value<string>;
  eventTypeKey: Value<string>;
  secret: Value<string>;
  eventTypePrefix: Value<string>;
  defaultEventType: Value<string>;
  captureEnabled: Value<boolean>;
  status: Value<string>;
}

export interface OperationalEndpointInputs {
  url: Value<string>;
  eventTypes: Value<Value<string>[]>;
  projectId: Value<string>;
  description: Value<string>;
}

export interface WorkspaceSettingsInputs {
  [property: string]: unknown;
}

export interface InboxInputs {
  label: Value<string>;
  phrase: Value<boolean>;
  expiresInMinutes: Value<number>;
  transport: Value<string>;
  status: Value<string>;
}

export interface QuotaRequestInputs {
  service: Value<string>;
  projectId: Value<string>;
  region: Value<string>;
  /** Quota name (the API's own snake_case names) -> requested value. */
  limits: Value<Record<string, Value<number>>>;
  justification: Value<string>;
  waitForDecision: Value<boolean>;
  adoptId: Value<string>;
}

export interface QuotaLimitsInputs {
  service: Value<string>;
  projectId: Value<string>;
  limits: Value<Record<string, Value<number>>>;
}

export interface InputsByKind {
  "webhooks:Endpoint": EndpointInputs;
  "webhooks:EventType": EventTypeInputs;
  "webhooks:EventTypePolicy": EventTypePolicyInputs;
  "webhooks:Source": SourceInputs;
  "webhooks:OperationalEndpoint": OperationalEndpointInputs;
  "webhooks:WorkspaceSettings": WorkspaceSettingsInputs;
  "inboxes:Inbox": InboxInputs;
  "infra:QuotaRequest": QuotaRequestInputs;
  "infra:QuotaLimits": QuotaLimitsInputs;
}

/** Every property is optional from the policy's point of view: the program may omit it. */
export type InputsOf<K extends ResourceKind> = Partial<InputsByKind[K]>;
