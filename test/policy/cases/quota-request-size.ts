import { quotaRequestSize } from "../../../policy/policies/quota-request-size";
import { UNKNOWN_STRING } from "../wire";
import { inputs, type PolicyCases } from "./types";

const justification = "Black-friday load test needs more capacity for two weeks.";

export const cases: PolicyCases = {
  policy: quotaRequestSize,
  resource: [
    {
      title: "up to 4 × the default passes",
      kind: "infra:QuotaRequest",
      props: inputs({ service: "compute", region: "eu-1", limits: { vcpu: 800, vms: 100 }, justification }),
      violations: [],
    },
    {
      title: "above 4 × the default, per quota",
      kind: "infra:QuotaRequest",
      props: inputs({ service: "compute", region: "eu-1", limits: { vcpu: 2000, vms: 100, ram_gb: 3201 }, justification }),
      violations: [
        "limits.ram_gb requests 3201, above 4 × the compute default of 800 (3200, config maxMultipleOfDefault).",
        "limits.vcpu requests 2000, above 4 × the compute default of 200 (800, config maxMultipleOfDefault).",
      ],
    },
    {
      title: "config changes the multiple",
      kind: "infra:QuotaRequest",
      config: { maxMultipleOfDefault: 2 },
      props: inputs({ service: "dns", limits: { dns_zones: 120 }, justification }),
      violations: ["limits.dns_zones requests 120, above 2 × the dns default of 50 (100, config maxMultipleOfDefault)."],
    },
    {
      title: "unknown service or quota name: the provider's check reports it",
      kind: "infra:QuotaRequest",
      props: inputs({ service: "gpu", limits: { gpus: 1000 }, justification }),
      violations: [],
    },
    {
      title: "a value unknown during preview: silent",
      kind: "infra:QuotaRequest",
      props: inputs({ service: "compute", limits: { vcpu: UNKNOWN_STRING }, justification }),
      violations: [],
    },
  ],
};
