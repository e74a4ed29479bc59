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
 * least MIN_SECRET_LENGTH characters is hidden, as written, JSON-escaped and
 * URL-encoded; a secret URL's query values and password are hidden on their own too (a
 * message may quote a token without the URL around it). Shorter strings are left alone:
 * hiding every "prod" would garble messages and protect nothing.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import { fieldEntries, type Props, type ResourceDefinition } from "./fields";
import { SECRET_INPUTS_KEY } from "./check";

export const REDACTED = "[secret]";
export const MIN_SECRET_LENGTH = 6;

/** The names of the secret properties of `props`: always-secret fields, and those the SDK listed. */
export function secretNames(def: ResourceDefinition, props: Props | undefined): string[] {
  const listed = props?.[SECRET_INPUTS_KEY];
  const names = new Set(Array.isArray(listed) ? listed.filter((n): n is string => typeof n === "string") : []);
  for (const [name, spec] of fieldEntries(def)) if (spec.secret) names.add(name);
  return [...names];
}

/** Every text that would reveal a secret value of `props` (or one of `extra`, e.g. the API key). */
export function secretTexts(def: ResourceDefinition, props: (Props | undefined)[], extra: (string | undefined)[] = []): string[] {
  const leaves: string[] = extra.filter((s): s is string => typeof s === "string");
  for (const p of props) for (const name of secretNames(def, p)) stringLeaves(p?.[name], leaves);
  const texts = new Set<string>();
  for (const leaf of leaves) for (const form of formsOf(leaf)) if (form.length >= MIN_SECRET_LENGTH) texts.add(form);
  // Longest first, so a URL is hidden whole before its token is.
  return [...texts].sort((a, b) => b.length - a.length);
}

function stringLeaves(value: unknown, out: string[]): void {
  if (typeof value === "string") out.push(value);
  else if (typeof value === "number" && String(value).length >= MIN_SECRET_LENGTH) out.push(String(value));
  else if (Array.isArray(value)) for (const v of value) stringLeaves(v, out);
  else if (value && typeof value === "object") for (const v of Object.values(value)) stringLeaves(v, out);
}

/** A secret as a message may spell it: as is, JSON-escaped, URL-encoded; for a URL also its query values and password. */
function formsOf(secret: string): string[] {
  const forms = [secret, JSON.stringify(secret).slice(1, -1), encodeURIComponent(secret)];
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(secret)) {
    try {
      const url = new URL(secret);
      forms.push(url.href, url.password, url.search.slice(1), decodeURIComponent(url.password));
      for (const value of url.searchParams.values()) forms.push(value, encodeURIComponent(value));
    } catch {
      // Not a URL after all: the forms above hide it.
    }
  }
  return forms;
}

/** `text` with every secret text replaced by `[secret]`. */
export function redact(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const s of secrets) if (out.includes(s)) out = out.split(s).join(REDACTED);
  return out;
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
export function withSecrets<T>(secrets: readonly string[], fn: () => Promise<T>): Promise<T> {
  return current.run(secrets, fn);
}

/** `text` redacted with the secrets of the provider call running now (none outside one). */
export function redactCurrent(text: string): string {
  const secrets = current.getStore();
  return secrets ? redact(text, secrets) : text;
}
