/**
 * Adoption (`adoptId`, or a kind's own rule such as `adoptExisting`) judged before the
 * create, with the words the create itself uses (operations.ts `adopt`):
 * - what the inputs alone show: a field only a create takes and the service never shows
 *   (create-only and write-only, e.g. an endpoint's `secret`) cannot be applied to an
 *   object that exists. Derived from the field table, never listed per kind.
 * - whether the object is there, and holds the create-only fields as declared: at the
 *   preview of a new resource, one GET of the id per operation and connection (the
 *   context's cache); a 404 fails the preview, naming the id, the key's setting and what
 *   to do; a differing field names both values. An id not known yet is judged at update.
 */
import { isApiError, type SvcApiError } from "../client";
import { profileOf, settingNames } from "../config";
import { declared, fieldEqual } from "./diff";
import { explainApiError } from "./errors";
import { fieldEntries, type ApplyContext, type CheckFailure, type OperationContext, type Props, type ResourceDefinition } from "./fields";
import { containsUnknown } from "./unknown";
import { remoteFields } from "./values";

/** The id to adopt: the definition's own rule, else the `adoptId` input (undefined: a create). */
export function adoptionIdOf(def: ResourceDefinition, inputs: Props): string | undefined {
  if (def.adoption) return def.adoption.idFrom(inputs);
  return typeof inputs.adoptId === "string" && inputs.adoptId !== "" ? inputs.adoptId : undefined;
}

/** The input that asks for adoption, as messages name it. */
export const adoptionInputOf = (def: ResourceDefinition): string => def.adoption?.input ?? "adoptId";

/**
 * The fields an adoption cannot apply: only a create takes them (`createOnly`) and the
 * service never shows them (`writeOnly`), so the object's own value cannot be compared
 * either. None when the kind replaces an adopted object that differs (`replaceWhenDifferent`).
 */
export function notOnExisting(def: ResourceDefinition): string[] {
  if (def.adoption?.replaceWhenDifferent) return [];
  return fieldEntries(def)
    .filter(([, spec]) => spec.mode === "createOnly" && spec.writeOnly && spec.api)
    .map(([name]) => name);
}

/** Why `name` and the adoption of `id` cannot go together, and what to do. */
export function notOnExistingMessage(def: ResourceDefinition, id: string, name: string): string {
  const input = adoptionInputOf(def);
  return (
    `${input} ${id}: \`${name}\` cannot be applied to an existing ${def.noun} (the service takes it only when it creates one), so it cannot be given together with ${input}. ` +
    `Remove \`${name}\` from the resource to adopt the ${def.noun}, or remove ${input} to create a new one with it.`
  );
}

/** Check: the declared fields an adoption cannot apply, one failure each (not judged while the id is unknown). */
export function adoptionConflicts(def: ResourceDefinition, inputs: Props): CheckFailure[] {
  const fields = notOnExisting(def);
  // Most kinds have none: their adoption rule is not even asked (it may not take inputs that fail their checks).
  if (fields.length === 0) return [];
  const id = adoptionIdOf(def, inputs);
  if (id === undefined || containsUnknown(id)) return [];
  return fields
    .filter((name) => {
      const { managed, value } = declared(def.fields[name]!, inputs, name);
      return managed && value !== null && !containsUnknown(value);
    })
    .map((name) => ({ property: name, reason: notOnExistingMessage(def, id, name) }));
}

/** The 404 of the object to adopt, explained: the id, the key's setting, what to do (the refusal's code and request id follow). */
function notVisible(def: ResourceDefinition, id: string, inputs: Props, err: SvcApiError): SvcApiError {
  const key = settingNames(def.product, "ApiKey", profileOf(inputs));
  const input = adoptionInputOf(def);
  return err.withMessage(
    `${input} ${id}: no ${def.noun} with this id is visible to the API key in ${key.configKey} (or ${key.envVar}). ` +
      `Check the id (another workspace's or project's, or deleted?) and the profile, or remove ${input} to create a new ${def.noun}.`,
  );
}

/**
 * The object to adopt as the service shows it, read with one GET; undefined when it does
 * not exist and the kind creates it then (`createWhenMissing`). Any other 404 throws,
 * explained (`notVisible`), as does any other refusal.
 */
export async function readToAdopt(ctx: ApplyContext, inputs: Props): Promise<Props | undefined> {
  const { def } = ctx;
  try {
    return (await ctx.client.request<Props>({ method: "GET", path: ctx.itemPath })).body ?? {};
  } catch (err) {
    if (!isApiError(err)) throw err;
    if (err.status === 404 && !err.missingPath) {
      if (def.adoption?.createWhenMissing) return undefined;
      throw notVisible(def, ctx.id, inputs, err);
    }
    throw explainApiError(def, err, "adopt", inputs, ctx.id);
  }
}

/** Why a create-only field declared other than the object holds it stops the adoption, and what to declare. */
export function differsMessage(def: ResourceDefinition, id: string, name: string, holds: unknown, declaredValue: unknown): string {
  return `${adoptionInputOf(def)} ${id}: the ${def.noun} has ${name} ${JSON.stringify(holds)} but ${JSON.stringify(declaredValue)} is declared, and ${name} cannot change without replacing it. Declare ${JSON.stringify(holds)} to adopt it.`;
}

/**
 * Preview of a new resource that adopts: does the object exist, and does it hold the
 * create-only fields as declared? One GET of the id per operation and connection. A 404
 * fails on the adoption input, a create-only field the object holds otherwise on that
 * field (unless the kind replaces it then: `replaceWhenDifferent`); a service that cannot
 * be reached, or a key it refuses (401), is rethrown (the remote checks say so); any other
 * refusal (a 403 for another project's object) leaves it to the create, which explains it.
 */
export async function adoptionFailures(def: ResourceDefinition, inputs: Props, ctx: OperationContext, olds: Props): Promise<CheckFailure[]> {
  const id = adoptionIdOf(def, inputs);
  // An existing resource's object was adopted already; an id not known yet is judged at update.
  if (Object.keys(olds).length > 0 || id === undefined || containsUnknown(id) || def.singleton || def.adoption?.createWhenMissing) return [];
  const at: ApplyContext = { ...ctx, id, def, itemPath: def.paths.item(id) };
  // The 404 is an answer, cached as one (a failed read is not: engine-operation.ts).
  type Found = { remote?: Props; missing?: string };
  const found = await ctx
    .cached(`adopt:${def.kind}:${id}`, () =>
      readToAdopt(at, inputs).then(
        (remote): Found => ({ remote }),
        (err: unknown): Found => {
          if (isApiError(err) && err.status === 404 && !err.missingPath) return { missing: err.message };
          throw err;
        },
      ),
    )
    .catch((err: unknown): Found => {
      if (!isApiError(err) || err.status === 401 || err.missingPath) throw err;
      return {};
    });
  if (found.missing !== undefined) return [{ property: adoptionInputOf(def), reason: found.missing }];
  if (!found.remote || def.adoption?.replaceWhenDifferent) return [];
  const holds = remoteFields(def, found.remote);
  return fieldEntries(def).flatMap(([name, spec]) => {
    if (spec.mode !== "createOnly" || !spec.api || spec.writeOnly) return [];
    const { managed, value } = declared(spec, inputs, name);
    if (!managed || value === null || containsUnknown(value) || fieldEqual(spec, value, holds[name])) return [];
    return [{ property: name, reason: differsMessage(def, id, name, holds[name], value) }];
  });
}
