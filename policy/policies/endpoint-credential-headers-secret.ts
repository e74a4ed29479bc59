/**
 * A custom header whose name says it carries a credential (Authorization, *token*,
 * *key*, *secret*) must be given as a secret. The SDK stores every header value as
 * a secret in state regardless, so what this catches is the credential sitting in
 * plain text in the program or its stack config. The SDK records which headers were
 * given as plain strings in `plaintextHeaderNames` (names only), which is all this
 * policy reads: it never looks at a header value.
 */
import type { ResourceValidationPolicy } from "@pulumi/policy";
import { configSchema, readConfig } from "../lib/config";
import { DEFAULT_CREDENTIAL_NAME_FRAGMENTS, looksLikeCredential } from "../lib/headers";
import { validateKinds } from "../lib/match";

export interface CredentialHeadersConfig {
  credentialNameFragments: string[];
}

const schema = configSchema<CredentialHeadersConfig>({
  credentialNameFragments: {
    type: "array",
    items: { type: "string", minLength: 1 },
    default: [...DEFAULT_CREDENTIAL_NAME_FRAGMENTS],
    description: "A header whose name contains one of these (case-insensitive) carries a credential.",
  },
});

export const endpointCredentialHeadersSecret: ResourceValidationPolicy = {
  name: "endpoint-credential-headers-secret",
  description: "Custom headers that carry credentials are given as secrets, never as plain strings.",
  enforcementLevel: "mandatory",
  remediationSteps:
    "Pass the header's value as a secret: pulumi.secret(value), or config.requireSecret(...) with the value set by `pulumi config set --secret`.",
  configSchema: schema,
  validateResource: validateKinds(["webhooks:Endpoint"], (inputs, { args }, report) => {
    const names = inputs.plaintextHeaderNames;
    if (!Array.isArray(names)) return;
    const { credentialNameFragments } = readConfig(schema, args);
    for (const name of names) {
      if (typeof name !== "string" || !looksLikeCredential(name, credentialNameFragments)) continue;
      report(
        `customHeaders[${JSON.stringify(name)}] looks like a credential but its value is a plain string in the program; ` +
          `pass it as a secret (pulumi.secret(...) or config.requireSecret(...)) so it is never kept in plain text.`,
      );
    }
  }),
};
