/**
 * Custom header names: their canonical spelling and whether they look like they
 * carry a credential. Only names are ever looked at here; values are never read.
 */

/** RFC 9110 token characters: the only names the API accepts (rules/endpoint.ts checks them too). */
const HTTP_TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

/**
 * `x-api-key` -> `X-Api-Key`: each dash-separated word capitalised, the rest lower
 * case (Go's `CanonicalMIMEHeaderKey`). A name that is not a valid token is returned
 * unchanged: the API will refuse it anyway and renaming it would hide that.
 */
export function canonicalHeaderName(name: string): string {
  if (!HTTP_TOKEN.test(name)) return name;
  return name
    .split("-")
    .map((word) => word.charAt(0).toUpperCase() + word.slice(1).toLowerCase())
    .join("-");
}

/** Name fragments that mark a header as carrying a credential, unless the policy config says otherwise. */
export const DEFAULT_CREDENTIAL_NAME_FRAGMENTS: readonly string[] = ["authorization", "token", "key", "secret"];

/** Does the header name contain one of the fragments (case-insensitive)? */
export function looksLikeCredential(name: string, fragments: readonly string[]): boolean {
  const lower = name.toLowerCase();
  return fragments.some((f) => f.length > 0 && lower.includes(f.toLowerCase()));
}
