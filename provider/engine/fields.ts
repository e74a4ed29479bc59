/**
 * A resource is data: a table of its fields, like the spec's tables, read by the
 * generic engine (check.ts, diff.ts, plan.ts, resource-provider.ts). See provider/README.md.
 */
import { z } from "zod";
import type { RuleViolation } from "../../rules/types";
import type { Product } from "../config";
import type { ResourceKind } from "../kinds";
import type { SvcApiError } from "../client";
import type { PathSegment } from "./unknown";
import type { OperationContext } from "./engine-operation";

export type { OperationContext };

/**
 * How a field changes:
 * - `createOnly`: sent on create; a change replaces the resource. Without `api`, a
 *    provider-side setting whose change replaces (e.g. `profile`: another workspace).
 * - `patch`: sent in ONE PATCH together with every other changed patch field.
 * - `put`: its own call replacing a sub-resource's whole set (`put` says where).
 * - `action`: never sent as a value; a change triggers a POST (`action` says where).
 * - `output`: never sent; read back.
 * - `local`: never sent; steers the provider (e.g. `verify`, `drainTimeoutSeconds`).
 */
export type FieldMode = "createOnly" | "patch" | "put" | "action" | "output" | "local";

/** Converts one field's value between the program's camelCase shape and the API's. */
export interface Codec {
  toApi(value: unknown): unknown;
  fromApi(value: unknown): unknown;
  /** Property path (camelCase) of a path below the field in API names. */
  propertyPath(apiPath: PathSegment[]): PathSegment[];
}

export interface FieldSpec {
  mode: FieldMode;
  /**
   * What users read about it: the argument's (an output's, for `output` fields). The
   * schema (scripts/schema.ts), the reference pages and the SDK's TSDoc say this;
   * `npm run generate` refuses a registered field without one.
   */
  description?: string;
  /** What the output says when it differs from the argument (`Free text, or null.`); the SDK output's TSDoc. */
  outputDescription?: string;
  /** The program must give it (the schema's `requiredInputs`, the SDK's args); the rules in rules/ refuse its absence at preview. */
  required?: boolean;
  /**
   * The type programs see, when `input` does not say it: an output's, or one narrower
   * than `input` (kept loose where the shared rules give the API's own message).
   * @internal left out of the published typings, like `input`.
   */
  type?: z.ZodType;
  /**
   * The output's type, when it is not the argument's: by default an output is the
   * argument's type, null when omitted unless required, defaulted or `whenOmitted: "unmanaged"`.
   * @internal left out of the published typings, like `input`.
   */
  outputType?: z.ZodType;
  /** The API's name for it (`max_attempts`); absent for `local` and provider-side fields. */
  api?: string;
  /**
   * zod schema of the input value (camelCase shape). Required for every input field.
   * @internal left out of the published typings: zod's own need `esModuleInterop`,
   * which Pulumi's template tsconfig does not set (test/package/pack.test.ts).
   */
  input?: z.ZodType;
  codec?: Codec;
  /**
   * Sent, never returned (custom header values, a given secret): diff compares the
   * new value with the last applied one, kept in the outputs under the same name
   * (the SDK marks the input secret, so the output is secret too).
   */
  writeOnly?: boolean;
  /**
   * Always a secret (a signing secret, custom header values), whatever the program
   * marked: its values are kept out of every message (engine/redact.ts). Inputs the
   * program itself made secret are known from the SDK's list (check.ts SECRET_INPUTS_KEY).
   */
  secret?: boolean;
  /**
   * `false`: not accepted by the API's create (endpoint `status`); applied by an
   * update call right after create when the declared value differs.
   * `true` on an `action` field: also sent in the create body (a source's `secret`:
   * given on create, changed later by `rotate-secret`).
   */
  onCreate?: boolean;
  /**
   * `"unmanaged"`: leaving the input out leaves the service's value alone (fields
   * with a service default). Default `"clear"`: leaving it out sends null.
   */
  whenOmitted?: "clear" | "unmanaged";
  /**
   * Read by check (and by policy packs, from the inputs) only, never part of what the
   * resource is: diff ignores it, so a new value alone is no update, and a state
   * written before the field existed shows no change (e.g. names the SDK derives).
   */
  checkOnly?: boolean;
  /**
   * A map field whose keys the SDK also lists in this `checkOnly` field. A secret map
   * reaches the provider as one value, unknown at preview as a whole once any value in it
   * is (an SDK wraps it in one secret Output), and a key named like a prototype key is
   * lost in serialization: the rules judge the listed keys too (values unknown), so a
   * refused key fails the preview.
   */
  keysIn?: string;
  /**
   * The TypeScript SDK's class does not make this field's prop itself: the hand-written
   * sdk/<product>/<kind>.extra.ts beside the generated class does (`extraProps`), for
   * what a generator cannot say (a `Map` of headers taken as its entries, names derived
   * from which values were secret). Its argument type also takes a `Map` when `acceptsMap`.
   */
  sdk?: { extraProps: true; acceptsMap?: boolean };
  /** Value check() fills in when the input is absent. */
  default?: unknown;
  /**
   * Part of a key unique in the service (a name, with its scope): a replacement that
   * keeps every `uniqueName` field cannot exist next to the old object, so it deletes first.
   */
  uniqueName?: boolean;
  /** Equality of two values of this field (default: structural JSON equality), e.g. schemas by canonical JSON. */
  equal?: (a: unknown, b: unknown) => boolean;
  /** For `put`: path of the call (relative to the item path) and the body key. */
  put?: { path: string; bodyKey: string };
  /** For `action`: path of the POST (relative to the item path) and whether repeating it is harmless. */
  action?: { path: string; safeToRepeat: boolean; body?: (value: unknown) => unknown };
}

