// The generated class files: each class and every type it names.
export * from "./inbox";
export { getInbox, getInboxes, getMessages, getPlan, getUsage, type GetInboxArgs, type GetInboxesArgs, type GetMessagesArgs, type InboxInfo, type InboxMessage, type InboxPlan, type InboxUsage } from "./functions";
