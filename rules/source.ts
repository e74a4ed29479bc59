/**
 * Ingest sources (spec document 2, "Source" and ingest rule 6; design/api-assumptions.md).
 * Pure rules shared by the emulator and the provider's preview checks.
 */
import { isIP } from "node:net";
import { nonPublicHost } from "./addresses";
import { textViolations } from "./text";
import type { RuleViolation } from "./types";

export const SOURCE_PROVIDERS = ["payments", "codehost", "broker", "generic"] as const;
export type SourceProvider = (typeof SOURCE_PROVIDERS)[number];

export const EVENT_TYPE_SOURCES = ["provider", "header", "path"] as const;
export const BROKER_QUEUE_KINDS = ["transient", "durable", "quorum"] as const;

/** A `broker` source needs all of these (422 `webhooks.broker_fields_required`, one entry per missing field). */
export const BROKER_REQUIRED_FIELDS = ["broker_identifier", "broker_host", "broker_user", "broker_exchange", "broker_topic"] as const;

/** Every field whose presence in a create or PATCH of a broker source needs the `broker_sources` feature. */
export const BROKER_FIELDS = [...BROKER_REQUIRED_FIELDS, "broker_vhost", "broker_port", "broker_queues"] as const;

/** The free-text fields of a source: one line each. */
export const SOURCE_TEXT_FIELDS = ["name", "event_type_key", "event_type_prefix", "default_event_type", "broker_identifier", "broker_host", "broker_vhost", "broker_user", "broker_exchange", "broker_topic"] as const;

export const BROKER_PORT_RANGE = { min: 1, max: 65535 } as const;
/** AMQP's port, used when `broker_port` is not set (also in `broker_not_allowed`'s `host`). */
export const DEFAULT_BROKER_PORT = 5672;

/**
 * Providers whose secret comes from elsewhere (the provider's signing secret, the
 * broker's password): required on create, and required by `rotate-secret`
 * (422 `provider_secret_required`). A `generic` source's secret is generated when absent.
 */
export function rotateNeedsSecret(provider: string): boolean {
  return provider === "payments" || provider === "codehost" || provider === "broker";
}

const blank = (v: unknown) => v === undefined || v === null || v === "";

/**
 * The rule violations of a source body. Pass the full intended source (for a PATCH:
 * the current source with the change applied, `provider` included), so that
 * `broker_fields_required` holds after every change. With `creating`, a
 * provider-supplied secret is required (entry type `missing` on `secret`, as for any
 * required field; an empty string is `string_too_short`).
 */
export function sourceViolations(body: Record<string, unknown>, { creating }: { creating: boolean }): RuleViolation[] {
  const out: RuleViolation[] = textViolations(body, { singleLine: SOURCE_TEXT_FIELDS });
  if (body.provider === "broker") {
    for (const field of BROKER_REQUIRED_FIELDS) {
      if (blank(body[field])) out.push({ path: [field], type: "webhooks.broker_fields_required", msg: `A broker source needs ${BROKER_REQUIRED_FIELDS.join(", ")}; ${field} is missing.` });
    }
  }
  const port = body.broker_port;
  if (typeof port === "number") {
    if (port < BROKER_PORT_RANGE.min) out.push({ path: ["broker_port"], type: "greater_than_equal", msg: `Input should be greater than or equal to ${BROKER_PORT_RANGE.min}`, params: { limit: BROKER_PORT_RANGE.min } });
    if (port > BROKER_PORT_RANGE.max) out.push({ path: ["broker_port"], type: "less_than_equal", msg: `Input should be less than or equal to ${BROKER_PORT_RANGE.max}`, params: { limit: BROKER_PORT_RANGE.max } });
  }
  const queues = body.broker_queues;
  if (!blank(queues) && !(BROKER_QUEUE_KINDS as readonly unknown[]).includes(queues)) {
    out.push({ path: ["broker_queues"], type: "enum", msg: `Input should be ${BROKER_QUEUE_KINDS.map((k) => `'${k}'`).join(", ")}` });
  }
  if ((body.event_type_source === "header" || body.event_type_source === "path") && blank(body.event_type_key)) {
    out.push({ path: ["event_type_key"], type: "missing", msg: `Field required when event_type_source is ${body.event_type_source}` });
  }
  if (creating && typeof body.provider === "string") {
    if (body.secret === "") out.push({ path: ["secret"], type: "string_too_short", msg: "String should have at least 1 character", params: { count: 1 } });
    else if (rotateNeedsSecret(body.provider) && blank(body.secret)) {
      out.push({ path: ["secret"], type: "missing", msg: `Field required: a ${body.provider} source needs the ${body.provider === "broker" ? "broker's password" : "provider's signing secret"}` });
    }
  }
  return out;
}

/**
 * Whether the API refuses to connect to this broker host (422 `broker_not_allowed`):
 * a non-public host by `rules/addresses.ts`, decided from the host as written.
 */
export function brokerHostNotAllowed(host: string): boolean {
  return nonPublicHost(host) !== undefined;
}

/** `host:port` as `broker_not_allowed` reports it (IPv6 in brackets). */
export function brokerHostPort(host: string, port: number | null | undefined): string {
  const h = isIP(host) === 6 ? `[${host}]` : host;
  return `${h}:${port ?? DEFAULT_BROKER_PORT}`;
}
