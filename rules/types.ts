/**
 * The service's documented limits, as pure functions shared by the emulator (which
 * enforces them) and the provider's `check` (which predicts them at preview).
 * One place per rule, so the two can never disagree.
 *
 * A rule reports violations with the API's own names: `path` is the location under
 * the request body in API (snake_case) field names, `type` the spec's entry type.
 * The emulator turns them into `validation_error` entries (loc = ["body", ...path]);
 * the provider maps the path to its camelCase property names.
 */
export interface RuleViolation {
  path: (string | number)[];
  type: string;
  msg: string;
  params?: Record<string, unknown>;
}
