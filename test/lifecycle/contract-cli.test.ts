/**
 * The lifecycle contract (contract.ts) under the real Pulumi CLI, the program runtime
 * and the dynamic-provider plugin: the parts only the engine can judge. The inner loop
 * (contract.test.ts) runs every part with the provider in-process in the engine's call
 * order; what it cannot prove is what the engine does with the answers:
 *
 * - create: the engine's Check and Create through the plugin, the SDK's serialized
 *   provider loading `pulumi-svc/provider`, and what the engine stores as outputs;
 * - replaces, one round: every kind replaced once, in both orders (an event type's
 *   description keeps its unique name: deleted first; the others created first): the
 *   engine's order from the provider's `deleteBeforeReplace`, its second Check, and the
 *   delete of the old object after the create;
 * - destroy: the engine's deletes from the state it stored;
 * - secrets: no fixture secret or API key in plaintext in the CLI's state files or its
 *   output (its encryption, `additionalSecretOutputs`).
 *
 * Updates, drift, out-of-band deletes, adoption and no-op runs are the provider's
 * answers to calls the engine makes the same way: the inner loop holds them. Refresh's
 * display under the CLI is refresh-declared.test.ts's; a state from a past release,
 * upgrade.test.ts's.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { RunningEmulator } from "../../emulator";
import type { Workspace } from "../provider/support";
import { describeWithCli } from "../support/cli-suite";
import { cliRunner } from "../support/runner";
import { lifecycleContract, type ContractStack } from "./contract";
import { errorsOf, kindOfType, stackOptions } from "./stack";

function cliStack(emu: RunningEmulator, ws: Workspace, dir: string): ContractStack {
  const stateFile = join(dir, "lifecycle.json");
  let last: ReturnType<typeof cliRunner.resources> = [];
  return {
    async run(verb, declared) {
      const opts = stackOptions(emu, ws, verb, "lifecycle", stateFile, declared);
      const r = await cliRunner.run(opts);
      last = cliRunner.resources(opts);
      const seen = [JSON.stringify(r)];
      // No state file before the first up (a preview).
      try {
        seen.push(readFileSync(stateFile, "utf8"));
      } catch {
        // none yet
      }
      return { ok: r.ok, errors: errorsOf(r), steps: r.steps.map((s) => ({ ...s, kind: kindOfType(s.type) })), seen };
    },
    resources: () =>
      last.flatMap((r) => {
        const kind = kindOfType(r.type);
        return kind && r.id ? [{ kind, name: r.urn.slice(r.urn.lastIndexOf("::") + 2), id: r.id, inputs: r.inputs, outputs: r.outputs }] : [];
      }),
  };
}

describeWithCli(
  "lifecycle contract (the real Pulumi CLI)",
  lifecycleContract({
    parts: ["create", "replaces", "destroy", "secrets"],
    rounds: 1,
    stack: cliStack,
  }),
);
