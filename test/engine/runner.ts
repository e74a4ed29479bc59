// The engine stand-in behind the real CLI's interface (test/support/runner.ts), so a
// scenario runs on either.

import { DEFAULT_TEST_PASSPHRASE } from "../support/crypter";
import type { StackRunner } from "../support/runner";
import { StateFile, defaultStateFile, type ResourceState } from "../support/state";
import { unwrapSecrets, type Json } from "../support/values";
import { runEngine } from "./engine";

export const standInRunner: StackRunner = {
  name: "stand-in",
  unavailable: undefined,
  run: runEngine,
  resources: (stack) => {
    return new StateFile(defaultStateFile(stack.cwd, stack.stack, stack.stateFile), stack.passphrase ?? DEFAULT_TEST_PASSPHRASE).load().resources.map((r) => ({
      ...r,
      inputs: unwrapSecrets(r.inputs as Json) as ResourceState["inputs"],
      outputs: unwrapSecrets(r.outputs as Json) as ResourceState["outputs"],
    }));
  },
};
