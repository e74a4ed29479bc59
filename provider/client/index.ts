export { SvcClient, ListTooLongError, sharedDispatcher, closeSharedDispatcher, TIMEOUTS, type RequestOptions, type ClientOptions, type HttpMethod, type Response } from "./transport";
export { SvcApiError, SvcConnectionError, SvcUnknownOutcomeError, isApiError, describeDetails, type ApiErrorBody } from "./errors";
export { decideRetry, retryAfterMs, DEFAULT_RETRY_POLICY, type RetryPolicy, type AttemptOutcome } from "./retry";
export { clientStats, resetClientStats, type ClientStats, type UnknownOutcome, type ReconcileOutcome } from "./stats";
