import { sourceCaptureInProduction } from "../../../policy/policies/source-capture-in-production";
import { secret } from "../wire";
import { inputs, type PolicyCases } from "./types";

const off = (stack: string) => `captureEnabled is not true on production stack "${stack}" (config productionStacks); set captureEnabled: true so received requests are kept.`;
const source = { provider: "payments", name: "pay", secret: secret("whsec_x") };

export const cases: PolicyCases = {
  policy: sourceCaptureInProduction,
  resource: [
    { title: "capture on prod passes", kind: "webhooks:Source", stack: "prod", props: inputs({ ...source, captureEnabled: true }), violations: [] },
    { title: "no capture on dev passes", kind: "webhooks:Source", stack: "dev", props: inputs(source), violations: [] },
    { title: "capture missing on prod", kind: "webhooks:Source", stack: "prod", props: inputs(source), violations: [off("prod")] },
    { title: "capture off on production", kind: "webhooks:Source", stack: "production", props: inputs({ ...source, captureEnabled: false }), violations: [off("production")] },
    { title: "config names other production stacks", kind: "webhooks:Source", stack: "live", config: { productionStacks: ["live"] }, props: inputs(source), violations: [off("live")] },
  ],
};
