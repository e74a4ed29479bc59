/**
 * Preview's checks that read the service (plan ceilings and features, allocations,
 * names already taken, open quota requests, the object an `adoptId` names: adoption.ts;
 * a Webhooks key's scope: webhooks/key-scope.ts). A key the service refuses, a service that
 * does not answer, or an address missing its product path fails the preview, naming
 * the setting and the address (never the key): a preview that passes while its checks
 * were silently skipped fails at `up` instead. Users who preview offline say so with
 * `svc:skipRemoteChecks` (or SVC_SKIP_REMOTE_CHECKS), and get a warning naming what
 * was not checked.
 */
import { SvcApiError, SvcConnectionError } from "../client";
import { pluginConfigSource, profileOf, settingNames, type Product } from "../config";
import { webhooksWriteShortfall } from "../webhooks/key-scope";
import { adoptionFailures } from "./adoption";
import { addressOf, missingPathMessage, note } from "./errors";
import { fieldEntries, isInputField, type CheckFailure, type OperationContext, type Props, type ResourceDefinition } from "./fields";
import { jsonEqual } from "./json";
import { containsUnknown } from "./unknown";

export const SKIP_REMOTE_CHECKS = { configKey: "svc:skipRemoteChecks", envVar: "SVC_SKIP_REMOTE_CHECKS" } as const;

const OFFLINE_HINT = `To preview offline, without the checks that read the service, set ${SKIP_REMOTE_CHECKS.configKey} to true (or ${SKIP_REMOTE_CHECKS.envVar}=true).`;

/** Can preview not talk to the service at all (as opposed to: this one read is not allowed or not known)? */
export function isUnreachable(err: unknown): boolean {
  return err instanceof SvcConnectionError || (err instanceof SvcApiError && (err.status === 401 || err.status === 403 || err.missingPath));
}

/** For a remote check's read that may fail: rethrow when the service cannot be reached, else undefined (check skipped). */
export function unlessUnreachable(err: unknown): undefined {
  if (isUnreachable(err)) throw err;
  return undefined;
}

/** `svc:skipRemoteChecks`, else SVC_SKIP_REMOTE_CHECKS: true, false, or a failure for another value. */
function skipSetting(): boolean | CheckFailure {
  const raw = pluginConfigSource()("skipRemoteChecks") ?? process.env[SKIP_REMOTE_CHECKS.envVar];
  const value = raw?.trim().toLowerCase() ?? "";
  if (["", "false", "0", "no"].includes(value)) return false;
  if (["true", "1", "yes"].includes(value)) return true;
  return { property: "", reason: `${SKIP_REMOTE_CHECKS.configKey} (or ${SKIP_REMOTE_CHECKS.envVar}) must be true or false, not ${JSON.stringify(raw)}.` };
}

/** Has the user said to preview without reading the service (`svc:skipRemoteChecks`)? */
export const remoteChecksSkipped = (): boolean => skipSetting() === true;

/**
 * A read a remote check makes, once per operation per connection (the context's cache):
 * its answer, or undefined when this read is not allowed or not known (the check is
 * skipped; the apply's own refusal still says why). A service that cannot be reached
 * at all fails the preview instead (`remoteCheckFailures`).
 */
export async function readForCheck<T>(ctx: OperationContext, key: string, load: () => Promise<T>): Promise<T | undefined> {
  try {
    return await ctx.cached(key, load);
  } catch (err) {
    return unlessUnreachable(err);
  }
}

/**
 * Products whose key answers what it may do: the key's scope when it may not write
 * resources. Webhooks answers its scope (`auth/me`). Inboxes keys (`admin` or `read`)
 * and Infrastructure keys (service scopes such as `iam:write`) have no read-back of
 * their own scope in the spec: the apply's refusal names the scope needed.
 */
const WRITE_SHORTFALL: Partial<Record<Product, (ctx: OperationContext) => Promise<{ has: string; may: string; needs: string } | undefined>>> = {
  webhooks: webhooksWriteShortfall,
};

