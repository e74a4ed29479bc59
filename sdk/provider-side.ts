/** The provider's parts the SDK's functions call: loaded by `providerSide()` (program.ts) at a function's first call. */
export { isApiError } from "../provider/client";
export { settingNames } from "../provider/config";
export { operationContext } from "../provider/engine/engine-operation";
export { remoteFields } from "../provider/engine/values";
export { READ_FUNCTIONS } from "../provider/functions";
export { inboxDefinition } from "../provider/inboxes/inbox";
export { walkList, walkNewestFirst } from "../provider/walk";
export { eventTypeDefinition } from "../provider/webhooks/event-type";
