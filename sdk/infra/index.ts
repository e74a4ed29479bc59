export { QuotaRequest, type QuotaRequestArgs, type QuotaRequestGetState, type QuotaRequestState } from "./quota-request";
export { QuotaLimits, type QuotaLimitsArgs } from "./quota-limits";
export { getQuota, getQuotaUsage, getQuotas, getVms, type GetVmsArgs, type QuotaEntry, type QuotaInfo, type QuotaScopeArgs, type QuotaUsageInfo, type VmInfo } from "./functions";
