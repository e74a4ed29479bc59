/**
 * An operational endpoint (spec document 2, "Operational endpoints and workspace"):
 * a subscription to a project's operational events (`delivery.dead`, ...). There is
 * no update route, so any change replaces it. Preview checks the URL and the type
 * names with the shared rules (rules/operational.ts).
 */
import { z } from "zod";
import { OPERATIONAL_EVENT_TYPES, operationalEndpointViolations } from "../../rules/operational";
import { defineResource } from "../engine/fields";
import { otherProjectWithConfinedKey } from "./confined-key";
import { RESOURCE_NAME_FIELD } from "../engine/fields";

/** The API drops duplicate names and keeps no meaningful order: compare as sets. */
const sameNames = (a: unknown, b: unknown) =>
  Array.isArray(a) && Array.isArray(b) ? JSON.stringify([...new Set(a.map(String))].sort()) === JSON.stringify([...new Set(b.map(String))].sort()) : false;

export const operationalEndpointDefinition = defineResource({
  kind: "webhooks:OperationalEndpoint",
  description: "`svc.webhooks.OperationalEndpoint`: receives a project's operational events (`delivery.dead`, `endpoint.auto_disabled`, ...), plus workspace-wide ones.",
  product: "webhooks",
  noun: "operational endpoint",
  changeNote: "The API has no update.",
  paths: { create: "/v1/operational-endpoints", item: (id) => `/v1/operational-endpoints/${encodeURIComponent(id)}` },
  adoptHint:
    "List the operational endpoints (GET /v1/operational-endpoints) and, if it was created, set `adoptId: \"<its id>\"` on this resource: the next `pulumi up` adopts it instead of creating another.",
  ownerField: "description",
  fields: {
    url: { mode: "createOnly", api: "url", input: z.string().min(1).max(2048), required: true, description: "An absolute `https://` URL." },
    eventTypes: { mode: "createOnly", api: "event_types", input: z.array(z.string().min(1)).min(1).max(50), equal: sameNames, type: z.array(z.enum(OPERATIONAL_EVENT_TYPES).meta({ title: "OperationalEventType", description: "The operational event type names the service knows." })), required: true, description: "1 to 50 operational type names (an unknown name fails the preview); order and repeats do not matter." },
    // Omitted: the workspace's default project.
    projectId: { mode: "createOnly", api: "project_id", input: z.string().min(1), whenOmitted: "unmanaged", outputType: z.string().nullable(), description: "The project whose operational events it receives. Omit for the workspace's default project." },
    description: { mode: "createOnly", api: "description", input: z.string().max(1024), description: "Free text, at most 1024 characters." },
    adoptId: { mode: "local", input: z.string().min(1), description: "Id of an existing operational endpoint to take over instead of creating one (its fields must match)." },
    resourceName: RESOURCE_NAME_FIELD,
    profile: { mode: "createOnly", input: z.string().min(1), description: "Connection profile (see `EndpointArgs.profile`)." },
    createdAt: { mode: "output", api: "created_at", type: z.string(), description: "ISO 8601 UTC." },
  },
  rules: operationalEndpointViolations,
  hooks: {
    checkRemote: (inputs, ctx) => otherProjectWithConfinedKey(ctx, inputs.projectId, "operational endpoint"),
  },
});
