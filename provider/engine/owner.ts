/**
 * Proof of ownership on the object itself (provider/README.md, "Ownership", says the
 * model): every resource gets an owner token at its first check, kept in its inputs (a
 * pending create in the state carries it) and outputs; a create writes the mark
 * `managed by pulumi-svc (owner <token>)` in the kind's owner field when the program
 * leaves it unset, and reads show that field unset. Only an object carrying this
 * resource's token is taken without the user's word (reconcile.ts, recover).
 */
import { randomBytes } from "node:crypto";
import type { CheckFailure, Props, ResourceDefinition } from "./fields";
import { OWNER_KEY } from "./internal-keys";

const MARK = /^managed by pulumi-svc \(owner ([a-z2-7]{26})\)$/;
const BASE32 = "abcdefghijklmnopqrstuvwxyz234567";

/** A new token: 128 random bits in base32 (26 lower-case characters), one word to read. */
export function newOwnerToken(): string {
  let bits = 0n;
  for (const byte of randomBytes(16)) bits = (bits << 8n) | BigInt(byte);
  bits <<= 2n; // 130 bits: 26 characters of 5
  let out = "";
  for (let i = 25; i >= 0; i--) out += BASE32[Number((bits >> BigInt(i * 5)) & 31n)];
  return out;
}

/** The mark a create writes into the kind's owner field. */
export const ownerMark = (token: string) => `managed by pulumi-svc (owner ${token})`;

/** The token inputs or outputs carry, if any (state written before tokens existed has none). */
export function ownerTokenOf(props: Props | undefined): string | undefined {
  const token = props?.[OWNER_KEY];
  return typeof token === "string" && token !== "" ? token : undefined;
}

/** The token an object, as the service shows it (or a create body), carries in the kind's owner field, if any. */
export function markedOwner(def: ResourceDefinition, remote: Props): string | undefined {
  const api = ownerField(def)?.api;
  const value = api === undefined ? undefined : remote[api];
  return typeof value === "string" ? MARK.exec(value)?.[1] : undefined;
}

/** The service's answer with the owner mark read as the unset field it stands for. */
export function withoutMark(def: ResourceDefinition, remote: Props): Props {
  const api = ownerField(def)?.api;
  return api !== undefined && markedOwner(def, remote) !== undefined ? { ...remote, [api]: null } : remote;
}

/** The create body with the mark, when the kind has an owner field, the inputs a token, and the program left the field unset. */
export function markedBody(def: ResourceDefinition, body: Props, inputs: Props): Props {
  const api = ownerField(def)?.api;
  const token = ownerTokenOf(inputs);
  if (api === undefined || token === undefined || (body[api] !== undefined && body[api] !== null)) return body;
  return { ...body, [api]: ownerMark(token) };
}

/**
 * A program's own owner-field value that reads as a mark (a copy from the dashboard, say):
 * the provider would take the object for that token's, in its reads and its deletes.
 */
export function markShapedOwnerField(def: ResourceDefinition, inputs: Props): CheckFailure[] {
  const name = def.ownerField;
  const value = name === undefined ? undefined : inputs[name];
  if (typeof value !== "string" || !MARK.test(value)) return [];
  return [
    {
      property: name!,
      reason: `"${value}" is an owner mark: pulumi-svc writes it itself when ${name} is left unset, and takes it as proof of which resource holds the object. Leave ${name} unset (the provider marks the object), or write other text.`,
    },
  ];
}

/**
 * The kind's owner field (program name) and its API name, when it has one; `rewritable`:
 * a PATCH can write it, so an adoption can mark the object again (an event type's
 * description cannot change).
 */
export function ownerField(def: ResourceDefinition): { name: string; api: string; rewritable: boolean } | undefined {
  const api = def.ownerField === undefined ? undefined : def.fields[def.ownerField]?.api;
  return api === undefined ? undefined : { name: def.ownerField!, api, rewritable: def.fields[def.ownerField!]!.mode === "patch" };
}
