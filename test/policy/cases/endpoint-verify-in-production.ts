import { endpointVerifyInProduction } from "../../../policy/policies/endpoint-verify-in-production";
import { UNKNOWN_STRING } from "../wire";
import { inputs, type PolicyCases } from "./types";

const url = "https://hooks.example.com/svc";
const mustVerify = (stack: string) => `verify must be true on production stack "${stack}" (config productionStacks); set verify: true.`;

export const cases: PolicyCases = {
  policy: endpointVerifyInProduction,
  resource: [
    { title: "verified endpoint on prod passes", kind: "webhooks:Endpoint", stack: "prod", props: inputs({ url, verify: true }), violations: [] },
    { title: "unverified endpoint on dev passes", kind: "webhooks:Endpoint", stack: "dev", props: inputs({ url }), violations: [] },
    { title: "verify missing on prod", kind: "webhooks:Endpoint", stack: "prod", props: inputs({ url }), violations: [mustVerify("prod")] },
    { title: "verify false on prod-eu (prod-*)", kind: "webhooks:Endpoint", stack: "prod-eu", props: inputs({ url, verify: false }), violations: [mustVerify("prod-eu")] },
    { title: "production counts", kind: "webhooks:Endpoint", stack: "production", props: inputs({ url, verify: false }), violations: [mustVerify("production")] },
    { title: "productive is not production", kind: "webhooks:Endpoint", stack: "productive", props: inputs({ url }), violations: [] },
    {
      title: "config names other production stacks",
      kind: "webhooks:Endpoint",
      stack: "live",
      config: { productionStacks: ["live", "live-*"] },
      props: inputs({ url }),
      violations: [mustVerify("live")],
    },
    {
      title: "config that drops prod from production",
      kind: "webhooks:Endpoint",
      stack: "prod",
      config: { productionStacks: ["live"] },
      props: inputs({ url }),
      violations: [],
    },
    { title: "verify unknown during preview: silent", kind: "webhooks:Endpoint", stack: "prod", props: inputs({ url, verify: UNKNOWN_STRING }), violations: [] },
  ],
};
