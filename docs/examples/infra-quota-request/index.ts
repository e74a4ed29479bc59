import * as svc from "pulumi-svc";

const more = new svc.infra.QuotaRequest("more-vms", {
  service: "compute",
  region: "us-east-1",
  limits: { vms: 80 },
  justification: "Black Friday load test needs 30 more build agents for two weeks.",
});

export const state = more.state;
