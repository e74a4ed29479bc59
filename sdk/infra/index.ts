export * from "./resources";
export { getQuota, getQuotaUsage, getQuotas, getVms, type GetVmsArgs, type QuotaEntry, type QuotaInfo, type QuotaScopeArgs, type QuotaUsageInfo, type VmInfo } from "./functions";
