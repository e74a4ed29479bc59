/**
 * Keys a resource's properties carry besides its fields (none is a field: never sent,
 * never shown as a change), in a module that imports nothing: the native plugin names
 * them before it loads the provider (its time to the port line: test/native/plugin.test.ts),
 * the SDK and the policy pack without loading it.
 */

/** The dynamic provider's serialized provider: an input the SDK adds, kept in the state. */
export const PROVIDER_KEY = "__provider";

/** Names of the inputs the program gave as secrets (set by the SDK, sdk/props.ts; by the native plugin from the engine's secret envelopes): what redact.ts hides. */
export const SECRET_INPUTS_KEY = "__secretInputs";

/**
 * Which resource of which stack the inputs are for (`resourceIdentity`), set by the SDK
 * (the native plugin takes it from the URN): the dynamic provider's create is told no
 * URN, and the replacement's create of an open question's entry finds it by this
 * (open-question.ts). Never an output of its own (declared-inputs.ts keeps a copy).
 */
export const RESOURCE_KEY = "__resource";

/** The resource's owner token (owner.ts), in its inputs and outputs. */
export const OWNER_KEY = "__owner";

/**
 * In a setting's inputs (a singleton: WorkspaceSettings, EventTypePolicy, QuotaLimits):
 * the value found before its take-over, read by the Check of its create, so that the
 * engine's pending create holds it before the write (provider/README rule 8). Never sent.
 */
export const FOUND_KEY = "__found";

/** In the outputs of a state entry that is an open question (open-question.ts). */
export const UNRESOLVED_KEY = "__unresolved";

/** What RESOURCE_KEY holds: the parts of a URN that name a resource of a stack (its parents' types aside). */
export const resourceIdentity = (stack: string, project: string, name: string) => `${stack}::${project}::${name}`;

/** In the outputs: the fields the program declared, and RESOURCE_KEY's copy (declared-inputs.ts). */
export const DECLARED_KEY = "__declared";

/**
 * In the outputs: the workspace the object lives in, as the service names it (reach.ts):
 * a 404 means "gone" only to a key of that workspace. Written by create, learnt by the
 * read of a state that lacks it. Not a field: never sent, never an input.
 */
export const WORKSPACE_KEY = "__workspace";

/**
 * In a create's inputs: what the key of its Check reaches (reach.ts), so that the engine's
 * pending create holds where a create killed in flight went, and `pulumi-svc recover`
 * drops it as "made nothing" only when its key sees that place. Never sent; kept in the
 * outputs (declared-inputs.ts) so that a read gives the inputs back as they were.
 */
export const CREATED_IN_KEY = "__createdIn";
