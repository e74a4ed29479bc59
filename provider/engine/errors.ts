/**
 * Refusals turned into messages that name the reason and the fix. Resource files
 * add their own (hooks.explainError); what every resource shares lives here.
 */
import { withArticle } from "../../rules/names";
import { describeDetails, SvcApiError } from "../client";
import { profileOf, settingNames } from "../config";
import { connectionOf } from "./engine-operation";
import { apiPathToProperty, type Operation, type Props, type ResourceDefinition } from "./fields";
import { redactCurrent } from "./redact";
import type { PathSegment } from "./unknown";

/**
 * A create or update that did part of its work. The dynamic-provider plugin turns
 * an error carrying `id`, `properties` and `reasons` into ErrorResourceInitFailed:
 * the engine keeps the resource in state with these properties and retries the
 * update on the next run. The engine shows the user the reasons alone, never the
 * message (pkg/resource/plugin/provider_plugin.go, InitError), so the message is the reason.
 */
export class PartialFailure extends Error {
  readonly reasons: string[];

  constructor(
    message: string,
    readonly id: string,
    readonly properties: Props,
  ) {
    super(message);
    this.name = "PartialFailure";
    this.reasons = [message];
  }
}

/** A create's or update's outputs through `f`, a partial failure's kept outputs too (the wrappers around a kind's operations). */
export async function mapOutputs<R extends { outputs: Props }>(result: Promise<R>, f: (outputs: Props) => Props): Promise<R> {
  try {
    const r = await result;
    return { ...r, outputs: f(r.outputs) };
  } catch (err) {
    if (err instanceof PartialFailure) Object.assign(err.properties, f(err.properties));
    throw err;
  }
}

export function explainApiError(def: ResourceDefinition, err: SvcApiError, operation: Operation, inputs: Props | undefined, id?: string): SvcApiError {
  if (err.missingPath) return err.withMessage(missingPathMessage(def, err, profileOf(inputs)));
  const own = def.hooks?.explainError?.(err, operation, inputs);
  if (own) return err.withMessage(own);
  const generic = genericExplanation(def, err, operation, inputs, id);
  return generic ? err.withMessage(generic) : err;
}

