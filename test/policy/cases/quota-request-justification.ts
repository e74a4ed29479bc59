import { quotaRequestJustification } from "../../../policy/policies/quota-request-justification";
import { UNKNOWN_STRING } from "../wire";
import { inputs, type PolicyCases } from "./types";

const request = { service: "compute", projectId: "proj-1", region: "eu-1", limits: { vcpu: 400 } };

export const cases: PolicyCases = {
  policy: quotaRequestJustification,
  resource: [
    {
      title: "a real justification passes",
      kind: "infra:QuotaRequest",
      props: inputs({ ...request, justification: "Black-friday load test needs 400 vCPU for two weeks." }),
      violations: [],
    },
    {
      title: "too short (whitespace not counted), text never shown",
      kind: "infra:QuotaRequest",
      props: inputs({ ...request, justification: "   need more cpu   " }),
      violations: ["justification has 13 characters; at least 30 are required (config minJustificationLength). Explain what the higher limits are for."],
    },
    {
      title: "missing",
      kind: "infra:QuotaRequest",
      props: inputs(request),
      violations: ["justification has 0 characters; at least 30 are required (config minJustificationLength). Explain what the higher limits are for."],
    },
    { title: "config lowers the minimum", kind: "infra:QuotaRequest", config: { minJustificationLength: 10 }, props: inputs({ ...request, justification: "need more cpu" }), violations: [] },
    {
      title: "config raises the minimum",
      kind: "infra:QuotaRequest",
      config: { minJustificationLength: 100 },
      props: inputs({ ...request, justification: "Black-friday load test needs 400 vCPU for two weeks." }),
      violations: ["justification has 52 characters; at least 100 are required (config minJustificationLength). Explain what the higher limits are for."],
    },
    { title: "justification unknown during preview: silent", kind: "infra:QuotaRequest", props: inputs({ ...request, justification: UNKNOWN_STRING }), violations: [] },
  ],
};
