/**
 * Write-only secrets out of the outputs, kept as seals (provider/README.md, "Write-only
 * values", says what and why): an HMAC-SHA256 of the value under a key derived from the
 * connection's API key, made where outputs leave the engine (`sealing`, around a kind's
 * typed operations, so under both front ends) and opened where stored outputs come in.
 */
import { createHmac, timingSafeEqual } from "node:crypto";
import { canonicalJson } from "../../rules/event-schema";
import { profileOf } from "../config";
import { connectionOf } from "./engine-operation";
import { mapOutputs } from "./errors";
import { fieldEntries, type Props, type ResourceDefinition } from "./fields";
import type { Operations } from "./operations";
import { containsUnknown } from "./unknown";

const PREFIX = "hmac-sha256:";

/** A sealing key: its secret and the short id each seal names it by. */
export interface SealKey {
  readonly secret: Buffer;
  readonly id: string;
}

/** Process-wide, not per operation: a key derived from an API key is the same in every operation (a memo, nothing learnt). */
const keys = new Map<string, SealKey>();

/** The key of an API key: HMAC-SHA256 under it of a fixed label (no key material in the id). */
export function sealKeyOf(apiKey: string): SealKey {
  let key = keys.get(apiKey);
  if (!key) {
    const secret = createHmac("sha256", apiKey).update("pulumi-svc write-only values v1").digest();
    key = { secret, id: createHmac("sha256", secret).update("key id").digest("hex").slice(0, 12) };
    keys.set(apiKey, key);
  }
  return key;
}

/** The fields kept sealed: secret values the service never returns. */
export function sealedFields(def: Pick<ResourceDefinition, "fields">): string[] {
  return fieldEntries(def as ResourceDefinition)
    .filter(([, spec]) => spec.writeOnly && spec.secret)
    .map(([name]) => name);
}

export const isSeal = (value: unknown): value is string => typeof value === "string" && value.startsWith(PREFIX);

const isRecord = (value: unknown): value is Props => value !== null && typeof value === "object" && !Array.isArray(value);

function digest(key: SealKey, value: unknown): string {
  return createHmac("sha256", key.secret).update(canonicalJson(value)).digest("base64url");
}

/** A value sealed: a map's entries each (its keys, header names, stay readable), else the whole value. Seals and nulls stay. */
export function seal(key: SealKey, value: unknown): unknown {
  if (value === null || value === undefined || isSeal(value)) return value;
  if (isRecord(value)) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, seal(key, v)]));
  return `${PREFIX}${key.id}:${digest(key, value)}`;
}

/** Does a stored value stand for the declared one? "other key": a seal made under another key. */
export function sealMatches(key: SealKey, stored: unknown, declared: unknown): boolean | "other key" {
  if (isSeal(stored)) {
    const [id, mac] = stored.slice(PREFIX.length).split(":");
    if (id !== key.id) return "other key";
    const mine = Buffer.from(digest(key, declared));
    const theirs = Buffer.from(mac ?? "");
    return mine.length === theirs.length && timingSafeEqual(mine, theirs);
  }
  if (isRecord(stored) && isRecord(declared)) {
    const names = Object.keys(stored);
    if (names.length !== Object.keys(declared).length || !names.every((n) => n in declared)) return false;
    const each = names.map((n) => sealMatches(key, stored[n], declared[n]));
    return each.includes(false) ? false : each.includes("other key") ? "other key" : true;
  }
  return false;
}

/**
 * Stored outputs as diff and update compare them: a sealed field holds the declared
 * value where its seal matches it (and a create-only one sealed under another key:
 * never replaced on a guess); otherwise the seal, which differs from any declared value.
 */
export function openOutputs(def: ResourceDefinition, key: SealKey | undefined, olds: Props, news: Props): Props {
  if (!key) return olds;
  const out = { ...olds };
  for (const name of sealedFields(def)) {
    const declared = news[name];
    if (declared === undefined || declared === null || containsUnknown(declared)) continue;
    const match = sealMatches(key, olds[name], declared);
    if (match === true || (match === "other key" && def.fields[name]!.mode === "createOnly")) out[name] = declared;
  }
  return out;
}

/** The sealing key of the connection these props name; undefined when it cannot be resolved (check says why). */
function keyFor(def: ResourceDefinition, props: Props | undefined): SealKey | undefined {
  const conn = connectionOf(def, profileOf(props));
  return conn && sealKeyOf(conn.apiKey);
}

/**
 * A kind's operations with write-only secrets sealed in every output they give (a
 * partial failure's too) and opened in the stored outputs diff and update compare.
 */
export function sealing(ops: Operations): Operations {
  const def = ops.definition as ResourceDefinition;
  if (sealedFields(def).length === 0) return ops;
  /** `outputs` with every sealed field sealed, under the key of the connection `props` choose. */
  const sealed = (props: Props | undefined, outputs: Props) => {
    const key = keyFor(def, props);
    const out = { ...outputs };
    if (key) for (const name of sealedFields(def)) if (name in out) out[name] = seal(key, out[name]);
    return out;
  };
  return {
    ...ops,
    diff: (req) => ops.diff({ ...req, olds: openOutputs(def, keyFor(def, req.olds), req.olds, req.news) }),
    create: (req) => mapOutputs(ops.create(req), (outputs) => sealed(req.inputs, outputs)),
    update: (req) => mapOutputs(ops.update({ ...req, olds: openOutputs(def, keyFor(def, req.olds), req.olds, req.news) }), (outputs) => sealed(req.news, outputs)),
    read: async (req) => {
      const r = await ops.read(req);
      if (r.gone) return r;
      return { ...r, outputs: sealed(r.outputs, r.outputs), inputs: sealed(r.outputs, r.inputs) };
    },
  };
}
