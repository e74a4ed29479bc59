// The generated class files: each class and every type it names.
export * from "./endpoint";
export { getEndpoint, getEndpoints, type EndpointInfo, type GetEndpointArgs, type GetEndpointsArgs } from "./functions";
export * from "./event-type";
export * from "./event-type-policy";
export * from "./source";
export * from "./operational-endpoint";
export * from "./workspace-settings";
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
