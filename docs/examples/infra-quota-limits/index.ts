import * as svc from "pulumi-svc";

// For admins (a key with iam:write): the project's limits; delete writes back what the declared names were before.
const limits = new svc.infra.QuotaLimits("network-limits", { service: "network", limits: { floating_ips: 40 } });

export const before = limits.limitsBefore;
