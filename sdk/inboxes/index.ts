export * from "./resources";
export { getInbox, getInboxes, getMessages, getPlan, getUsage, type GetInboxArgs, type GetInboxesArgs, type GetMessagesArgs, type InboxInfo, type InboxMessage, type InboxPlan, type InboxUsage } from "./functions";