export type Fields = Record<string, FieldSpec>;
export type Props = Record<string, unknown>;

/**
 * A kind's values by field name, from its table (`defineResource`): a misspelt name in
 * a hook fails to compile. Values stay `unknown`: at preview any may be unknown, and
 * what the service answers is not checked against the table.
 */
export type OutputsOf<F extends Fields> = { [K in keyof F & string]?: unknown };
/** The fields a program declares: every one but outputs. */
export type InputName<F extends Fields> = { [K in keyof F & string]: F[K]["mode"] extends "output" ? never : K }[keyof F & string];
/** A kind's declared inputs by name. */
export type InputsOf<F extends Fields> = { [K in InputName<F>]?: unknown };

/** One HTTP call of an update, in the order PATCH, PUT(s), action(s). */
export interface PlannedCall {
  kind: "patch" | "put" | "action";
  method: "PATCH" | "PUT" | "POST";
  /** Relative to the item path ("" for the item itself). */
  path: string;
  body?: unknown;
  /** The camelCase fields this call applies (their values become "last applied" when it succeeds). */
  fields: string[];
  safeToRepeat: boolean;
  /** A label for messages, e.g. `PATCH` or `rotate-secret`. */
  label: string;
}

export interface CheckFailure {
  property: string;
  reason: string;
}

export interface ApplyContext extends OperationContext {
  id: string;
  def: ResourceDefinition;
  /** The item path (e.g. `/v1/endpoints/ep_1`). */
  itemPath: string;
}

/**
 * The few things a table cannot say; every hook is optional. Props named by field
 * (`InputsOf`, `OutputsOf`) are the kind's; `Props` are the API's (snake_case) answers and bodies.
 */
