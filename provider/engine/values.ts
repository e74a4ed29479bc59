/**
 * A resource's values between the program's camelCase shape and the API's, from its
 * field table: which fields the service returns, which the provider keeps, what create
 * sends. Each role is computed once per definition (`fieldRoles`).
 */
import { withoutMark } from "./owner";
import { asIs, fieldEntries, isInputField, type FieldSpec, type Props, type ResourceDefinition } from "./fields";
import { fieldEqual } from "./diff";
import { toPlainJson } from "./json";

type Entry = readonly [string, FieldSpec];

/** The parts a field plays, each a list of `[name, spec]` in table order. */
export interface FieldRoles {
  /** Declared by the program (everything but outputs). */
  readonly inputs: readonly Entry[];
  /** Returned by the service and read back into the outputs: an API name, not write-only, not an action or a local setting. */
  readonly returned: readonly Entry[];
  /**
   * Kept by the provider in the outputs, as the service never shows them: write-only
   * values (last applied), actions (last triggered), local settings, and provider-side
   * create-only settings (`profile`).
   */
  readonly kept: readonly Entry[];
  /** Provider-side settings: they take effect with no call (local, or create-only without an API name). */
  readonly providerSide: ReadonlySet<string>;
  /** Sent in the create body. */
  readonly created: readonly Entry[];
  /** Not taken by create (`onCreate: false`): applied by an update call right after it, when they differ. */
  readonly afterCreate: readonly Entry[];
  /** Write-only fields an update can write again (not create-only): what an object found by listing gets written. */
  readonly rewritableWriteOnly: readonly Entry[];
}

const rolesOf = new WeakMap<ResourceDefinition["fields"], FieldRoles>();

export function fieldRoles(def: Pick<ResourceDefinition, "fields">): FieldRoles {
  let roles = rolesOf.get(def.fields);
  if (roles) return roles;
  const all = fieldEntries(def);
  const providerSide = (spec: FieldSpec) => spec.mode === "local" || (spec.mode === "createOnly" && !spec.api);
  roles = {
    inputs: all.filter(([, spec]) => isInputField(spec)),
    returned: all.filter(([, spec]) => spec.api !== undefined && !spec.writeOnly && spec.mode !== "action" && spec.mode !== "local"),
    kept: all.filter(([, spec]) => spec.writeOnly || spec.mode === "action" || providerSide(spec)),
    providerSide: new Set(all.filter(([, spec]) => providerSide(spec)).map(([name]) => name)),
    created: all.filter(([, spec]) => spec.api !== undefined && isInputField(spec) && spec.mode !== "local" && spec.onCreate !== false && (spec.mode !== "action" || spec.onCreate === true)),
    afterCreate: all.filter(([, spec]) => spec.onCreate === false),
    rewritableWriteOnly: all.filter(([, spec]) => spec.writeOnly && spec.mode !== "createOnly"),
  };
  rolesOf.set(def.fields, roles);
  return roles;
}

/** camelCase outputs of the fields the service returns (write-only and provider-side fields excluded). */
export function remoteFields(def: ResourceDefinition, answer: Props): Props {
  // The owner mark stands for the unset field it is written in (owner.ts).
  const remote = withoutMark(def, answer);
  const out: Props = {};
  for (const [name, spec] of fieldRoles(def).returned) {
    if (!(spec.api! in remote)) continue;
    out[name] = (spec.codec ?? asIs).fromApi(remote[spec.api!]) ?? null;
  }
  return out;
}

/**
 * Was the object written since the state last saw it (its `updated_at` moved) with
 * nothing the service shows changed? Then the write changed only values it never
 * shows (a secret rotated outside Pulumi), or nothing at all.
 */
export function writtenUnseen(def: ResourceDefinition, remote: Props, previous: Props): boolean {
  const stamp = fieldEntries(def).find(([, spec]) => spec.api === "updated_at")?.[0];
  const shown = remoteFields(def, remote);
  if (!stamp || typeof shown[stamp] !== "string" || typeof previous[stamp] !== "string" || shown[stamp] === previous[stamp]) return false;
  return Object.entries(shown).every(([name, value]) => name === stamp || fieldEqual(def.fields[name]!, value, previous[name]));
}

/** The id of an object as the service shows it (a create's answer, a listed item): the definition's `idOf`, else its `idField`. */
export const objectId = (def: ResourceDefinition, item: Props) => (def.idOf ? def.idOf(item) : String(item[def.idField ?? "id"]));

/** Every field present (null when not set), so the SDK resolves every declared output. */
export function completeOutputs(def: ResourceDefinition, outputs: Props): Props {
  const out: Props = { ...outputs };
  for (const [name] of fieldEntries(def)) if (out[name] === undefined) out[name] = null;
  return toPlainJson(out) as Props;
}

/** Values the provider itself keeps (`FieldRoles.kept`), from `source`; `only` narrows the fields. */
export function keptValues(def: ResourceDefinition, source: Props, only?: (name: string) => boolean): Props {
  const out: Props = {};
  for (const [name, spec] of fieldRoles(def).kept) {
    if (only && !only(name)) continue;
    out[name] = source[name] ?? spec.default ?? null;
  }
  return out;
}

/** What a read learns of each write-only field (hooks.refreshWriteOnly); without the hook, the last applied value. */
export function writeOnlyAsRead(def: ResourceDefinition, remote: Props, previous: Props): Props {
  const learnt: Props = {};
  const hook = def.hooks?.refreshWriteOnly;
  if (hook) for (const [name, spec] of fieldEntries(def)) if (spec.writeOnly) learnt[name] = hook(name, remote, previous[name] ?? null, previous);
  return learnt;
}

/** The inputs refresh stores: read back from the service, write-only values as the read learnt them. */
export function rebuildInputs(def: ResourceDefinition, answer: Props, previous: Props): Props {
  const remote = withoutMark(def, answer);
  const returned = new Set(fieldRoles(def).returned.map(([name]) => name));
  const inputs: Props = {};
  for (const [name, spec] of fieldRoles(def).inputs) {
    const value = returned.has(name) && spec.api! in remote ? (spec.codec ?? asIs).fromApi(remote[spec.api!]) : previous[name];
    if (value !== undefined && value !== null) inputs[name] = value;
  }
  return toPlainJson(inputs) as Props;
}

/** The body of the create call: every declared field create takes, in API names. */
export function createBody(def: ResourceDefinition, news: Props): Props {
  const body: Props = {};
  for (const [name, spec] of fieldRoles(def).created) {
    const value = news[name];
    if (value === undefined || value === null) continue;
    body[spec.api!] = (spec.codec ?? asIs).toApi(value);
  }
  return body;
}