/**
 * Would the apply write for these inputs? A new resource is created (or takes a setting
 * over); an existing one writes when a field the service holds, or the profile (a
 * replacement), is declared other than before (an old input left out stands for its
 * default, as check fills it in). A value not known yet is not counted.
 */
function wouldWrite(def: ResourceDefinition, inputs: Props, olds: Props): boolean {
  if (Object.keys(olds).length === 0) return true;
  return fieldEntries(def).some(([name, spec]) => (spec.api !== undefined || name === "profile") && isInputField(spec) && spec.mode !== "local" && !containsUnknown(inputs[name]) && !jsonEqual(inputs[name] ?? null, olds[name] ?? spec.default ?? null));
}

/**
 * A key whose scope may not write, for a resource that would write: a warning, once per connection and operation,
 * naming the setting, the scope it has and the one an `up` needs. Not a failure: a pipeline's preview job may hold a
 * read key on purpose (the GitOps gate, forks included), and the `up` that applies runs with another.
 */
async function scopeWarning(def: ResourceDefinition, inputs: Props, ctx: OperationContext, olds: Props): Promise<void> {
  const shortfall = WRITE_SHORTFALL[def.product];
  if (!shortfall || ctx.operation.warnedOnce.has(`scope ${ctx.connectionId}`) || !wouldWrite(def, inputs, olds)) return;
  const found = await shortfall(ctx).catch(unlessUnreachable);
  if (!found) return;
  ctx.operation.warnedOnce.add(`scope ${ctx.connectionId}`);
  const key = settingNames(def.product, "ApiKey", profileOf(inputs));
  note(
    `The ${def.product} API key in ${key.configKey} (or ${key.envVar}) has the ${found.has} scope, which may ${found.may}: this preview can read, but a \`pulumi up\` with it would be refused (403 forbidden, reason scope) for the changes shown. ` +
      `Apply with a key of the ${found.needs} scope in ${key.configKey} (or ${key.envVar}).`,
  );
}

/** The definition's remote checks, or the failure saying why they could not run. */
export async function remoteCheckFailures(def: ResourceDefinition, inputs: Props, ctx: OperationContext, olds: Props): Promise<CheckFailure[]> {
  const skip = skipSetting();
  if (skip !== false) {
    if (skip !== true) return [skip];
    // One warning per kind and operation (a message, no result).
    if (!ctx.operation.warnedOnce.has(def.kind)) {
      ctx.operation.warnedOnce.add(def.kind);
      note(`${SKIP_REMOTE_CHECKS.configKey} is set: preview did not read the service to check ${def.noun} resources (plan ceilings and features, allocations, names already taken, objects to adopt, the key's scope); the service judges them at update.`);
    }
    return [];
  }
  try {
    await scopeWarning(def, inputs, ctx, olds);
    const generic = await adoptionFailures(def, inputs, ctx, olds);
    return [...generic, ...((await def.hooks?.checkRemote?.(inputs, ctx, olds)) ?? [])];
  } catch (err) {
    if (!isUnreachable(err)) throw err;
    return [{ property: "", reason: unreachableMessage(def, err as Error, profileOf(inputs)) }];
  }
}

function unreachableMessage(def: ResourceDefinition, err: Error, profile: string | undefined): string {
  const where = addressOf(def, profile);
  const at = where ? ` at ${where.baseUrl}` : "";
  const lead = `Preview could not check the ${def.noun} against the service:`;
  if (err instanceof SvcConnectionError) return `${lead} no answer from the ${def.product} service${at} (${err.failure}). Check ${where?.setting ?? "the address"} and the network. ${OFFLINE_HINT}`;
  const api = err as SvcApiError;
  if (api.missingPath) return `${lead} ${missingPathMessage(def, api, profile)} ${OFFLINE_HINT}`;
  const key = settingNames(def.product, "ApiKey", profile);
  return `${lead} the ${def.product} service${at} refused the API key (${api.status} ${api.code}${api.reason ? `/${api.reason}` : ""}). Set a valid key in ${key.configKey} (or ${key.envVar}). ${OFFLINE_HINT}`;
}