export interface ResourceHooks<F extends Fields = Fields> {
  /**
   * Preview checks that need a read (cached once per operation), e.g. a plan ceiling.
   * `olds` are the previous inputs (empty for a resource not created yet).
   */
  checkRemote?(inputs: InputsOf<F>, ctx: OperationContext, olds: InputsOf<F>): Promise<CheckFailure[]>;
  /** Reshape the update's calls, e.g. `status: enabled` on an auto-disabled endpoint → POST enable. */
  adjustPlan?(calls: PlannedCall[], olds: OutputsOf<F>, news: InputsOf<F>): PlannedCall[];
  /** Outputs that are not fields, from a response (e.g. the signing secret of create or rotate-secret). */
  extraOutputs?(response: Props, previous: OutputsOf<F>): OutputsOf<F>;
  /**
   * What a read learns of a write-only field (values the service never shows): the
   * last applied value, unless what the service does show says it can no longer be
   * the one applied (header names added or gone; a write that changed nothing shown).
   * Then a value that differs from every declared one (null, or null per header), so
   * refresh shows the drift and the next up writes the declared value. It becomes the
   * field's output and refreshed input. `previous`: the stored outputs.
   */
  refreshWriteOnly?(field: keyof F & string, remote: Props, lastApplied: unknown, previous: OutputsOf<F>): unknown;
  /** A write-only field the object holds no value of, as its outputs show (an endpoint without custom header names): an import then missed nothing of it. */
  holdsNone?(field: keyof F & string, outputs: OutputsOf<F>): boolean;
  /** After a create or update succeeded (e.g. verify). May throw a PartialFailure. */
  afterApply?(ctx: ApplyContext, event: { created: boolean; olds: OutputsOf<F> | undefined; news: InputsOf<F>; outputs: OutputsOf<F> }): Promise<OutputsOf<F>>;
  /** A refusal turned into a message naming the reason and the fix; undefined keeps the generic one. */
  explainError?(err: SvcApiError, operation: Operation, inputs: OutputsOf<F> | undefined): string | undefined;
  /** Before the DELETE: what onDeleteRefused needs to know of the object as it was (a refusal may change it); `current`: the object as the engine read it just before, if it did (an owner-marked object). */
  beforeDelete?(ctx: ApplyContext, props: OutputsOf<F>, current?: Props): Promise<void>;
  /**
   * DELETE refused: wait or explain. Return "retry" to send DELETE again, "gone" to
   * drop the resource from the state anyway (after a `note` saying why, e.g. a decided
   * quota request that cannot be withdrawn), or throw.
   */
  onDeleteRefused?(err: SvcApiError, ctx: ApplyContext, props: OutputsOf<F>): Promise<"retry" | "gone">;
  /**
   * Reshape the diff, given the previous outputs: e.g. a change to a decided quota
   * request replaces it, an inbox past its expiry is created again. Say why with `note`.
   * `ctx`: the context of the news' connection, undefined when a setting is missing (check said so).
   */
  adjustDiff?(diff: FieldDiff, olds: OutputsOf<F>, news: InputsOf<F>, id: string, ctx: OperationContext | undefined): FieldDiff;
  /** A read answer that means the object is gone (a withdrawn quota request): refresh drops it like a 404. */
  goneWhen?(remote: Props): boolean;
  /**
   * What a read declares of the inputs it rebuilt from the service's answer: with no state (`pulumi import`, what its
   * generated code declares; a `get`; `stored` undefined) by the id it was asked, e.g. only the figures of the id's
   * scope; with state (a refresh), by the stored outputs, e.g. only the figures the resource manages, so that refresh
   * shows none of the others as drift. Default: every rebuilt input.
   */
  readInputs?(inputs: InputsOf<F>, id: string, stored: OutputsOf<F> | undefined): InputsOf<F>;
}

export type Operation = "check" | "create" | "read" | "update" | "delete" | "adopt";

/** A kind: its field table `F` and what the engine needs besides. Written with `defineResource`, so `F` is the table's own. */
export interface ResourceDefinition<F extends Fields = Fields> {
  kind: ResourceKind;
  /** What users read about the kind (the schema, the reference page, the SDK class's TSDoc). */
  description?: string;
  product: Product;
  /** What the id looks like when it is not the service's own (`get` and the reference page say it), e.g. `workspace/<name>`. */
  idDescription?: string;
  /** What a change does that the field modes do not say, for README's resource table (e.g. a decided request is replaced). */
  changeNote?: string;
  /** Singular noun for messages, e.g. `endpoint`. */
  noun: string;
  fields: F;
  /** `idInBody`: the API takes the id in the PATCH body under this name, not in the path (quota requests). */
  paths: { create: string; item: (id: string) => string; idInBody?: string };
  /** API name of the id in responses. */
  idField?: string;
  /** Shared rules (rules/*.ts) over the API-shaped body: preview predicts the API's own 422s. */
  rules?: (apiBody: Props) => RuleViolation[];
  /** How to adopt an existing object, for unknown-outcome messages. */
  adoptHint: string;
  /** The resource's id from a create (or read) answer; default: the `idField` value. */
  idOf?(response: Props): string;
  /** Adoption other than by `adoptId` (default: the `adoptId` input, the object must exist, createOnly fields must match). */
  adoption?: AdoptionSpec<F>;
  /** An object that always exists (a workspace setting): create takes it over, delete puts back what was found. */
  singleton?: SingletonSpec<F>;
  /** How a create whose outcome is unknown is looked for (engine/reconcile.ts), when not at its create path by the declared fields. */
  reconcile?: ReconcileSpec<F>;
  /** A free-text field (sent on create, shown back on reads) where a create whose program leaves it unset writes the owner mark (owner.ts). */
  ownerField?: keyof F & string;
  hooks?: ResourceHooks<F>;
  /**
   * How to bring a state an earlier release wrote to this one (engine/upgrade.ts): element
   * i turns outputs of state shape 1 + i into shape 2 + i. Append one when a release
   * changes what the kind keeps in its outputs.
   */
  upgrade?: readonly Upgrader[];
}

