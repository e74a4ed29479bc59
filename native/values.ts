/**
 * Property values between the engine's protobuf Structs and the provider's plain
 * objects. The plugin accepts secrets (ConfigureResponse.acceptSecrets), so a secret
 * arrives as the engine's envelope `{[SIG]: SECRET_SIG, value}`: it is unwrapped for the
 * provider, and every top-level property that held one is remembered and goes back
 * wrapped, as are the properties the schema marks secret. An unknown value (preview)
 * is the engine's UNKNOWN string, the same one the dynamic front end sees: it passes
 * through untouched.
 */
import * as structproto from "google-protobuf/google/protobuf/struct_pb";
import type { Props } from "../provider/engine/fields";

/** The engine's special-value signature key and the signature of a secret (sdk/go/common/resource/properties.go). */
const SIG_KEY = "4dabf18193072939515e22adb298388d";
const SECRET_SIG = "1b47061264138c4ac30d75fd1eb44270";

const isSecretEnvelope = (v: unknown): v is { value?: unknown } => !!v && typeof v === "object" && (v as Record<string, unknown>)[SIG_KEY] === SECRET_SIG;

function reveal(v: unknown): { value: unknown; secret: boolean } {
  if (isSecretEnvelope(v)) return { value: reveal(v.value).value, secret: true };
  if (Array.isArray(v)) {
    const items = v.map(reveal);
    return { value: items.map((i) => i.value), secret: items.some((i) => i.secret) };
  }
  if (v && typeof v === "object") {
    let secret = false;
    const out: Props = {};
    for (const [k, item] of Object.entries(v)) {
      const r = reveal(item);
      out[k] = r.value;
      secret ||= r.secret;
    }
    return { value: out, secret };
  }
  return { value: v, secret: false };
}

/** The plain properties of a Struct and the names of those that held a secret anywhere inside. */
export function unwrap(struct: structproto.Struct | undefined): { props: Props; secretNames: string[] } {
  const props: Props = {};
  const secretNames: string[] = [];
  for (const [k, v] of Object.entries((struct?.toJavaScript() ?? {}) as Props)) {
    const r = reveal(v);
    props[k] = r.value;
    if (r.secret) secretNames.push(k);
  }
  return { props, secretNames };
}

/** The top-level properties of `struct` that are secrets as a whole (not merely holding one inside). */
export function sealedNames(struct: structproto.Struct | undefined): string[] {
  return Object.entries((struct?.toJavaScript() ?? {}) as Props)
    .filter(([, v]) => isSecretEnvelope(v))
    .map(([k]) => k);
}

/** `value` as a secret inside a plain one-element list, which the engine can still mark secret as a whole (server.ts, checkConfig). */
export const heldSecret = (value: unknown) => [{ [SIG_KEY]: SECRET_SIG, value }];

/** A Struct of `props` with each property named in `secret` wrapped as a secret (null stays plain: nothing to hide). */
export function wrap(props: Props, secret: Iterable<string>): structproto.Struct {
  const names = new Set(secret);
  const out: Record<string, structproto.JavaScriptValue> = {};
  for (const [k, v] of Object.entries(props)) {
    if (v === undefined) continue;
    out[k] = (names.has(k) && v !== null ? { [SIG_KEY]: SECRET_SIG, value: v } : v) as structproto.JavaScriptValue;
  }
  return structproto.Struct.fromJavaScript(out);
}
