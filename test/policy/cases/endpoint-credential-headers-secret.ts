import { endpointCredentialHeadersSecret } from "../../../policy/policies/endpoint-credential-headers-secret";
import { UNKNOWN_ARRAY, secret } from "../wire";
import { inputs, type PolicyCases } from "./types";

const plaintext = (name: string) =>
  `customHeaders[${JSON.stringify(name)}] looks like a credential but its value is a plain string in the program; ` +
  `pass it as a secret (pulumi.secret(...) or config.requireSecret(...)) so it is never kept in plain text.`;

const url = "https://hooks.example.com/svc";

export const cases: PolicyCases = {
  policy: endpointCredentialHeadersSecret,
  resource: [
    {
      title: "credential headers given as secrets pass",
      kind: "webhooks:Endpoint",
      props: inputs({
        url,
        customHeaders: secret({ Authorization: "Bearer s3cr3t-value", "X-Team": "payments" }),
        plaintextHeaderNames: ["X-Team"],
      }),
      violations: [],
    },
    { title: "no custom headers pass", kind: "webhooks:Endpoint", props: inputs({ url }), violations: [] },
    {
      title: "plaintext Authorization, API key, token and secret headers are reported, values never shown",
      kind: "webhooks:Endpoint",
      props: inputs({
        url,
        customHeaders: secret({
          authorization: "Bearer plain-bearer-123",
          "X-Api-Key": "plain-api-key-456",
          "X-Session-Token": "plain-token-789",
          "X-Client-Secret": "plain-client-secret",
          "X-Team": "payments",
        }),
        plaintextHeaderNames: ["authorization", "X-Api-Key", "X-Session-Token", "X-Client-Secret", "X-Team"],
      }),
      violations: [plaintext("authorization"), plaintext("X-Api-Key"), plaintext("X-Session-Token"), plaintext("X-Client-Secret")],
    },
    {
      title: "config adds name fragments",
      kind: "webhooks:Endpoint",
      props: inputs({ url, customHeaders: secret({ "X-Signature": "plain-sig" }), plaintextHeaderNames: ["X-Signature"] }),
      config: { credentialNameFragments: ["signature"] },
      violations: [plaintext("X-Signature")],
    },
    {
      title: "config replaces the fragments",
      kind: "webhooks:Endpoint",
      props: inputs({ url, customHeaders: secret({ "X-Api-Key": "plain" }), plaintextHeaderNames: ["X-Api-Key"] }),
      config: { credentialNameFragments: ["authorization"] },
      violations: [],
    },
    {
      title: "plaintext names unknown during preview: silent",
      kind: "webhooks:Endpoint",
      props: inputs({ url, plaintextHeaderNames: UNKNOWN_ARRAY }),
      violations: [],
    },
  ],
};