/** Outputs of state shape N in, outputs of shape N+1 out. Pure: no call, no setting. */
export type Upgrader = (outputs: Props) => Props;

/**
 * A kind's definition with its own field table as `F` (literal modes kept), so its
 * hooks see `InputsOf<F>` / `OutputsOf<F>` and the registry hands typed operations out.
 */
export function defineResource<const F extends Fields>(def: ResourceDefinition<F>): ResourceDefinition<F> {
  return def;
}

/** For `reconcile`: how a kind lists its objects and recognises the one a create made. */
export interface ReconcileSpec<F extends Fields = Fields> {
  /**
   * Where to list (default: the create path, with `project_id` when the create body has
   * one). `cursor`: an infrastructure list (`{items, pagination}`), walked by cursor
   * instead of the Webhooks/Inboxes offset pages.
   */
  list?(body: Props, inputs: InputsOf<F>): { path: string; query?: Record<string, string | undefined>; cursor?: boolean };
  /** Is this listed object the one `body` would have made? Default: every returned field sent on create is equal. */
  matches?(remote: Props, body: Props, inputs: InputsOf<F>): boolean;
}

/** What diff found: the declared fields that changed, those that replace, and whether the old object goes first. */
export interface FieldDiff {
  changed: string[];
  replaces: string[];
  deleteBeforeReplace: boolean;
}

export interface AdoptionSpec<F extends Fields = Fields> {
  /** The id of the object to adopt, from the inputs, or undefined to create (e.g. a name in its scope when `adoptExisting`). */
  idFrom(inputs: InputsOf<F>): string | undefined;
  /** The input that asks for adoption (errors name it), e.g. `adoptExisting`; default `adoptId`. */
  input?: string;
  /** No such object: create it instead of failing. */
  createWhenMissing?: boolean;
  /** A createOnly field differs: delete the object and create it as declared instead of failing. */
  replaceWhenDifferent?: boolean;
}

/**
 * A setting that exists before and after the resource (a workspace's, a scope's
 * policy): there is nothing to create or delete. Create reads the item, keeps what it
 * found in `priorField` (an output field) and writes every declared field; update
 * writes the changed ones; delete reads the item again and writes the kept values back
 * where the service still holds what the resource wrote (`unchangedSince`).
 */
export interface SingletonSpec<F extends Fields = Fields> {
  /** The id of the setting (what `paths.item` takes) from the inputs, e.g. its scope. */
  idOf(inputs: InputsOf<F>): string;
  /** The output field keeping the values found before the take-over. */
  priorField: keyof F & string;
  /** What to keep from the item as read before the take-over (`news`: the declared inputs); default: the writable fields (camelCase). */
  prior?(remote: Props, news: InputsOf<F>): Props;
  /** Put the kept values back; default: write them like an update from nothing to `prior`. */
  restore?(ctx: ApplyContext, prior: Props, props: OutputsOf<F>): Promise<void>;
  /**
   * Split `prior` by the item as read before the delete (`remote`): `restore`, the part
   * whose settings still hold what this resource wrote (its `outputs`), and the settings
   * someone else (another stack, a person) changed since, which are left as they are.
   * Default: per field of `prior`.
   */
  unchangedSince?(prior: Props, outputs: OutputsOf<F>, remote: Props): { restore: Props; changed: ChangedSetting[] };
  /**
   * Another resource of the stack holds the setting now, having found `holderFound`: the
   * part of `prior` it does not manage (still this resource's to put back), or undefined
   * when none. Default: none, the holder manages the whole setting.
   */
  notHeldBy?(prior: Props, holderFound: Props): Props | undefined;
  /**
   * The part of the value found before (`olds`' prior field) that an update's `news` no longer declare: put back after
   * the update's writes as a delete puts it back (only where the service still holds what this resource wrote; the
   * rest left, with a note), e.g. a quota name removed from `limits`. Default: none.
   */
  givenBack?(olds: OutputsOf<F>, news: InputsOf<F>): Props | undefined;
}

