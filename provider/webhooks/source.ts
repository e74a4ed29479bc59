/**
 * An ingest source (spec document 2, "Source" and "Sources, ingest, captures"):
 * every field of the table; `provider` replaces; a `secret` change is one
 * `rotate-secret` call with the new value (the previous secret keeps verifying for
 * 24 hours); everything else is one PATCH. Preview applies the shared rules of
 * rules/source.ts and the `broker_sources` plan gate (plan read once per operation).
 */
import { z } from "zod";
import { BROKER_QUEUE_KINDS, brokerHostNotAllowed, brokerHostPort, EVENT_TYPE_SOURCES, SOURCE_PROVIDERS, sourceViolations } from "../../rules/source";
import type { RuleViolation } from "../../rules/types";
import { jsonEqual } from "../engine/json";
import { defineResource, type Fields, type InputsOf, type Props } from "../engine/fields";
import { writtenUnseen } from "../engine/values";
import { containsUnknown } from "../engine/unknown";
import { otherProjectWithConfinedKey } from "./confined-key";
import { planHasFeature, readWorkspace } from "./plan-ceilings";
import { RESOURCE_NAME_FIELD } from "../engine/fields";

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
function needsBrokerFeature(inputs: SourceInputs, olds: SourceInputs): boolean {
  if (inputs.provider !== "broker") return false;
  if (olds.provider !== "broker") return true; // a create (or a replacement)
  if (inputs.status === "enabled" && olds.status !== "enabled") return true;
  return BROKER_INPUTS.some((f) => !jsonEqual(inputs[f], olds[f]));
}

const sourceFields = {
  provider: { mode: "createOnly", api: "provider", input: z.enum(SOURCE_PROVIDERS), required: true, description: "Who sends the webhooks. Changing it REPLACES the source." },
  name: { mode: "patch", api: "name", input: text, description: "A name for people to recognise the source by. Omit for none." },
  // A source always belongs to a project: omitted, the workspace's default project.
  projectId: { mode: "patch", api: "project_id", input: z.string().min(1), whenOmitted: "unmanaged", description: "The project the source belongs to. Omit for the workspace's default project. Changing it moves the source (one PATCH)." },
  eventTypeSource: { mode: "patch", api: "event_type_source", input: z.enum(EVENT_TYPE_SOURCES), default: "provider", description: "Where the event type is read: `provider` (default), a `header`, or a `path` into the JSON body." },
  eventTypeKey: { mode: "patch", api: "event_type_key", input: text, description: "The header name or body path locating the type; required for `header` and `path`." },
  eventTypePrefix: { mode: "patch", api: "event_type_prefix", input: text, description: "Prefixed to every type read, e.g. `payments.`." },
  defaultEventType: { mode: "patch", api: "default_event_type", input: text, description: "Used when the type cannot be read (otherwise `webhook.received`)." },
  captureEnabled: { mode: "patch", api: "capture_enabled", input: z.boolean(), default: false, description: "Store received requests as captures. Default false." },
  // Given on create; a change is one rotate-secret with the new value (no replacement).
  secret: {
    mode: "action",
    api: "secret",
    input: z.string().min(1).max(1024),
    writeOnly: true,
    secret: true,
    onCreate: true,
    action: { path: "/rotate-secret", safeToRepeat: false, body: (value) => (value === null || value === undefined ? {} : { secret: value }) },
    description: "The provider's signing secret (`payments`, `codehost`) or the broker's password (`broker`): required for those (the preview fails without it). For `generic`, optional: omitted, one is generated and returned once as `generatedSecret`. Changing it calls `rotate-secret` with the new value (no replacement; the previous one keeps verifying for 24 hours). Always stored as a Pulumi secret.",
    outputDescription: "A seal of the secret last applied (`hmac-sha256:...`, keyed by the API key; never the value), or null when the service generated it.",
  },
  brokerIdentifier: { mode: "patch", api: "broker_identifier", input: text, description: "`broker` sources: the broker's identifier. A broker source needs it, `brokerHost`, `brokerUser`, `brokerExchange` and `brokerTopic` (the preview fails without them)." },
  brokerHost: { mode: "patch", api: "broker_host", input: text, description: "A public host name: the API will not connect to private or local addresses." },
  brokerVhost: { mode: "patch", api: "broker_vhost", input: text, description: "`broker` sources: the virtual host on the broker." },
  brokerUser: { mode: "patch", api: "broker_user", input: text, description: "`broker` sources: the user to connect as (its password is `secret`)." },
  brokerExchange: { mode: "patch", api: "broker_exchange", input: text, description: "`broker` sources: the exchange to bind to." },
  brokerTopic: { mode: "patch", api: "broker_topic", input: text, description: "`broker` sources: the topic (routing key) received." },
  // Range and queue kinds are the shared rules' (rules/source.ts), with the API's entry types.
  brokerPort: { mode: "patch", api: "broker_port", input: z.number().int(), description: "1 to 65535 (default 5672 at the service)." },
  brokerQueues: { mode: "patch", api: "broker_queues", input: z.string(), type: z.enum(BROKER_QUEUE_KINDS).meta({ title: "BrokerQueueKind" }), description: "`broker` sources: the kind of queue, `transient`, `durable` or `quorum`." },
  status: { mode: "patch", api: "status", input: z.enum(["enabled", "disabled"]), whenOmitted: "unmanaged", onCreate: false, description: "`enabled` or `disabled` (a disabled source answers 404 on ingest). Omit to leave it to the service." },
  adoptId: { mode: "local", input: z.string().min(1), description: "Id of an existing source to take over instead of creating one (read, then PATCH and rotate-secret as needed)." },
  resourceName: RESOURCE_NAME_FIELD,
  profile: { mode: "createOnly", input: z.string().min(1), description: "Connection profile (see `EndpointArgs.profile`). Changing it REPLACES the source." },
  ingestUrl: { mode: "output", api: "ingest_url", type: z.string(), description: "Where the provider sends its webhooks (`POST /v1/ingest/{id}`)." },
  createdAt: { mode: "output", api: "created_at", type: z.string(), description: "ISO 8601 UTC." },
  updatedAt: { mode: "output", api: "updated_at", type: z.string(), description: "ISO 8601 UTC." },
  generatedSecret: { mode: "output", secret: true, type: z.string().nullable(), description: "A generic source's generated secret, from create or a rotation without a value (secret); null when `secret` is given." },
} satisfies Fields;
type SourceInputs = InputsOf<typeof sourceFields>;

export const sourceDefinition = defineResource({
  kind: "webhooks:Source",
  description: "`svc.webhooks.Source`: an inbound provider webhook ingest source.",
  product: "webhooks",
  noun: "source",
  changeNote: "Outputs `ingestUrl`, `generatedSecret` (generic sources).",
  paths: { create: "/v1/sources", item: (id) => `/v1/sources/${encodeURIComponent(id)}` },
  adoptHint:
    "List the sources (svc.webhooks.getSources() or GET /v1/sources) and, if it was created, set `adoptId: \"<its id>\"` on this resource: the next `pulumi up` adopts it instead of creating another.",
  ownerField: "name",
  fields: sourceFields,
  rules: sourceRules,
  hooks: {
    async checkRemote(inputs, ctx, olds) {
      const confined = await otherProjectWithConfinedKey(ctx, inputs.projectId, "source");
      if (confined.length > 0 || containsUnknown(inputs.provider) || !needsBrokerFeature(inputs, olds)) return confined;
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
    refreshWriteOnly(field, remote, lastApplied, previous): unknown {
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
});
