/**
 * Secrets out of every message, in one place. The plugin receives every input in
 * plaintext, secrets included (it accepts no secrets), so a message built from an input
 * (a verification failure naming the URL, a rule quoting a header) could print one. The
 * guard (engine/guard.ts) runs each provider call with the secret values of its
 * properties and passes every error, check failure and warning (`note`) of the call
 * through `redact` on the way out.
 *
 * Secret values: fields that are always secret (`secret: true` in the table: signing
 * secrets, custom header values), the inputs the program marked secret (the SDK's list
 * under SECRET_INPUTS_KEY), and the API key of the connection. Each string leaf of at
 * least MIN_SECRET_LENGTH (secret-text.ts) characters is hidden, as written, JSON-escaped and
 * URL-encoded; a secret URL's query values and password are hidden on their own too (a
 * message may quote a token without the URL around it). Shorter strings are left alone:
 * hiding every "prod" would garble messages and protect nothing. The text part lives in
 * secret-text.ts, shared with the policy pack.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import { fieldEntries, type Props, type ResourceDefinition } from "./fields";
import { SECRET_INPUTS_KEY } from "./internal-keys";
import { redact, textsRevealing } from "./secret-text";

export { redact } from "./secret-text";

/** Every text that would reveal a secret value of `props` (the properties the SDK listed, and always-secret fields), or one of `extra` (e.g. the API key). */
export function secretTexts(def: ResourceDefinition, props: (Props | undefined)[], extra: (string | undefined)[] = []): string[] {
  const values: unknown[] = extra.filter((s): s is string => typeof s === "string");
  const always = fieldEntries(def).filter(([, spec]) => spec.secret).map(([name]) => name);
  for (const p of props) {
    const listed = p?.[SECRET_INPUTS_KEY];
    for (const name of [...(Array.isArray(listed) ? listed : []), ...always]) if (typeof name === "string") values.push(p?.[name]);
  }
  return textsRevealing(values);
}

/** The error with its message, stack and reasons (a PartialFailure's) redacted, in place. */
export function redactError<T>(err: T, secrets: readonly string[]): T {
  if (secrets.length === 0 || !(err instanceof Error)) return err;
  const e = err as Error & { reasons?: unknown };
  e.message = redact(e.message, secrets);
  if (e.stack) e.stack = redact(e.stack, secrets);
  if (Array.isArray(e.reasons)) e.reasons = e.reasons.map((r) => (typeof r === "string" ? redact(r, secrets) : r));
  return err;
}

const current = new AsyncLocalStorage<readonly string[]>();

/** Run `fn` with `secrets` hidden from the warnings it writes (`note`). */
export function withSecrets<T>(secrets: readonly string[], fn: () => T): T {
  return current.run(secrets, fn);
}

/** `text` redacted with the secrets of the provider call running now (none outside one). */
export function redactCurrent(text: string): string {
  const secrets = current.getStore();
  return secrets ? redact(text, secrets) : text;
}
