import { sourceSigningSecret } from "../../../policy/policies/source-signing-secret";
import { UNKNOWN_STRING, secret } from "../wire";
import { inputs, type PolicyCases } from "./types";

const missing = (provider: string) =>
  `secret is not set; a ${provider} source needs the provider's signing secret to verify ingested requests (config providersRequiringSecret).`;

export const cases: PolicyCases = {
  policy: sourceSigningSecret,
  resource: [
    { title: "payments source with a secret passes", kind: "webhooks:Source", props: inputs({ provider: "payments", name: "stripe-like", secret: secret("whsec_live_abc") }), violations: [] },
    { title: "generic source without a secret passes", kind: "webhooks:Source", props: inputs({ provider: "generic", name: "generic" }), violations: [] },
    { title: "payments source without a secret", kind: "webhooks:Source", props: inputs({ provider: "payments", name: "pay" }), violations: [missing("payments")] },
    { title: "codehost source with an empty secret", kind: "webhooks:Source", props: inputs({ provider: "codehost", name: "git", secret: secret("") }), violations: [missing("codehost")] },
    {
      title: "config adds broker",
      kind: "webhooks:Source",
      config: { providersRequiringSecret: ["payments", "codehost", "broker"] },
      props: inputs({ provider: "broker", name: "mq" }),
      violations: [missing("broker")],
    },
    { title: "secret unknown during preview: silent", kind: "webhooks:Source", props: inputs({ provider: "payments", name: "pay", secret: UNKNOWN_STRING }), violations: [] },
  ],
};
