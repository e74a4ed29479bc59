/**
 * The lifecycle contract (contract.ts) of every kind in the inner loop: the provider
 * in-process, called in the real engine's order by the lifecycle driver
 * (test/support/lifecycle-driver.ts), against the emulator over HTTP. Every part runs
 * here; contract-cli.test.ts runs under the real CLI the parts only the engine can judge.
 */
import * as pulumi from "@pulumi/pulumi";
import { describe, expect, it } from "vitest";
import type { RunningEmulator } from "../../emulator";
import type { ResourceKind } from "../../sdk/tokens";
import type { Workspace } from "../provider/support";
import { LifecycleDriver, type OperationResult } from "../support/lifecycle-driver";
import { control, lastSeq, requestsSince, useEmulator } from "../support/emulator";
import { redact, unwrapMap, type Json } from "../support/values";
import { checkFixtures, lifecycleContract, resolved, type ContractStack } from "./contract";
import { FIXTURES } from "./fixtures";
import { stackOptions } from "./stack";

checkFixtures();

/** The stack's provider config, as the real-CLI run gives it (stack.ts), for the driver. */
function driverStack(emu: RunningEmulator, ws: Workspace): ContractStack {
  const { config, secrets } = stackOptions(emu, ws, "up", "lifecycle", "", []);
  const driver = new LifecycleDriver({ ...config, ...secrets } as Record<string, string>);
  const asRun = (r: OperationResult) => ({
    ok: r.ok,
    errors: r.error ?? "",
    steps: r.steps,
    // What the engine would print and store: the state with secrets masked (it encrypts them), the steps, the error.
    seen: [JSON.stringify(r), JSON.stringify(redact(driver.resources() as unknown as Json))],
  });
  return {
    async run(verb, declared) {
      const resources = declared.map((d) => ({ kind: d.kind as ResourceKind, name: d.name, args: resolved(FIXTURES[d.kind as ResourceKind]!, d.inputs, (s) => pulumi.secret(s)) as Record<string, unknown> }));
      if (verb === "refresh") return asRun(await driver.refresh());
      if (verb === "destroy") return asRun(await driver.destroy());
      return asRun(await driver[verb](resources));
    },
    resources: () => driver.resources().map((r) => ({ kind: r.kind, name: r.name, id: r.id, inputs: unwrapMap(r.inputs), outputs: unwrapMap(r.outputs) })),
  };
}

describe(
  "lifecycle contract (in-process, the engine's call order)",
  lifecycleContract({
    parts: ["create", "no-op", "updates", "drift", "gone", "replaces", "destroy", "secrets"],
    stack: driverStack,
  }),
);

describe("the lifecycle driver", () => {
  const emu = useEmulator();

  it("an up previews first, as `pulumi up` does: a resource whose Check fails stops it before any create", async () => {
    const ws = await control<Workspace>(emu(), "POST", "/workspaces", { plan: "enterprise" });
    const { config, secrets } = stackOptions(emu(), ws, "up", "lifecycle", "", []);
    const driver = new LifecycleDriver({ ...config, ...secrets } as Record<string, string>);
    const since = await lastSeq(emu());
    const up = await driver.up([
      { kind: "webhooks:Endpoint", name: "fine", args: { url: "https://hooks.example.com/fine" } },
      { kind: "webhooks:Endpoint", name: "refused", args: { url: "ftp://hooks.example.com/refused" } },
    ]);
    expect(up.ok).toBe(false);
    expect((await requestsSince(emu(), since)).filter((r) => r.method !== "GET")).toEqual([]);
    expect(driver.resources()).toEqual([]);
  });
});
