/**
 * Secrets out of every policy message, in one place: `validateKinds` and `stackView`
 * hand policies a `report` that hides them, so no policy (ours or one a user writes
 * with this library) can print one by quoting an input.
 *
 * @pulumi/policy gives validations their properties with secrets revealed and no mark
 * of which were secret, so the pack learns it as the provider does: the fields that are
 * always secret (signing secrets, custom header values; the provider's `secret: true`
 * fields, kept equal by test/policy/redact.test.ts) and the inputs the program marked
 * secret (the SDK's `__secretInputs`, names only). The text rules are the provider's
 * (provider/engine/secret-text.ts): each string of 6 characters or more, as written,
 * JSON-escaped, URL-encoded, and a URL's query values and password.
 */
import type { ReportViolation } from "@pulumi/policy";
import { SECRET_INPUTS_KEY } from "../../provider/engine/internal-keys";
import { redact, textsRevealing } from "../../provider/engine/secret-text";
import type { ResourceKind } from "../../sdk/tokens";
import { isRecord } from "./props";


/** Properties that are secret whatever the program passed: the provider's `secret: true` fields. */
export const ALWAYS_SECRET: Readonly<Partial<Record<ResourceKind, readonly string[]>>> = {
  "webhooks:Endpoint": ["secret", "customHeaders", "signingSecret"],
  "webhooks:Source": ["secret", "generatedSecret"],
};

/** The values of `props` (plain, secrets revealed) that are secret for a resource of `kind`. */
export function secretValuesOf(kind: ResourceKind, props: unknown): unknown[] {
  if (!isRecord(props)) return [];
  const listed = props[SECRET_INPUTS_KEY];
  const names = new Set([...(ALWAYS_SECRET[kind] ?? []), ...(Array.isArray(listed) ? listed.filter((n): n is string => typeof n === "string") : [])]);
  return [...names].map((name) => props[name]);
}

/** `report` with every text that would reveal one of `secretValues` replaced by `[secret]`. */
export function redactingReport(report: ReportViolation, secretValues: readonly unknown[]): ReportViolation {
  const secrets = textsRevealing(secretValues);
  if (secrets.length === 0) return report;
  return (message, urn) => report(redact(message, secrets), urn);
}
