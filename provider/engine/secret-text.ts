/**
 * How a secret value can show up in a message, and how to hide it: the text part of
 * redaction, with no imports, so that the policy pack (policy/lib/redact.ts) hides
 * secrets exactly as the provider does (engine/redact.ts) without loading the provider.
 */

export const REDACTED = "[secret]";
/** Shorter strings are left alone: hiding every "prod" would garble messages and protect nothing. */
export const MIN_SECRET_LENGTH = 6;

/** Every string leaf of `value` (long numbers too), appended to `out`. */
export function stringLeaves(value: unknown, out: string[]): void {
  if (typeof value === "string") out.push(value);
  else if (typeof value === "number" && String(value).length >= MIN_SECRET_LENGTH) out.push(String(value));
  else if (Array.isArray(value)) for (const v of value) stringLeaves(v, out);
  else if (value && typeof value === "object") for (const v of Object.values(value)) stringLeaves(v, out);
}

/** A secret as a message may spell it: as is, JSON-escaped, URL-encoded; for a URL also its query values and password. */
export function formsOf(secret: string): string[] {
  // As an environment variable's name spells it too (a secret profile name in `SVC_PROFILE_<NAME>_...`).
  const forms = [secret, JSON.stringify(secret).slice(1, -1), encodeURIComponent(secret), secret.replace(/[^A-Za-z0-9]/g, "_").toUpperCase()];
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

/** The texts that would reveal any string leaf of `values`, longest first (a URL is hidden whole before its token is). */
export function textsRevealing(values: readonly unknown[]): string[] {
  const leaves: string[] = [];
  for (const v of values) stringLeaves(v, leaves);
  const texts = new Set<string>();
  for (const leaf of leaves) for (const form of formsOf(leaf)) if (form.length >= MIN_SECRET_LENGTH) texts.add(form);
  return [...texts].sort((a, b) => b.length - a.length);
}

/** `text` with every secret text replaced by `[secret]`. */
export function redact(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const s of secrets) if (out.includes(s)) out = out.split(s).join(REDACTED);
  return out;
}
