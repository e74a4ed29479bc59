/**
 * The calls of an update, in a fixed order: ONE PATCH holding only the changed
 * `patch` fields, then one PUT per changed `put` field, then one POST per changed
 * `action` field. Unchanged fields cost nothing; a no-op update makes no call.
 */
import { asIs, type PlannedCall, type Props, type ResourceDefinition } from "./fields";
import { declared, diffFields } from "./diff";

/** Modes whose change costs a call; the others are replaced (createOnly), read back or local. */
const CALL_MODES = new Set(["patch", "put", "action"]);

export function planUpdate(def: ResourceDefinition, olds: Props, news: Props): PlannedCall[] {
  const patchBody: Props = {};
  const patchFields: string[] = [];
  const puts: PlannedCall[] = [];
  const actions: PlannedCall[] = [];
  // The changed fields as diff finds them: one comparison, shared with diff (and compiled once by V8).
  for (const name of diffFields(def, olds, news).changed) {
    const spec = def.fields[name]!;
    if (!CALL_MODES.has(spec.mode)) continue;
    const apiValue = (spec.codec ?? asIs).toApi(declared(spec, news, name).value);
    if (spec.mode === "patch") {
      patchBody[spec.api!] = apiValue;
      patchFields.push(name);
    } else if (spec.mode === "put") {
      const put = spec.put!;
      puts.push({ kind: "put", method: "PUT", path: put.path, body: { [put.bodyKey]: apiValue ?? [] }, fields: [name], safeToRepeat: true, label: `PUT ${put.path}` });
    } else {
      const action = spec.action!;
      actions.push({ kind: "action", method: "POST", path: action.path, body: action.body?.(apiValue), fields: [name], safeToRepeat: action.safeToRepeat, label: action.path.replace(/^\//, "") });
    }
  }
  const calls: PlannedCall[] = [];
  if (patchFields.length > 0) calls.push({ kind: "patch", method: "PATCH", path: "", body: patchBody, fields: patchFields, safeToRepeat: true, label: "PATCH" });
  calls.push(...puts, ...actions);
  return def.hooks?.adjustPlan ? def.hooks.adjustPlan(calls, olds, news) : calls;
}