/** A setting changed since the resource wrote it: what the service holds, and what delete would have put back. */
export interface ChangedSetting {
  setting: string;
  holds: unknown;
  found: unknown;
}

/* ---------- codecs ---------- */

/** Same value both ways; nested path segments kept as they are (e.g. header names). */
export const asIs: Codec = {
  toApi: (v) => v,
  fromApi: (v) => v,
  propertyPath: (p) => p,
};

/**
 * An object whose keys the API spells differently, e.g. `{ eventType }` ↔ `{ event_type }`.
 * `names` maps camelCase → API.
 */
export function renamedObject(names: Record<string, string>): Codec {
  const toCamel = Object.fromEntries(Object.entries(names).map(([camel, api]) => [api, camel]));
  const rename = (v: unknown, map: Record<string, string>) => {
    if (!v || typeof v !== "object" || Array.isArray(v)) return v;
    // A loop rather than fromEntries(entries().map()): every subscription of every endpoint passes here.
    const out: Record<string, unknown> = {};
    for (const k in v) if (Object.hasOwn(v, k)) out[map[k] ?? k] = (v as Record<string, unknown>)[k];
    return out;
  };
  return {
    toApi: (v) => rename(v, names),
    fromApi: (v) => rename(v, toCamel),
    propertyPath: ([first, ...rest]) => (first === undefined ? [] : [toCamel[String(first)] ?? first, ...rest]),
  };
}

/** A list whose items use `item`. */
export function listOf(item: Codec): Codec {
  const map = (v: unknown, f: (x: unknown) => unknown) => (Array.isArray(v) ? v.map(f) : v);
  return {
    toApi: (v) => map(v, item.toApi),
    fromApi: (v) => map(v, item.fromApi),
    propertyPath: ([index, ...rest]) => (index === undefined ? [] : [index, ...item.propertyPath(rest)]),
  };
}

const fieldEntriesOf = new WeakMap<Fields, [string, FieldSpec][]>();

/**
 * The field table as `[name, spec]` pairs, made once per table: check, diff, create
 * and read walk it for every resource, and `Object.entries` would copy it each time.
 */
export function fieldEntries(def: Pick<ResourceDefinition, "fields">): readonly [string, FieldSpec][] {
  let entries = fieldEntriesOf.get(def.fields);
  if (!entries) fieldEntriesOf.set(def.fields, (entries = Object.entries(def.fields)));
  return entries;
}

/**
 * The resource's name in the program, which the SDK passes to kinds that can adopt an
 * object: the keepers' errors (claims.ts) name the other resource with it. Check-only, so
 * a state without it (an earlier release's) shows no change.
 */
export const RESOURCE_NAME_FIELD: FieldSpec = {
  mode: "local",
  input: z.string().min(1),
  checkOnly: true,
  description: "The resource's name in the program, set by the SDK: an adoption of an object another resource of the program holds fails naming it.",
};

/** Is this field one the program declares (everything but outputs)? */
export const isInputField = (spec: FieldSpec) => spec.mode !== "output";

/** `customHeaders["X-Team"]`, `subscriptions[0].eventType`. */
export function formatPropertyPath(path: PathSegment[]): string {
  let out = "";
  for (const seg of path) {
    if (typeof seg === "number") out += `[${seg}]`;
    else if (/^[A-Za-z_$][\w$]*$/.test(seg)) out += out ? `.${seg}` : seg;
    else out += `[${JSON.stringify(seg)}]`;
  }
  return out;
}

/** Map an API location (`["custom_headers", "X-A"]`, without the leading `body`) to a property path. */
export function apiPathToProperty(fields: Fields, apiPath: PathSegment[]): string {
  const [first, ...rest] = apiPath;
  const entry = Object.entries(fields).find(([, spec]) => spec.api === first);
  if (!entry) return formatPropertyPath(apiPath);
  const [name, spec] = entry;
  return formatPropertyPath([name, ...(spec.codec ?? asIs).propertyPath(rest)]);
}
