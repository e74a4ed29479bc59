/**
 * State that survives upgrades (provider/README.md, "State shapes", says the rules):
 * outputs carry their shape under `__shape` (none: 0.1.0's, shape 1); a kind's
 * upgraders (its definition's `upgrade`: this file knows no kind) run on stored outputs
 * before read, diff, update and delete see them (`upgrading`, around a kind's typed
 * operations); a shape newer than this package knows is refused, never misread.
 */
import { PACKAGE_VERSION } from "../version";
import { mapOutputs } from "./errors";
import type { Props, Upgrader } from "./fields";
import type { Operations, ReadResponse } from "./operations";

/** The output key holding the shape version. `__` keeps it clear of every field name, as `__provider`. */
export const SHAPE_KEY = "__shape";

/** The shape every kind's state had in 0.1.0, which wrote no `__shape`. */
export const FIRST_SHAPE = 1;

export type { Upgrader };

/** A kind's upgraders (its definition's `upgrade`), in order: element i upgrades shape FIRST_SHAPE + i to FIRST_SHAPE + i + 1. */
export type Upgraders = readonly Upgrader[] | undefined;

export class ShapeTooNewError extends Error {
  constructor(
    readonly kind: string,
    readonly stored: number,
    readonly known: number,
  ) {
    super(
      `The state of this ${kind} was written with state shape ${stored}, but pulumi-svc ${PACKAGE_VERSION} knows shapes up to ${known}: ` +
        `a newer pulumi-svc wrote it. Upgrade the pulumi-svc package to the version that last ran this stack (or newer); nothing was read or changed.`,
    );
    this.name = "ShapeTooNewError";
  }
}

/** The shape this package writes for a kind with these upgraders. */
export function currentShape(upgraders: Upgraders): number {
  return FIRST_SHAPE + (upgraders?.length ?? 0);
}

/** The shape recorded in stored outputs; none recorded is 0.1.0's. */
export function storedShape(kind: string, outputs: Props | undefined): number {
  const raw = outputs?.[SHAPE_KEY];
  if (raw === undefined || raw === null) return FIRST_SHAPE;
  if (typeof raw !== "number" || !Number.isInteger(raw) || raw < FIRST_SHAPE) throw new Error(`The state of this ${kind} has an invalid ${SHAPE_KEY} ${JSON.stringify(raw)}; expected an integer from ${FIRST_SHAPE}.`);
  return raw;
}

/**
 * Stored outputs brought to the current shape. The same object when nothing ran (the
 * common case, and a state from 0.1.0 today), so a missing `__shape` stays missing.
 */
export function upgradeOutputs(kind: string, outputs: Props, upgraders: Upgraders): Props;
export function upgradeOutputs(kind: string, outputs: Props | undefined, upgraders: Upgraders): Props | undefined;
export function upgradeOutputs(kind: string, outputs: Props | undefined, upgraders: Upgraders): Props | undefined {
  if (!outputs) return outputs;
  const stored = storedShape(kind, outputs);
  const current = currentShape(upgraders);
  if (stored > current) throw new ShapeTooNewError(kind, stored, current);
  if (stored === current) return outputs;
  let out: Props = outputs;
  for (const upgrade of upgraders!.slice(stored - FIRST_SHAPE)) out = upgrade(out);
  return { ...out, [SHAPE_KEY]: current };
}

/**
 * A key the stored outputs lack and read answers with null (a field added by a later
 * release, with no value) is left out: absent and null are the same value, and a
 * refresh that adds the key would show as drift for no change in the service.
 */
function keepStoredForm(stored: Props | undefined, result: ReadResponse): ReadResponse {
  // Nothing stored is a Resource.get: every declared output must be there for the SDK.
  if (!stored || Object.keys(stored).length === 0 || result.gone) return result;
  const outputs: Props = {};
  for (const [k, v] of Object.entries(result.outputs)) if (v !== null || k in stored) outputs[k] = v;
  return { ...result, outputs };
}

/**
 * A kind's operations with the upgraders run first: stored outputs are brought to the
 * current shape before diff, read, update and delete see them; what create and
 * update return is marked with the current shape (a partial failure's too, so its
 * kept outputs are not taken for 0.1.0's on the next run).
 */
export function upgrading(ops: Operations, upgraders: Upgraders = ops.definition.upgrade): Operations {
  const kind = ops.definition.kind;
  const upgraded = (outputs: Props) => upgradeOutputs(kind, outputs, upgraders);
  const marked = <R extends { outputs: Props }>(result: Promise<R>) => mapOutputs(result, (outputs) => ({ ...outputs, [SHAPE_KEY]: currentShape(upgraders) }));
  return {
    ...ops,
    diff: (req) => ops.diff({ ...req, olds: upgraded(req.olds) }),
    read: async (req) => keepStoredForm(req.outputs, await ops.read({ ...req, outputs: req.outputs && upgraded(req.outputs) })),
    create: (req) => marked(ops.create(req)),
    update: async (req) => marked(ops.update({ ...req, olds: upgraded(req.olds) })),
    delete: async (req) => ops.delete({ ...req, outputs: upgraded(req.outputs) }),
  };
}
