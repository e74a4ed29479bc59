/**
 * An event type of the catalog (spec document 2, "Event type and policy" and
 * "Event types"). There is no update route: every change replaces it, deleting first
 * when the replacement keeps the name in the same scope (the name is unique there).
 *
 * The id is the scope and the name: `workspace/<name>` or `project/<projectId>/<name>`
 * (`GET|DELETE /v1/event-types/{name}?project_id=` address exactly one scope).
 *
 * Preview judges the schema with the shared `schemaProblem()` (the emulator's own
 * rule) and fails on a name already registered in that scope by someone else, from
 * ONE catalog listing per scope per operation.
 */
import { z } from "zod";
import { canonicalJson, schemaProblem } from "../../rules/event-schema";
import { eventTypeTextViolations } from "../../rules/event-type";
import type { RuleViolation } from "../../rules/types";
import { defineResource, type Fields, type InputsOf, type OperationContext, type Props } from "../engine/fields";
import { containsUnknown } from "../engine/unknown";
import { otherProjectWithConfinedKey, workspaceWideWithConfinedKey } from "./confined-key";
import { readForCheck } from "../engine/remote-checks";
import { RESOURCE_NAME_FIELD } from "../engine/fields";

/* ---------- scopes and ids, shared with the policy resource ---------- */

/** `workspace` or `project/<id>`: the scope of an event type or a policy, as an id prefix. */
export function scopeId(projectId: unknown): string {
  return typeof projectId === "string" && projectId !== "" ? `project/${projectId}` : "workspace";
}

/** The project of a scope id (`project/<id>[/...]`), or undefined for `workspace[/...]`. */
export function projectOfScopeId(id: string): { projectId: string | undefined; rest: string } {
  if (id.startsWith("project/")) {
    const [, projectId, ...rest] = id.split("/");
    return { projectId, rest: rest.join("/") };
  }
  return { projectId: undefined, rest: id.replace(/^workspace\/?/, "") };
}

export const projectQuery = (projectId: string | undefined) => (projectId ? `?project_id=${encodeURIComponent(projectId)}` : "");

const eventTypeId = (projectId: unknown, name: string) => `${scopeId(projectId)}/${name}`;

function eventTypePath(id: string): string {
  const { projectId, rest: name } = projectOfScopeId(id);
  return `/v1/event-types/${encodeURIComponent(name)}${projectQuery(projectId)}`;
}

/* ---------- preview: schema rules and the catalog ---------- */

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === "object" && !Array.isArray(v);

/** The schema's first problem as a rule violation, with the API's code and `details.reason`. */
export function payloadSchemaViolations(body: Props): RuleViolation[] {
  const schema = body.payload_schema;
  if (!isObject(schema)) return [];
  const problem = schemaProblem(schema);
  if (!problem) return [];
  const { reason, limit, size, path, ref } = problem.details as Record<string, unknown>;
  // A `$ref` not known yet at preview reaches the rule as "" (neutralised): not judged.
  if (problem.code === "schema_ref_unsupported" && ref === "") return [];
  const at = problem.pointer ?? path;
  const pointer = typeof at === "string" && at !== "" ? at.split("/").slice(1).map((s) => s.replace(/~1/g, "/").replace(/~0/g, "~")) : [];
  const params: Record<string, unknown> = {};
  if (reason !== undefined) params.reason = reason;
  if (limit !== undefined) params.limit = limit;
  if (size !== undefined) params.size = size;
  if (ref !== undefined) params.ref = ref;
  return [{ path: ["payload_schema", ...pointer], type: problem.code, msg: problem.message, params }];
}

interface CatalogEntry {
  name: string;
  project_id: string | null;
  description: string | null;
  payload_schema: Record<string, unknown> | null;
}

/** The catalog of one scope: ONE listing (every page) per scope per operation and connection. */
function catalogOf(ctx: OperationContext, projectId: string | undefined): Promise<CatalogEntry[] | undefined> {
  return readForCheck(ctx, `webhooks:event-types:${projectId ?? ""}`, () => ctx.client.listAll<CatalogEntry>("/v1/event-types", { project_id: projectId }));
}

