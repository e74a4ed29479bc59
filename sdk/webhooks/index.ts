export * from "./resources";
export { getEndpoint, getEndpoints, type EndpointInfo, type GetEndpointArgs, type GetEndpointsArgs } from "./functions";
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
