/**
 * The shared error contract of spec document 1: every refusal is
 * `{"error": {code, message, request_id, details?}}` with the status of its code.
 * Handlers throw ApiError; the app's error handler renders it.
 */

export type Details = Record<string, unknown>;

/** One entry of a 422 `validation_error` (`details.errors`). */
export interface ValidationEntry {
  loc: (string | number)[];
  type: string;
  msg: string;
  params?: Record<string, unknown>;
}

/** The spec caps entries from the API's own rules (and invalid_payload entries) at 20. */
export const MAX_ERROR_ENTRIES = 20;

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details?: Details,
    /** Extra response headers, e.g. Retry-After. */
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

export const unauthorized = (reason: string, message = "Authentication required.") =>
  new ApiError(401, "unauthorized", message, { reason });

export const invalidCredential = (status: 401 | 403) =>
  new ApiError(status, "invalid_credential", "The credential was not recognised; replace it.");

export const forbidden = (reason: string, message: string, extra: Details = {}) =>
  new ApiError(403, "forbidden", message, { reason, ...extra });

/** 404 for a missing resource: `details.reason` is the resource kind, `details.id` the requested id. */
export const notFound = (kind: string, id?: string) =>
  new ApiError(404, "not_found", `No ${kind.replace(/_/g, " ")} ${id ?? ""}`.trim() + ".", id === undefined ? { reason: kind } : { reason: kind, id });

/** 404 for a path that does not exist: no details at all. */
export const unknownPath = () => new ApiError(404, "not_found", "No such path.");

export const methodNotAllowed = (method: string) =>
  new ApiError(405, "method_not_allowed", `Method ${method} is not allowed on this path.`);

export const conflict = (reason: string, message: string, extra: Details = {}) =>
  new ApiError(409, "conflict", message, { reason, ...extra });

export const badRequest = (message: string, details?: Details) => new ApiError(400, "bad_request", message, details);

export const payloadTooLarge = (limit: number, size?: number) =>
  new ApiError(413, "payload_too_large", `Body is larger than ${limit} bytes.`, size === undefined ? { limit } : { limit, size });

export const validationError = (entries: ValidationEntry[], message = "Request failed validation.") =>
  new ApiError(422, "validation_error", message, { errors: entries.slice(0, MAX_ERROR_ENTRIES) });

/** A single-entry validation error; the common case for the API's own rules. */
export const invalidField = (loc: (string | number)[], type: string, msg: string, params?: Record<string, unknown>) =>
  validationError([params ? { loc, type, msg, params } : { loc, type, msg }]);

export const quotaExceeded = (reason: "allocation" | "period", metric: string, limit: number, extra: Details = {}) =>
  new ApiError(402, "quota_exceeded", `Plan limit reached for ${metric} (${limit}).`, { reason, metric, limit, ...extra });

export const notEntitled = (feature: string) =>
  new ApiError(402, "not_entitled", `The workspace's plan does not include ${feature}.`, { feature });

export const rateLimited = (retryAfterSeconds: number, extra: Details = {}) =>
  new ApiError(429, "rate_limited", `Too many requests; retry after ${retryAfterSeconds} s.`, { retry_after: retryAfterSeconds, ...extra }, {
    "retry-after": String(retryAfterSeconds),
  });

/** Render the error body for a request id. */
export function errorBody(err: ApiError, requestId: string) {
  const error: Record<string, unknown> = { code: err.code, message: err.message, request_id: requestId };
  if (err.details !== undefined) error.details = err.details;
  return { error };
}
