/**
 * The inputs a read rebuilds are the ones the state holds, internal keys included. A
 * read is given the stored outputs alone (the dynamic provider's Read gets no inputs),
 * so create and update keep in the outputs what the rebuilt inputs need besides the
 * service's values, under DECLARED_KEY: the names of the fields the program declared and
 * the SDK's `__resource` (RESOURCE_KEY, not under its own name: it names the inputs of a
 * resource; `__secretInputs` and `__owner` are kept by guard.ts). A read then
 * answers with those fields only and those keys as the outputs have them, and refresh
 * shows as moved only what the program declared. A state written before these keys were
 * kept is read as before (every input the service shows); its inputs lack nothing.
 */
import type { Props, ResourceDefinition } from "./fields";
import { DECLARED_KEY, OWNER_KEY, RESOURCE_KEY, SECRET_INPUTS_KEY } from "./internal-keys";
import type { Operations } from "./operations";

/** What DECLARED_KEY holds. */
interface Declared {
  fields: string[];
  resource?: string;
}

/** The key create and update add to the outputs, from the inputs they were given. */
function kept(def: ResourceDefinition, inputs: Props): Props {
  const declared: Declared = { fields: Object.keys(def.fields).filter((name) => inputs[name] !== undefined && inputs[name] !== null) };
  if (typeof inputs[RESOURCE_KEY] === "string") declared.resource = inputs[RESOURCE_KEY];
  return { [DECLARED_KEY]: declared };
}

/** Rebuilt inputs narrowed to the declared fields, with the internal keys the stored outputs keep. */
function asStored(inputs: Props, stored: Props): Props {
  const declared = stored[DECLARED_KEY] as Declared | undefined;
  if (!declared || !Array.isArray(declared.fields)) return inputs;
  const out: Props = {};
  for (const [name, value] of Object.entries(inputs)) if (declared.fields.includes(name)) out[name] = value;
  for (const key of [SECRET_INPUTS_KEY, OWNER_KEY]) if (stored[key] !== undefined) out[key] = stored[key];
  if (declared.resource !== undefined) out[RESOURCE_KEY] = declared.resource;
  return out;
}

/** A kind's operations whose reads answer with the inputs as the state holds them. */
export function keepingDeclared(ops: Operations): Operations {
  const def = ops.definition as ResourceDefinition;
  return {
    ...ops,
    create: async (req) => {
      const r = await ops.create(req);
      return { ...r, outputs: { ...r.outputs, ...kept(def, req.inputs) } };
    },
    update: async (req) => {
      const r = await ops.update(req);
      return { ...r, outputs: { ...r.outputs, ...kept(def, req.news) } };
    },
    read: async (req) => {
      const r = await ops.read(req);
      return r.gone || !req.outputs ? r : { ...r, inputs: asStored(r.inputs, req.outputs) };
    },
  };
}
