/**
 * The internal keys of a resource's inputs, kept in its outputs and given back to a
 * read's inputs as the state holds them. Delete and read are given the stored outputs
 * alone (the dynamic provider's Read gets no inputs), so create and update keep in the
 * outputs what those need besides the service's values: the names of the secret inputs
 * (SECRET_INPUTS_KEY, so their messages hide them), the owner token (OWNER_KEY), where
 * the create's key reached (CREATED_IN_KEY), a setting's value found before its
 * take-over (FOUND_KEY: a later Check carries it from the old inputs) and,
 * under DECLARED_KEY, the names of the fields the program declared and the SDK's
 * `__resource` (RESOURCE_KEY, not under its own name: it names the inputs of a
 * resource). A read then answers with those fields only and those keys as the outputs
 * have them, and refresh shows as moved only what the program declared. A state written
 * before DECLARED_KEY was kept is read with every input the service shows; its inputs
 * lack nothing.
 */
import { mapOutputs } from "./errors";
import type { Props, ResourceDefinition } from "./fields";
import { CREATED_IN_KEY, DECLARED_KEY, FOUND_KEY, OWNER_KEY, RESOURCE_KEY, SECRET_INPUTS_KEY } from "./internal-keys";
import type { Operations } from "./operations";

/** What DECLARED_KEY holds. */
interface Declared {
  fields: string[];
  resource?: string;
}

/** Internal keys of the inputs kept in the outputs under their own names. */
const KEPT_KEYS = [SECRET_INPUTS_KEY, OWNER_KEY, CREATED_IN_KEY, FOUND_KEY];

/** The keys create and update add to the outputs, from the inputs they were given. */
function kept(def: ResourceDefinition, inputs: Props): Props {
  const declared: Declared = { fields: Object.keys(def.fields).filter((name) => inputs[name] !== undefined && inputs[name] !== null) };
  if (typeof inputs[RESOURCE_KEY] === "string") declared.resource = inputs[RESOURCE_KEY];
  const out: Props = { [DECLARED_KEY]: declared };
  for (const key of KEPT_KEYS) if (inputs[key] !== undefined) out[key] = inputs[key];
  return out;
}

/** Rebuilt inputs narrowed to the declared fields (when the outputs name them), with the internal keys the stored outputs keep. */
function asStored(inputs: Props, stored: Props): Props {
  const declared = stored[DECLARED_KEY] as Declared | undefined;
  const fields = Array.isArray(declared?.fields) ? declared.fields : undefined;
  const out: Props = fields ? Object.fromEntries(Object.entries(inputs).filter(([name]) => fields.includes(name))) : { ...inputs };
  for (const key of KEPT_KEYS) if (stored[key] !== undefined) out[key] = stored[key];
  if (declared?.resource !== undefined) out[RESOURCE_KEY] = declared.resource;
  return out;
}

/** A kind's operations whose outputs (a partial failure's too) keep the internal keys, and whose reads answer with the inputs as the state holds them. */
export function keepingDeclared(ops: Operations): Operations {
  const def = ops.definition as ResourceDefinition;
  return {
    ...ops,
    create: (req) => mapOutputs(ops.create(req), (outputs) => ({ ...outputs, ...kept(def, req.inputs) })),
    update: (req) => mapOutputs(ops.update(req), (outputs) => ({ ...outputs, ...kept(def, req.news) })),
    read: async (req) => {
      const r = await ops.read(req);
      return r.gone || !req.outputs ? r : { ...r, inputs: asStored(r.inputs, req.outputs) };
    },
  };
}
