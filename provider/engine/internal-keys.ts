/**
 * Keys a resource's properties carry besides its fields, in a module that imports
 * nothing: the native plugin names them before it loads the provider (its time to the
 * port line: test/native/plugin.test.ts), the SDK and the policy pack without loading it.
 */

/** The dynamic provider's serialized provider: an input the SDK adds, kept in the state. */
export const PROVIDER_KEY = "__provider";

/**
 * Names of the inputs the program gave as secrets (set by the SDK, sdk/props.ts; by the
 * native plugin from the engine's secret envelopes): the provider receives every input
 * in plaintext, so this is how it knows which values to keep out of its messages
 * (engine/redact.ts). Not a field: never sent.
 */
export const SECRET_INPUTS_KEY = "__secretInputs";

/**
 * Which resource of which stack the inputs are for (`resourceIdentity`), set by the SDK
 * (the native plugin takes it from the URN): the dynamic provider's create is told no
 * URN, and the replacement's create of an entry that keeps an open question is matched
 * to that entry by it (open-question.ts). Not a field: never sent, never an output of its
 * own (DECLARED_KEY keeps a copy for refresh), so state written before it existed shows no change.
 */
export const RESOURCE_KEY = "__resource";

/**
 * The resource's owner token (owner.ts): random, made at its first check, kept in its
 * inputs (a pending create in the state carries it) and outputs, and written on the
 * objects it creates where a free field allows. Not a field: never shown as a change.
 */
export const OWNER_KEY = "__owner";

/**
 * In a setting's inputs (a singleton: WorkspaceSettings, EventTypePolicy, QuotaLimits):
 * the value found before its take-over, read by the Check of its create. The engine
 * records the checked inputs in the pending create before the take-over writes, so a
 * run killed after the write leaves the value found in the state, on any machine, and
 * `pulumi-svc recover` makes it the resource's `previous` (what its delete puts back).
 * Not a field: never sent, never shown as a change.
 */
export const FOUND_KEY = "__found";

/**
 * In the outputs of a state entry that is an open question (open-question.ts): the
 * unproven candidates of a lost create. Not a field.
 */
export const UNRESOLVED_KEY = "__unresolved";

/** What RESOURCE_KEY holds: the parts of a URN that name a resource of a stack (its parents' types aside). */
export const resourceIdentity = (stack: string, project: string, name: string) => `${stack}::${project}::${name}`;

/**
 * Names of the fields the program declared (defaults filled in), kept in the outputs by
 * create and update (declared-inputs.ts): a read is given the outputs alone (the dynamic
 * Read gets no inputs), and the inputs it rebuilds are these fields only, so refresh
 * never shows an input the program left out as moved. Not a field: never sent, never an input.
 */
export const DECLARED_KEY = "__declared";

/**
 * In the outputs: the workspace the object lives in, as the service names it (reach.ts):
 * a 404 means "gone" only to a key of that workspace. Written by create, learnt by the
 * read of a state that lacks it. Not a field: never sent, never an input.
 */
export const WORKSPACE_KEY = "__workspace";
