/**
 * diff: which declared fields changed, computed by the provider (the engine's
 * `replaceOnChanges` has no effect on dynamic resources, so `replaces` is ours).
 *
 * `olds` are the previous OUTPUTS: for write-only fields they hold the last
 * applied value, for the others what the service last returned.
 */
import { fieldEntries, isInputField, type FieldDiff, type FieldSpec, type Props, type ResourceDefinition } from "./fields";
import { jsonEqual } from "./json";
import { containsUnknown } from "./unknown";


/**
 * The value a declared input stands for: an omitted field means null (clear) unless unmanaged; an omitted setting of
 * the provider's own (`local`) means its default, as Check fills it in (a refresh's diff compares the stored inputs
 * unchecked: an import's declare none).
 */
export function declared(spec: FieldSpec, news: Props, name: string): { managed: boolean; value: unknown } {
  const value = news[name];
  if (value === undefined && spec.whenOmitted === "unmanaged") return { managed: false, value: undefined };
  return { managed: true, value: value ?? (spec.mode === "local" ? spec.default : undefined) ?? null };
}

/** Are two values of a field the same (the field's own equality, else structural JSON)? */
export function fieldEqual(spec: FieldSpec, a: unknown, b: unknown): boolean {
  if (spec.equal && a !== undefined && a !== null && b !== undefined && b !== null) return spec.equal(a, b);
  return jsonEqual(a, b);
}

export function fieldChanged(spec: FieldSpec, name: string, olds: Props, news: Props): boolean {
  const { managed, value } = declared(spec, news, name);
  if (!managed) return false;
  if (containsUnknown(value)) return true;
  return !fieldEqual(spec, value, olds[name]);
}

export function diffFields(def: ResourceDefinition, olds: Props, news: Props): FieldDiff {
  const changed: string[] = [];
  const replaces: string[] = [];
  for (const [name, spec] of fieldEntries(def)) {
    if (!isInputField(spec) || spec.checkOnly || !fieldChanged(spec, name, olds, news)) continue;
    changed.push(name);
    if (spec.mode === "createOnly") replaces.push(name);
  }
  if (replaces.length === 0) return { changed, replaces, deleteBeforeReplace: false };
  // A replacement that keeps its unique key (every uniqueName field) cannot exist next to the old object.
  const keyFields = fieldEntries(def).filter(([, spec]) => spec.uniqueName);
  const keepsUniqueName = keyFields.length > 0 && keyFields.every(([name]) => !changed.includes(name));
  return { changed, replaces, deleteBeforeReplace: keepsUniqueName };
}
