/**
 * Turning the shared rules' violations (rules/types.ts) into the API's 422, and
 * reading a JSON body that must be an object. For every product module.
 */
import { validationError } from "./errors";
import type { RuleViolation } from "../../rules/types";

/** Throw a 422 `validation_error` with the violations as body entries (at most 20, as the spec caps them). */
export function throwViolations(violations: RuleViolation[]): void {
  if (violations.length === 0) return;
  throw validationError(violations.map((v) => ({ loc: ["body", ...v.path], type: v.type, msg: v.msg, ...(v.params ? { params: v.params } : {}) })));
}

/** A request body that must be a JSON object; an absent body is `{}`. Anything else is a 422 `dict_type`. */
export function objectBody(body: unknown): Record<string, unknown> {
  if (body === undefined) return {};
  if (body === null || typeof body !== "object" || Array.isArray(body)) throw validationError([{ loc: ["body"], type: "dict_type", msg: "Input should be a valid dictionary" }]);
  return body as Record<string, unknown>;
}
