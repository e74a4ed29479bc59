/**
 * The webhooks catalog a stack declares: its event types, its event type policies
 * and its endpoints' subscriptions, with the API's scoping rules (spec 2, "Event
 * type and policy"): a project sees workspace-wide types plus its own; a project's
 * policy override wins over the workspace policy.
 *
 * An endpoint or type without `projectId` lands in the workspace's default
 * project, whose id the stack does not say. Where that matters we assume the
 * arrangement that produces no violation, so a mandatory policy never blocks a
 * stack on a guess.
 */
import { isUnknown, isRecord, type Value } from "./props";
import type { StackView } from "./match";

export interface DeclaredEventType {
  urn: string;
  /** Undefined: unknown during preview. */
  name: string | undefined;
  /** Undefined: workspace-wide. UNKNOWN-safe: an unknown project is treated as "could be any". */
  projectId: Value<string>;
}

export interface DeclaredSubscription {
  index: number;
  /** Undefined: unknown during preview. */
  pattern: string | undefined;
}

export interface DeclaredEndpoint {
  urn: string;
  projectId: Value<string>;
  subscriptions: DeclaredSubscription[];
}

export interface DeclaredPolicy {
  urn: string;
  policy: Value<string>;
  projectId: Value<string>;
}

export interface Catalog {
  eventTypes: DeclaredEventType[];
  endpoints: DeclaredEndpoint[];
  policies: DeclaredPolicy[];
}

const knownString = (v: unknown): string | undefined => (typeof v === "string" && !isUnknown(v) ? v : undefined);

/**
 * Subscription patterns from inputs (`[{eventType}]`) or from outputs written the
 * API's way (`[{event_type}]`), since stack policies read outputs.
 */
function subscriptionsOf(value: unknown): DeclaredSubscription[] {
  // A list unknown during preview reads as one unknown pattern: nothing can be said about it.
  if (isUnknown(value)) return [{ index: 0, pattern: undefined }];
  if (!Array.isArray(value)) return [];
  return value.map((s, index) => {
    const pattern = isRecord(s) ? (s["eventType"] ?? s["event_type"]) : s;
    return { index, pattern: knownString(pattern) };
  });
}

export function readCatalog(view: StackView): Catalog {
  return {
    eventTypes: view.ofKind("webhooks:EventType").map((r) => ({
      urn: r.urn,
      name: knownString(r.props.name),
      projectId: r.props.projectId ?? undefined,
    })),
    endpoints: view.ofKind("webhooks:Endpoint").map((r) => ({
      urn: r.urn,
      projectId: r.props.projectId ?? undefined,
      subscriptions: subscriptionsOf(r.props.subscriptions),
    })),
    policies: view.ofKind("webhooks:EventTypePolicy").map((r) => ({
      urn: r.urn,
      policy: r.props.policy,
      projectId: r.props.projectId ?? undefined,
    })),
  };
}

/**
 * Is the policy in force for `projectId` certainly strict? The project's own override
 * if the stack declares one, else the workspace policy (no projectId). Undefined
 * whenever a value still unknown could make it not strict: the policy is unknown; the
 * endpoint's project is unknown or the default project (its id is not in the stack)
 * and some override is not certainly strict; or an override whose project is unknown
 * could be this project's and is not certainly strict.
 */
export function strictPolicyInForce(catalog: Catalog, projectId: Value<string>): DeclaredPolicy | undefined {
  const workspace = catalog.policies.find((p) => p.projectId === undefined);
  const overrides = catalog.policies.filter((p) => p.projectId !== undefined);
  const notStrict = (p: DeclaredPolicy) => p.policy !== "strict";
  const anyProject = typeof projectId !== "string" || isUnknown(projectId);
  if (anyProject && overrides.some(notStrict)) return undefined;
  if (!anyProject && overrides.some((p) => isUnknown(p.projectId) && notStrict(p))) return undefined;
  const override = anyProject ? undefined : overrides.find((p) => p.projectId === projectId);
  const inForce = override ?? workspace;
  return inForce?.policy === "strict" ? inForce : undefined;
}

/**
 * Could an endpoint in `endpointProject` receive events of a type declared in
 * `typeProject`? Workspace-wide types reach every project; a project's types reach
 * that project; an absent or unknown project on either side could be the same one.
 */
export function typeVisibleTo(typeProject: Value<string>, endpointProject: Value<string>): boolean {
  if (typeProject === undefined || isUnknown(typeProject)) return true;
  if (endpointProject === undefined || isUnknown(endpointProject)) return true;
  return typeProject === endpointProject;
}
