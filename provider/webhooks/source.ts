/**
 * An ingest source (spec document 2, "Source" and "Sources, ingest, captures"):
 * every field of the table; `provider` replaces; a `secret` change is one
 * `rotate-secret` call with the new value (the previous secret keeps verifying for
 * 24 hours); everything else is one PATCH. Preview applies the shared rules of
 * rules/source.ts and the `broker_sources` plan gate (plan read once per process).
 */
import { z } from "zod";
import { brokerHostNotAllowed, brokerHostPort, EVENT_TYPE_SOURCES, SOURCE_PROVIDERS, sourceViolations } from "../../rules/source";
import type { RuleViolation } from "../../rules/types";
import { jsonEqual } from "../engine/json";
import type { Props, ResourceDefinition } from "../engine/fields";
import { writtenUnseen } from "../engine/values";
import { containsUnknown } from "../engine/unknown";
import { planHasFeature, readWorkspace } from "./plan-ceilings";

const text = z.string().max(255);

/** camelCase names of the broker fields, whose presence in a write needs `broker_sources`. */
const BROKER_INPUTS = ["brokerIdentifier", "brokerHost", "brokerVhost", "brokerUser", "brokerExchange", "brokerTopic", "brokerPort", "brokerQueues"] as const;

/** The shared rules, with the names preview reports: a missing provider secret, a broker host the API will not use. */
export function sourceRules(body: Props): RuleViolation[] {
  const out = sourceViolations(body, { creating: true }).map((v) =>
    v.path[0] === "secret" && v.type === "missing"
      ? { ...v, type: "provider_secret_required", msg: `${v.msg} (the API refuses the create, and every rotate-secret without it)`, params: { provider: body.provider } }
      : v,
  );
  const host = body.broker_host;
  if (body.provider === "broker" && typeof host === "string" && host !== "" && brokerHostNotAllowed(host)) {
    const port = typeof body.broker_port === "number" ? body.broker_port : undefined;
    out.push({ path: ["broker_host"], type: "broker_not_allowed", msg: "The API will not connect to a broker at a non-public address.", params: { host: brokerHostPort(host, port) } });
  }
  return out;
}

/** Does this write need `broker_sources`? A create of a broker source; a change of a broker field or enabling one. */
function needsBrokerFeature(inputs: Props, olds: Props): boolean {
  if (inputs.provider !== "broker") return false;
  if (olds.provider !== "broker") return true; // a create (or a replacement)
  if (inputs.status === "enabled" && olds.status !== "enabled") return true;
  return BROKER_INPUTS.some((f) => !jsonEqual(inputs[f], olds[f]));
}

export const sourceDefinition: ResourceDefinition = {
  kind: "webhooks:Source",
  product: "webhooks",
  noun: "source",
  paths: { create: "/v1/sources", item: (id) => `/v1/sources/${encodeURIComponent(id)}` },
  adoptHint:
    "List the sources (svc.webhooks.getSources() or GET /v1/sources) and, if it was created, set `adoptId: \"<its id>\"` on this resource: the next `pulumi up` adopts it instead of creating another.",
  fields: {
    provider: { mode: "createOnly", api: "provider", input: z.enum(SOURCE_PROVIDERS) },
    name: { mode: "patch", api: "name", input: text },
    // A source always belongs to a project: omitted, the workspace's default project.
    projectId: { mode: "patch", api: "project_id", input: z.string().min(1), whenOmitted: "unmanaged" },
    eventTypeSource: { mode: "patch", api: "event_type_source", input: z.enum(EVENT_TYPE_SOURCES), default: "provider" },
    eventTypeKey: { mode: "patch", api: "event_type_key", input: text },
    eventTypePrefix: { mode: "patch", api: "event_type_prefix", input: text },
    defaultEventType: { mode: "patch", api: "default_event_type", input: text },
    captureEnabled: { mode: "patch", api: "capture_enabled", input: z.boolean(), default: false },
    // Given on create; a change is one rotate-secret with the new value (no replacement).
    secret: {
      mode: "action",
      api: "secret",
      input: z.string().min(1).max(1024),
      writeOnly: true,
      secret: true,
      onCreate: true,
      action: { path: "/rotate-secret", safeToRepeat: false, body: (value) => (value === null || value === undefined ? {} : { secret: value }) },
    },
    brokerIdentifier: { mode: "patch", api: "broker_identifier", input: text },
    brokerHost: { mode: "patch", api: "broker_host", input: text },
    brokerVhost: { mode: "patch", api: "broker_vhost", input: text },
    brokerUser: { mode: "patch", api: "broker_user", input: text },
    brokerExchange: { mode: "patch", api: "broker_exchange", input: text },
    brokerTopic: { mode: "patch", api: "broker_topic", input: text },
    // Range and queue kinds are the shared rules' (rules/source.ts), with the API's entry types.
    brokerPort: { mode: "patch", api: "broker_port", input: z.number().int() },
    brokerQueues: { mode: "patch", api: "broker_queues", input: z.string() },
    status: { mode: "patch", api: "status", input: z.enum(["enabled", "disabled"]), whenOmitted: "unmanaged", onCreate: false },
    adoptId: { mode: "local", input: z.string().min(1) },
    profile: { mode: "createOnly", input: z.string().min(1) },
    ingestUrl: { mode: "output", api: "ingest_url" },
    createdAt: { mode: "output", api: "created_at" },
    updatedAt: { mode: "output", api: "updated_at" },
    generatedSecret: { mode: "output", secret: true },
  },
  rules: sourceRules,
  hooks: {
    async checkRemote(inputs, ctx, olds) {
      if (containsUnknown(inputs.provider) || !needsBrokerFeature(inputs, olds)) return [];
      const ws = await readWorkspace(ctx);
      if (!ws || planHasFeature(ws.plan, "broker_sources") !== false) return [];
      return [
        {
          property: "provider",
          reason: `The workspace's plan "${ws.plan}" does not include broker_sources (402 not_entitled, feature broker_sources): creating a broker source, enabling one or changing its broker fields is refused. Upgrade the plan to Pro or above, or use another provider.`,
        },
      ];
    },

    // PATCH never changes the secret (spec), rotate-secret changes nothing else: a write the state did
    // not make that changed nothing shown may have rotated it, so the declared one is no longer known to apply.
    refreshWriteOnly(field, remote, lastApplied, previous) {
      if (field !== "secret" || lastApplied === null) return lastApplied;
      return writtenUnseen(sourceDefinition, remote, previous) ? null : lastApplied;
    },

    // A generic source's generated secret is returned by create and a rotation without a value, never on reads.
    extraOutputs(response, previous) {
      if (typeof response.secret === "string") return { generatedSecret: response.secret };
      return { generatedSecret: typeof previous.secret === "string" ? null : (previous.generatedSecret ?? null) };
    },

    explainError(err, _operation, inputs) {
      const d = err.details;
      if (err.code === "not_entitled" && d.feature === "broker_sources") {
        return `The workspace's plan does not include broker_sources: a broker source cannot be created, enabled, or have its broker fields changed (renaming or disabling stays allowed). Upgrade the plan to Pro or above.`;
      }
      if (err.code === "provider_secret_required") {
        return `A ${String(d.provider ?? inputs?.provider)} source's secret comes from the ${d.provider === "broker" ? "broker (its password)" : "provider (its signing secret)"}: set \`secret\` to the new value to rotate it.`;
      }
      if (err.code === "broker_not_allowed") {
        return `The API will not connect to the broker at ${String(d.host)}: it is not a public address. Set brokerHost to the broker's public host name.`;
      }
      return undefined;
    },
  },
};
