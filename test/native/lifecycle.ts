/**
 * The lifecycle a program of native resources goes through under the real CLI, whatever
 * its language (yaml-lifecycle.test.ts, python-lifecycle.test.ts): create, a no-op, a
 * refresh, an update, destroy, with the API calls counted from the emulator's request log,
 * and the custom header's secret value and the signing secret nowhere in plaintext. Every
 * command runs on a fresh runner (a new HOME, PULUMI_HOME and TMPDIR), as in a pipeline: a
 * plugin the CLI fetches is fetched again by each, at the version the program or the state names.
 *
 * The program declares an endpoint (url https://hooks.example.com/orders, `description`
 * from the config key of that name, maxAttempts 5, custom headers `X-Team: fulfilment` and
 * `Authorization` from the secret config key `token`) and an inbox (`label` from config),
 * and exports `endpointId` and `inboxId`.
 */
import * as fs from "node:fs";
import { expect } from "vitest";
import type { RunningEmulator } from "../../emulator";
import type { Verb } from "../support/run-types";
import type { ResourceState } from "../support/state";
import { lastSeq, requestsSince } from "../support/emulator";
import { loadCliState } from "../support/pulumi-cli";
import { freshRunner } from "../ownership/support";
import { writesOf, type NativeStack } from "./support";

const TOKEN = "Bearer tok-4242-native-secret";

/**
 * Runs the lifecycle on `s`'s program, asserting each step; gives back the state after the update (decrypted).
 * `exported`: further outputs the program exports, as the first `up` must give them (a read function's answer).
 */
export async function checkNativeLifecycle(emu: RunningEmulator, stack: NativeStack, exported: Record<string, unknown> = {}): Promise<ResourceState[]> {
  const secrets = { token: TOKEN };
  const s = { ...stack, run: (verb: Verb, config: Record<string, string>) => stack.run(verb, config, secrets, { env: freshRunner() }) };
  let since = await lastSeq(emu);

  const up = await s.run("up", { description: "v1", label: "first" });
  expect(up.ok, up.summary).toBe(true);
  expect(writesOf(await requestsSince(emu, since)).sort()).toEqual(["POST /inboxes/v1/inboxes", "POST /webhooks/v1/endpoints"]);
  const { endpointId, inboxId } = up.outputs as { endpointId: string; inboxId: string };
  expect(up.outputs).toMatchObject(exported);
  expect(endpointId).toMatch(/^ep_/);

  since = await lastSeq(emu);
  const again = await s.run("up", { description: "v1", label: "first" });
  expect(again.ok, again.summary).toBe(true);
  expect(again.steps.filter((st) => st.op !== "same")).toEqual([]);
  expect(writesOf(await requestsSince(emu, since))).toEqual([]);

  // A refresh finds nothing moved (Read gives back the inputs as declared), and the up after it writes nothing.
  since = await lastSeq(emu);
  const refreshed = await s.run("refresh", { description: "v1", label: "first" });
  expect(refreshed.ok, refreshed.summary).toBe(true);
  expect(refreshed.steps.filter((st) => st.op !== "same")).toEqual([]);
  const afterRefresh = await s.run("up", { description: "v1", label: "first" });
  expect(afterRefresh.steps.filter((st) => st.op !== "same"), afterRefresh.summary).toEqual([]);
  expect(writesOf(await requestsSince(emu, since))).toEqual([]);

  since = await lastSeq(emu);
  const changed = await s.run("up", { description: "v2", label: "second" });
  expect(changed.ok, changed.summary).toBe(true);
  expect(writesOf(await requestsSince(emu, since)).sort()).toEqual([`PATCH /inboxes/v1/inboxes/${inboxId}`, `PATCH /webhooks/v1/endpoints/${endpointId}`]);
  const state = loadCliState(s.options("up"));
  expect(state.find((r) => r.type === "svc:webhooks:Endpoint")?.outputs).toMatchObject({ description: "v2", customHeaders: { Authorization: expect.stringMatching(/^hmac-sha256:/) } });
  // Decrypted above; as stored and as shown, never in plaintext: the header (a secret input) and
  // the signing secret the service made (an output the schema marks secret) are stored encrypted.
  const stored = fs.readFileSync(changed.stateFile, "utf8");
  expect(stored).not.toContain("tok-4242");
  const signingSecret = state.find((r) => r.type === "svc:webhooks:Endpoint")?.outputs["signingSecret"];
  expect(signingSecret).toMatch(/^whsec_/);
  expect(stored).not.toContain(String(signingSecret));
  expect(up.summary + again.summary + refreshed.summary + changed.summary).not.toContain("tok-4242");

  since = await lastSeq(emu);
  const down = await s.run("destroy", { description: "v2", label: "second" });
  expect(down.ok, down.summary).toBe(true);
  expect(writesOf(await requestsSince(emu, since)).sort()).toEqual([`DELETE /inboxes/v1/inboxes/${inboxId}`, `DELETE /webhooks/v1/endpoints/${endpointId}`]);
  expect(loadCliState(s.options("destroy")).filter((r) => r.type.startsWith("svc:"))).toEqual([]);
  return state;
}
