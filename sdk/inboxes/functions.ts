/**
 * Read-only Inboxes functions. They run in the program process (settings from
 * `new pulumi.Config("svc")`, else the environment) and return plain data.
 */
import type { InboxPlan, InboxUsage } from "../../provider/inboxes/account";
import { programContext, providerSide, runReadFunction } from "../program";
import type { InboxInfo } from "./inbox";

export type { InboxInfo };

/** A received email or HTTP request; keys in camelCase (`inboxId`, `receivedAt`, ...), email fields null on HTTP messages and the reverse. */
export type InboxMessage = { id: string; inboxId: string; receivedAt: string } & Record<string, unknown>;

export type { InboxPlan, InboxUsage };

interface Connection {
  /** Connection profile (see `InboxArgs.profile`). */
  profile?: string;
}

export interface GetInboxArgs extends Connection {
  id: string;
}

export interface GetInboxesArgs extends Connection {
  /** An email address, a bin slug or a bin URL: at most one inbox matches (none is an empty list). */
  address?: string;
}

export interface GetMessagesArgs extends Connection {
  /** The inbox whose messages to read. */
  inboxId: string;
  /** Only messages received strictly after this ISO 8601 time. */
  since?: string;
  /** Only messages received at or before this ISO 8601 time. */
  until?: string;
  /** e.g. `links` or `codes`: each message then carries `extracted`. */
  extract?: string;
}

const ctxOf = (args: Connection) => programContext("inboxes", args.profile);
const camel = (key: string) => key.replace(/_([a-z])/g, (_m, c: string) => c.toUpperCase());

/** One inbox by id. Fails when it is gone (released or expired) or the key cannot see it. */
export async function getInbox(args: GetInboxArgs): Promise<InboxInfo> {
  return runReadFunction<InboxInfo>("inboxes:getInbox", args);
}

/** Every live inbox (all pages), or the one matching `address`. */
export async function getInboxes(args: GetInboxesArgs = {}): Promise<InboxInfo[]> {
  return runReadFunction<InboxInfo[]>("inboxes:getInboxes", args);
}

/** The workspace's plan: limits (null = unlimited) and features (`read_api`, `optional_phrase_gate`). */
export async function getPlan(args: Connection = {}): Promise<InboxPlan> {
  return (await (await ctxOf(args)).client.request<InboxPlan>({ method: "GET", path: "/v1/plan" })).body;
}

/** Live addresses and bins, and messages accepted this month (`period` `YYYY-MM`). */
export async function getUsage(args: Connection = {}): Promise<InboxUsage> {
  return (await (await ctxOf(args)).client.request<InboxUsage>({ method: "GET", path: "/v1/usage" })).body;
}

/**
 * Every message of an inbox, newest first, as they stood when the call began: every
 * page, each message once; messages received during the walk are left for the next
 * call (provider/walk.ts). Reading messages with an API
 * key needs a paid plan (feature `read_api`); on a plan without it this fails saying so.
 */
export async function getMessages(args: GetMessagesArgs): Promise<InboxMessage[]> {
  const { inboxDefinition, isApiError, settingNames, walkNewestFirst } = await providerSide();
  try {
    const path = `${inboxDefinition.paths.item(args.inboxId)}/messages`;
    const items = await walkNewestFirst((await ctxOf(args)).client, path, { since: args.since, until: args.until, extract: args.extract }, "received_at");
    return items.map((m) => Object.fromEntries(Object.entries(m).map(([k, v]) => [camel(k), v])) as InboxMessage);
  } catch (err) {
    if (isApiError(err, 402, "not_entitled") && err.details.feature === "read_api") {
      const key = settingNames("inboxes", "ApiKey", args.profile);
      throw err.withMessage(
        `Reading messages with an API key (${key.configKey}) needs the plan feature read_api, which the workspace's plan does not include (only a signed-in browser session may read them on every plan). Upgrade the plan (Pro has it) to read messages from a program, or read them in the dashboard.`,
      );
    }
    if (isApiError(err, 404)) throw err.withMessage(`The inbox ${args.inboxId} is gone (released or expired) or not visible to the key in use.`);
    throw err;
  }
}