/** The entry's unique key (profile, scope, name), as the operation keeps it. */
const uniqueKey = (inputs: EventTypeInputs) => JSON.stringify(["webhooks:EventType", inputs.profile ?? null, inputs.projectId ?? null, inputs.name]);

const adoptFix = (name: string) =>
  `Set \`adoptExisting: true\` on this resource to take the existing entry over (it is replaced only if its description or schema differ), or choose another name.`;

/* ---------- the definition ---------- */

/** A JSON value with every object member whose value is null left out (array items kept). */
function withoutNullMembers(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(withoutNullMembers);
  if (v && typeof v === "object") return Object.fromEntries(Object.entries(v).filter(([, x]) => x !== null).map(([k, x]) => [k, withoutNullMembers(x)]));
  return v;
}

const eventTypeFields = {
  name: { mode: "createOnly", api: "name", input: z.string().min(1).max(255), uniqueName: true, required: true, description: "The type name, unique in its scope (1 to 255 characters). Changing it REPLACES the entry." },
  // Omitted: workspace-wide (the spec's default for event types).
  projectId: { mode: "createOnly", api: "project_id", input: z.string().min(1), uniqueName: true, description: "Project the entry belongs to; it shadows a workspace-wide entry of the same name in that project. Omit for a workspace-wide entry. Changing it REPLACES the entry.", outputDescription: "The project, or null for a workspace-wide entry." },
  description: { mode: "createOnly", api: "description", input: z.string().max(1024), description: "Free text, at most 1024 characters. The API has no update: changing it REPLACES the entry (deleted first)." },
  payloadSchema: {
    mode: "createOnly",
    api: "payload_schema",
    input: z.record(z.string(), z.unknown(), { error: "must be a JSON Schema as an object (a dict, a map), not JSON text or another value" }),
    // Key order and formatting do not make another schema; nor a member whose value is null, which the Go and YAML
    // SDKs drop from a map before the provider sees it (pulumi/pulumi#22713): an import would else show a replacement.
    equal: (a, b) => canonicalJson(withoutNullMembers(a)) === canonicalJson(withoutNullMembers(b)),
    description: "JSON Schema (draft 7), as an object, every published payload of the type must match. Local `$ref`s only; at most 64 KiB, depth 32, 1,000 members, 500 enum values, 100 safe patterns of at most 1,000 characters (checked at preview). Compared ignoring key order and members whose value is null (Go and YAML programs cannot send one). Changing it REPLACES the entry (deleted first: the API has no update).",
  },
  adoptExisting: { mode: "local", input: z.boolean(), default: false, description: "Take over an entry of this name that already exists in this scope instead of failing the preview (409 `event_type_exists`): create reads it and replaces it only if its description or schema differ. Default false." },
  resourceName: RESOURCE_NAME_FIELD,
  profile: { mode: "createOnly", input: z.string().min(1), description: "Connection profile (see `EndpointArgs.profile`). Changing it REPLACES the entry." },
  origin: { mode: "output", api: "origin", type: z.enum(["manual", "ingest", "lenient"]), description: "`manual` (registered by request), `ingest` or `lenient` (added by traffic)." },
  createdAt: { mode: "output", api: "created_at", type: z.string(), description: "ISO 8601 UTC." },
} satisfies Fields;
type EventTypeInputs = InputsOf<typeof eventTypeFields>;

