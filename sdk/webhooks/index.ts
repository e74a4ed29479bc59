export { Endpoint, type EndpointArgs, type EndpointState, type EndpointStatus, type EndpointSubscription, type EndpointSubscriptionArgs, type EndpointSuspension } from "./endpoint";
export { getEndpoint, getEndpoints, type EndpointInfo, type GetEndpointArgs, type GetEndpointsArgs } from "./functions";
export { EventType, type EventTypeArgs, type EventTypeState } from "./event-type";
export { EventTypePolicy, type EventTypePolicyArgs, type EventTypePolicyValue, type PreviousEventTypePolicy } from "./event-type-policy";
export { Source, type SourceArgs, type SourceProvider, type SourceEventTypeSource, type BrokerQueueKind } from "./source";
export { OperationalEndpoint, type OperationalEndpointArgs, type OperationalEventType } from "./operational-endpoint";
export { WorkspaceSettings, type WorkspaceSettingsArgs } from "./workspace-settings";
export {
  getAuthMe,
  getDeliveries,
  getEventTypePolicy,
  getEventTypes,
  getSource,
  getSources,
  type AuthMe,
  type DeliveryInfo,
  type DeliveryStatus,
  type EventTypeInfo,
  type EventTypePolicyInfo,
  type GetDeliveriesArgs,
  type GetEventTypePolicyArgs,
  type GetEventTypesArgs,
  type ProfileArgs,
  type SourceInfo,
} from "./queries";
