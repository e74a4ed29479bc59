/**
 * Custom header names in canonical case (`X-Api-Key`). Header names are
 * case-insensitive on the wire, but the API reports them back as written
 * (`custom_header_names`), so `x-api-key` in one program and `X-API-KEY` in another
 * read as different headers in every diff and review. Renaming is safe: it never
 * touches a value, and the value's secretness is kept. Two names that differ only in
 * case cannot be renamed (one value would be lost); that is reported instead.
 *
 * Enforcement `remediate`: the engine applies the rename before validation, so only
 * the case clash is ever reported. Set it to `mandatory` or `advisory` to report
 * instead of rename.
 */
import type { ResourceValidationPolicy } from "@pulumi/policy";
import { canonicalHeaderName } from "../lib/headers";
import { remediateKinds, validateKinds } from "../lib/match";
import { isRecord, isUnknown, mapKeepingSecret, rawProperty } from "../lib/props";

/** Names that differ only in case, grouped; every group has at least two names. */
function caseClashes(names: string[]): string[][] {
  const groups = new Map<string, string[]>();
  for (const name of names) groups.set(name.toLowerCase(), [...(groups.get(name.toLowerCase()) ?? []), name]);
  return [...groups.values()].filter((g) => g.length > 1);
}

/** The header map with canonical names and the very same (raw) values, or undefined when nothing changes. */
function canonicalHeaders(headers: unknown): Record<string, unknown> | undefined {
  if (!isRecord(headers) || isUnknown(headers)) return undefined;
  const names = Object.keys(headers);
  if (caseClashes(names).length > 0 || names.every((n) => canonicalHeaderName(n) === n)) return undefined;
  const out: Record<string, unknown> = {};
  for (const name of names) out[canonicalHeaderName(name)] = rawProperty(headers, name);
  return out;
}

export const endpointHeaderNameCase: ResourceValidationPolicy = {
  name: "endpoint-header-name-case",
  description: "Endpoint custom header names are written in canonical case (X-Header-Name).",
  enforcementLevel: "remediate",
  remediationSteps:
    "Rename each custom header to its canonical case (X-Header-Name); with enforcement `remediate` this policy renames them itself, values untouched. Remove one of two names that differ only in case.",
  remediateResource: remediateKinds(["webhooks:Endpoint"], (raw) => {
    let changed = false;
    const customHeaders = mapKeepingSecret(raw["customHeaders"], (headers) => {
      const renamed = canonicalHeaders(headers);
      if (!renamed) return headers;
      changed = true;
      return renamed;
    });
    if (!changed) return undefined;
    // Keep the plaintext-name list in step with the renamed headers.
    const plaintextHeaderNames = mapKeepingSecret(raw["plaintextHeaderNames"], (names) =>
      Array.isArray(names) ? names.map((n) => (typeof n === "string" && !isUnknown(n) ? canonicalHeaderName(n) : n)) : names,
    );
    return { ...raw, customHeaders, ...(raw["plaintextHeaderNames"] !== undefined ? { plaintextHeaderNames } : {}) };
  }),
  validateResource: validateKinds(["webhooks:Endpoint"], (inputs, _ctx, report) => {
    const headers = inputs.customHeaders;
    if (!isRecord(headers)) return;
    // Sorted, as the engine sends map keys: the same messages in the same order whatever the transport.
    const names = Object.keys(headers).sort();
    const clashes = caseClashes(names);
    for (const group of clashes) {
      report(
        `customHeaders names ${group.map((n) => JSON.stringify(n)).join(" and ")} differ only in case; header names are case-insensitive, so keep one of them.`,
      );
    }
    const clashing = new Set(clashes.flat());
    for (const name of names) {
      const canonical = canonicalHeaderName(name);
      if (canonical !== name && !clashing.has(name)) {
        report(`customHeaders name ${JSON.stringify(name)} is not in canonical case; write it as ${JSON.stringify(canonical)}.`);
      }
    }
  }),
};
