// The generated class files: each class and every type it names.
export * from "./quota-request";
export * from "./quota-limits";
export { getQuota, getQuotaUsage, getQuotas, getVms, type GetVmsArgs, type QuotaEntry, type QuotaInfo, type QuotaScopeArgs, type QuotaUsageInfo, type VmInfo } from "./functions";