export const eventTypeDefinition = defineResource({
  kind: "webhooks:EventType",
  description: "`svc.webhooks.EventType`: an entry of the Webhooks event type catalog.",
  product: "webhooks",
  noun: "event type",
  idDescription: "`workspace/<name>` or `project/<projectId>/<name>` (the ids Pulumi makes; a bare `<name>` names the workspace-wide entry too, and an import by it keeps that id)",
  changeNote: "A replacement deletes first when the name stays. Schemas compare ignoring key order and formatting.",
  paths: { create: "/v1/event-types", item: eventTypePath },
  idField: "name",
  idOf: (response) => eventTypeId(response.project_id, String(response.name)),
  adoptHint: "If it was registered, set `adoptExisting: true` on this resource: the next `pulumi up` takes the existing entry over instead of registering it again.",
  ownerField: "description",
  fields: eventTypeFields,
  rules: (body) => [...eventTypeTextViolations(body), ...payloadSchemaViolations(body)],
  adoption: {
    idFrom: (inputs) => (inputs.adoptExisting === true ? eventTypeId(inputs.projectId, String(inputs.name)) : undefined),
    input: "adoptExisting",
    createWhenMissing: true,
    replaceWhenDifferent: true,
  },
  hooks: {
    async checkRemote(inputs, ctx, olds) {
      const { name, projectId } = inputs;
      const confined = projectId === undefined ? await workspaceWideWithConfinedKey(ctx, "projectId", "an event type with no projectId") : await otherProjectWithConfinedKey(ctx, projectId, "event type");
      if (confined.length > 0) return confined;
      if (typeof name !== "string" || containsUnknown(name) || containsUnknown(projectId)) return [];
      // Two resources of the program on one entry: the second's create would be refused (409) after the first's made it.
      const twin = typeof inputs.resourceName === "string" ? ctx.operation.claimKeys(inputs.resourceName, [uniqueKey(inputs)]) : undefined;
      if (twin)
        return [
          {
            property: "name",
            reason: `EventType "${twin.by}" of this program also declares event type "${name}" ${typeof projectId === "string" ? `in project ${projectId}` : "workspace-wide"}: a name is unique in its scope, so only one resource can hold it. Remove one of the two, or give one another name or project.`,
          },
        ];
      if (inputs.adoptExisting === true) return [];
      // This resource's own entry (an update or a replacement keeping the name) is no clash.
      if (olds.name === name && (olds.projectId ?? null) === (projectId ?? null) && (olds.profile ?? null) === (inputs.profile ?? null)) return [];
      // The engine's second Check of a replacement that Diff said keeps the name, with no old inputs: the entry found is its own.
      if (olds.name === undefined && ctx.operation.replacedDeleteFirst.has(uniqueKey(inputs))) return [];
      const scope = typeof projectId === "string" ? projectId : undefined;
      const catalog = await catalogOf(ctx, scope);
      if (!catalog?.some((e) => e.name === name && (e.project_id ?? undefined) === scope)) return [];
      return [
        {
          property: "name",
          reason: `Event type "${name}" is already registered ${scope ? `in project ${scope}` : "workspace-wide"} (409 conflict, event_type_exists). ${adoptFix(name)}`,
        },
      ];
    },

    // Diff decides the replacement; the engine's second Check, which comes after it, learns it here (engine-operation.ts).
    adjustDiff(diff, _olds, news, _id, ctx) {
      if (diff.deleteBeforeReplace) ctx?.operation.replacedDeleteFirst.add(uniqueKey(news));
      return diff;
    },

    explainError(err, _operation, inputs) {
      if (err.code === "conflict" && err.reason === "event_type_exists") {
        const name = String(err.details.event_type ?? inputs?.name ?? "");
        return `Event type "${name}" is already registered in this scope (event_type_exists). ${adoptFix(name)}`;
      }
      if (["invalid_payload", "schema_too_large", "schema_pattern_unsafe", "schema_ref_unsupported"].includes(err.code)) {
        const d = err.details;
        const at = typeof d.path === "string" && d.path !== "" ? ` at payloadSchema${d.path}` : "";
        return `The service refused payloadSchema${at}: ${err.serviceMessage ?? err.code} (${err.code}${d.reason ? `, reason ${String(d.reason)}` : ""}${d.limit !== undefined ? `, limit ${String(d.limit)}` : ""}). Fix the schema and run again.`;
      }
      return undefined;
    },
  },
});
