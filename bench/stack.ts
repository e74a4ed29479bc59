/**
 * A mixed stack of N resources for the benchmark and the soak: endpoints with
 * subscriptions and custom headers, event types with schemas, sources, inboxes (the
 * kinds registered in provider/registry.ts that have a builder here), round-robin.
 * `variant` changes exactly one field of every resource (the "one-field update").
 * The Pulumi program in bench/program declares the same stack through the SDK.
 */
import type { ResourceKind } from "../sdk/tokens";

export type Inputs = Record<string, unknown>;

export interface Declared {
  kind: ResourceKind;
  name: string;
  inputs: Inputs;
}

type Builder = (i: number, variant: number) => Inputs;

/**
 * One builder per kind; the field `variant` changes is noted. Singletons (settings, policies) are not stacked.
 * At variant 0 the owner fields (provider/README.md, "Ownership") are left unset, so every create
 * carries its owner mark and a lost answer is proven: a later variant sets them (one PATCH).
 */
const from1 = <T>(v: number, value: T) => (v > 0 ? value : undefined);
export const BUILDERS: Partial<Record<ResourceKind, Builder>> = {
  // variant: description (one PATCH)
  "webhooks:Endpoint": (i, v) => ({
    url: `https://hooks.example.com/bench/${i}`,
    description: from1(v, `bench endpoint ${i} v${v}`),
    subscriptions: [{ eventType: "order.*" }, { eventType: `bench.e${i}` }],
    customHeaders: { "X-Bench": `h${i}`, Authorization: `Bearer bench-header-value-${i}` },
    maxAttempts: 5,
  }),
  // variant: the schema's description (the catalog has no update: a replacement, deleted first)
  "webhooks:EventType": (i, v) => ({
    name: `bench.type${i}`,
    payloadSchema: { type: "object", description: `bench type ${i} v${v}`, required: ["id"], properties: { id: { type: "string" }, n: { type: "integer", minimum: 0 } } },
  }),
  // variant: name (one PATCH)
  "webhooks:Source": (i, v) => ({ provider: "generic", name: from1(v, `bench source ${i} v${v}`), secret: `bench-source-secret-${i}-7c1e` }),
  // variant: label (one PATCH)
  "inboxes:Inbox": (i, v) => ({ label: from1(v, `bench inbox ${i} v${v}`) }),
  // variant: the URL (every field is create-only: a replacement)
  "webhooks:OperationalEndpoint": (i, v) => ({
    url: `https://ops.example.com/bench/${i}/v${v}`,
    eventTypes: ["endpoint.auto_disabled", "delivery.dead"],
  }),
};

/** The builder kinds among `registered`, in a fixed order. */
export function stackKinds(registered: readonly string[]): ResourceKind[] {
  return (Object.keys(BUILDERS) as ResourceKind[]).filter((k) => registered.includes(k));
}

/** N resources, round-robin over `kinds`; `offset` numbers them from there (two stacks in one workspace). */
export function mixedStack(n: number, variant: number, kinds: ResourceKind[], offset = 0): Declared[] {
  if (kinds.length === 0) throw new Error("no resource kind with a builder is registered");
  return Array.from({ length: n }, (_, k) => {
    const i = k + offset;
    const kind = kinds[k % kinds.length]!;
    return { kind, name: `${kind.split(":")[1]!.toLowerCase()}-${i}`, inputs: BUILDERS[kind]!(i, variant) };
  });
}
