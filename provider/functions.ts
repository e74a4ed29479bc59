/**
 * The read functions that return one kind's objects as the service reports them
 * (`getEndpoint`, `getEndpoints`, ...): one implementation, beside the kinds, that every
 * front end calls. The TypeScript SDK calls them in the program process with the
 * program's stack config (sdk/<product>/functions.ts); the native plugin serves them as
 * `Invoke` with its configured settings (native/server.ts). scripts/schema.ts declares
 * each as a schema function from this table, so the generated SDKs offer exactly these.
 *
 * Each answers the kind's fields the service returns (`remoteFields`), camelCased, plus
 * `id`; a list walks every page (walk.ts). Nothing they return is secret: the fields the
 * service never returns (signing secrets, header values) are not read.
 */
import { isApiError } from "./client";
import type { ConfigSource } from "./config";
import { operationContext } from "./engine/engine-operation";
import { explainApiError } from "./engine/errors";
import type { ResourceDefinition } from "./engine/fields";
import { remoteFields } from "./engine/values";
import type { ResourceKind } from "./kinds";
import { DEFINITIONS } from "./registry";
import { walkList } from "./walk";

type Props = Record<string, unknown>;

/** A list function's optional filter: the argument the program gives and the query parameter it becomes. */
export interface ListFilter {
  arg: string;
  query: string;
  /** The argument's description. */
  description: string;
  /** What the filter does, after "every <noun> the key can see (all pages), ". */
  phrase: string;
}

/** One read function: its kind, its arguments (`id` for one object, else the filter), and what it does. */
export interface ReadFunction {
  kind: ResourceKind;
  /** `one`: an object by `id`; `list`: every object (all pages), optionally filtered. */
  shape: "one" | "list";
  filter?: ListFilter;
  /** Reads with `config` (the plugin's settings when omitted). `args.profile` picks a connection profile. */
  run(args: Props, config?: ConfigSource): Promise<Props | Props[]>;
}

const PROJECT_FILTER = (noun: string): ListFilter => ({ arg: "projectId", query: "project_id", description: `Only ${noun}s of this project.`, phrase: "optionally of one project" });

const profileOf = (args: Props) => (typeof args.profile === "string" ? args.profile : undefined);
const info = (def: ResourceDefinition, remote: Props): Props => ({ id: String(remote.id), ...remoteFields(def, remote) });

function one(kind: ResourceKind, name: string): ReadFunction {
  const def = DEFINITIONS[kind]!;
  return {
    kind,
    shape: "one",
    async run(args, config) {
      const id = args.id;
      if (typeof id !== "string" || !id) throw new Error(`${name}: \`id\` is required: the ${def.noun}'s id.`);
      const profile = profileOf(args);
      const ctx = operationContext(def, profile, config);
      try {
        return info(def, (await ctx.client.request<Props>({ method: "GET", path: def.paths.item(id) })).body);
      } catch (err) {
        if (isApiError(err, 404)) throw err.withMessage(`${name}: no ${def.noun} ${id} is visible to the API key in use. Check the id and the profile.`);
        throw isApiError(err) ? explainApiError(def, err, "read", { profile }, id) : err;
      }
    },
  };
}

function list(kind: ResourceKind, filter?: ListFilter): ReadFunction {
  const def = DEFINITIONS[kind]!;
  return {
    kind,
    shape: "list",
    filter,
    async run(args, config) {
      const profile = profileOf(args);
      const value = filter ? args[filter.arg] : undefined;
      const query = filter && typeof value === "string" ? { [filter.query]: value } : {};
      try {
        return (await walkList<Props>(operationContext(def, profile, config).client, def.paths.create, query)).map((remote) => info(def, remote));
      } catch (err) {
        throw isApiError(err) ? explainApiError(def, err, "read", { profile, ...(filter && value !== undefined ? { [filter.arg]: value } : {}) }) : err;
      }
    },
  };
}

/** Every read function, by its token without the package (`webhooks:getEndpoint`). */
export const READ_FUNCTIONS = {
  "webhooks:getEndpoint": one("webhooks:Endpoint", "getEndpoint"),
  "webhooks:getEndpoints": list("webhooks:Endpoint", PROJECT_FILTER("endpoint")),
  "webhooks:getSource": one("webhooks:Source", "getSource"),
  "webhooks:getSources": list("webhooks:Source", PROJECT_FILTER("source")),
  "inboxes:getInbox": one("inboxes:Inbox", "getInbox"),
  "inboxes:getInboxes": list("inboxes:Inbox", {
    arg: "address",
    query: "address",
    description: "An email address, a bin slug or a bin URL: at most one inbox matches (none is an empty list).",
    phrase: "or the one matching `address`",
  }),
} satisfies Record<string, ReadFunction>;

export type ReadFunctionName = keyof typeof READ_FUNCTIONS;

/** The function of a token without the package; throws naming the functions there are for any other. */
export function readFunction(name: string): ReadFunction {
  const fn = (READ_FUNCTIONS as Record<string, ReadFunction>)[name];
  if (!fn) throw new Error(`pulumi-svc has no function svc:${name}; its functions are ${Object.keys(READ_FUNCTIONS).map((n) => `svc:${n}`).join(", ")}.`);
  return fn;
}