function genericExplanation(def: ResourceDefinition, err: SvcApiError, operation: Operation, inputs: Props | undefined, id?: string): string | undefined {
  const profile = profileOf(inputs);
  const key = settingNames(def.product, "ApiKey", profile);
  const noun = def.noun;
  const d = err.details;
  switch (err.code) {
    case "validation_error": {
      const entries = Array.isArray(d.errors) ? (d.errors as { loc?: PathSegment[]; type?: string; msg?: string; params?: Record<string, unknown> }[]) : [];
      const lines = entries.map((e) => {
        const loc = (e.loc ?? []).slice((e.loc ?? [])[0] === "body" ? 1 : 0);
        const params = e.params ? ` ${JSON.stringify(e.params)}` : "";
        return `${apiPathToProperty(def.fields, loc)}: ${e.msg ?? ""} (${e.type ?? "?"}${params})`;
      });
      return `The service refused the ${noun}'s inputs: ${lines.join("; ")}. Fix the properties named and run again.`;
    }
    case "unauthorized":
      return `The API key for ${def.product} (${key.configKey} or ${key.envVar}) was refused (${err.reason ?? "unauthorized"}${err.reason === "revoked" ? ": the key was revoked" : ""}). Set a valid key; retrying never helps.`;
    case "invalid_credential":
      return `The API key for ${def.product} (${key.configKey} or ${key.envVar}) is not recognised. Replace it with a current key; retrying never helps.`;
    case "forbidden":
      if (err.reason === "scope")
        return `The API key in ${key.configKey} (or ${key.envVar}) cannot ${operation} ${withArticle(noun)}: it needs the ${String(d.required ?? "admin")} scope. Use a key with that scope.`;
      if (err.reason === "project")
        return `The API key cannot reach the ${noun}'s project${inputs?.projectId ? ` ${String(inputs.projectId)}` : ""}. Use a key with access to it, or another projectId.`;
      return `The API key in ${key.configKey} may not ${operation} this ${noun} (${err.reason ?? "forbidden"}).`;
    case "workspace_frozen":
      return `The workspace is frozen because a charge is unsettled: the service refuses every change (plan upgrades too) until it is paid. Settle the payment in the account console, then run again.`;
    case "workspace_suspended":
      return `The workspace is suspended (the grace period after an unsettled charge ended); the service is stopped for it. Settle the payment in the account console, then run again.`;
    case "not_entitled":
      return `The workspace's plan does not include ${String(d.feature ?? "this feature")}. Upgrade the plan, or stop using the feature.`;
    case "quota_exceeded":
      return `The workspace's plan allows ${String(d.limit)} ${String(d.metric ?? "")}${d.current !== undefined ? ` and ${String(d.current)} are in use` : ""}. Free some, upgrade the plan, or wait for the next period; retrying never helps.`;
    case "rate_limited":
      return `The service kept rate-limiting the request after the retries allowed; run again later${d.retry_after !== undefined ? ` (it asked to wait ${String(d.retry_after)} s)` : ""}.`;
    case "not_found":
      if (err.reason === "project") return `The project ${String(d.id ?? inputs?.projectId ?? "")} does not exist in the workspace, or the key cannot see it. Check projectId.`;
      if (err.reason === "default_project") return `The workspace has no default project: set projectId on the ${noun}.`;
      if (operation === "update" || operation === "adopt")
        return `The ${noun} ${id ?? ""} does not exist any more (deleted outside Pulumi?). Run \`pulumi refresh\` to drop it from the state, then \`pulumi up\` to create it again.`;
      return undefined;
    case "bad_request":
      if (err.reason === "project_required")
        return `The key reaches several projects: set projectId on the ${noun} (one of ${JSON.stringify(d.projects ?? [])}).`;
      return undefined;
    default:
      if (err.status >= 500) {
        const details = describeDetails(d);
        return `The service failed (${err.status} ${err.code}) after the retries allowed${details ? `: ${details}` : ""}. Run again later.`;
      }
      return undefined;
  }
}

/** Where a product's requests go, and the setting that holds the address; undefined when not configured. */
export function addressOf(def: Pick<ResourceDefinition, "product">, profile: string | undefined): { baseUrl: string; setting: string; configKey: string } | undefined {
  const conn = connectionOf(def, profile);
  const names = settingNames(def.product, "Url", profile);
  return conn && { baseUrl: conn.baseUrl.replace(/\/+$/, ""), setting: `${names.configKey} (or ${names.envVar})`, configKey: names.configKey };
}

/** A 404 for a path that does not exist: the base URL is wrong, most often missing its product path. */
export function missingPathMessage(def: Pick<ResourceDefinition, "product">, err: SvcApiError, profile: string | undefined): string {
  const where = addressOf(def, profile);
  if (!where) return `The service has no path ${err.path} (404 without details): the ${def.product} address is probably missing its product path.`;
  const guess = where.baseUrl.endsWith(`/${def.product}`) ? "" : ` (e.g. ${where.baseUrl}/${def.product})`;
  return (
    `The service at ${where.baseUrl} has no path ${err.path} (404 without details): ${where.configKey}=${where.baseUrl} is probably missing the ${def.product} product path${guess}. ` +
    `Set ${where.setting} to the ${def.product} API's base URL.`
  );
}

/** Process-wide: the front end says once where the process's warnings go. */
let noteSink = (message: string): void => void process.stderr.write(`warning: ${message}\n`);

/**
 * Where warnings go, for a front end that has the engine's Log service (the native plugin):
 * the dynamic-provider plugin has no engine log connection, so by default they go to
 * stderr, which the CLI shows as the provider's output.
 */
export function setNoteSink(sink: (message: string) => void): void {
  noteSink = sink;
}

/** A warning for the person running Pulumi (why a preview replaces, why a resource left the state without a DELETE). */
export function note(message: string): void {
  noteSink(redactCurrent(message));
}
