/**
 * One lifecycle of a program of native resources under the real CLI, whatever its language:
 * an endpoint `orders` (custom header `Authorization` from the secret config `token`,
 * description from `description`) and an inbox `bin` (label from `label`), exporting
 * `endpointId` and `inboxId`. Create, a no-op, a refresh, an update, destroy, with the API
 * calls counted from the emulator's request log, and the secrets nowhere in plaintext.
 */
import * as fs from "node:fs";
import { expect } from "vitest";
import type { RunningEmulator } from "../../emulator";
import { lastSeq, requestsSince } from "../support/emulator";
import { loadCliState } from "../support/pulumi-cli";
import { writesOf, type NativeStack } from "./support";

/** `token` is the header's secret value; `marker`, a part of it no output may show. */
export async function expectNativeLifecycle(emu: RunningEmulator, s: NativeStack, token: string, marker: string): Promise<void> {
  expect(token).toContain(marker);
  const secrets = { token };
  let since = await lastSeq(emu);

  const up = await s.run("up", { description: "v1", label: "first" }, secrets);
  expect(up.ok, up.summary).toBe(true);
  expect(writesOf(await requestsSince(emu, since))).toEqual(expect.arrayContaining(["POST /webhooks/v1/endpoints", "POST /inboxes/v1/inboxes"]));
  expect(writesOf(await requestsSince(emu, since))).toHaveLength(2);
  const { endpointId, inboxId } = up.outputs as { endpointId: string; inboxId: string };
  expect(endpointId).toMatch(/^ep_/);

  since = await lastSeq(emu);
  const again = await s.run("up", { description: "v1", label: "first" }, secrets);
  expect(again.ok, again.summary).toBe(true);
  expect(again.steps.filter((st) => st.op !== "same")).toEqual([]);
  expect(writesOf(await requestsSince(emu, since))).toEqual([]);

  // A refresh finds nothing moved (Read gives back the inputs as declared), and the up after it writes nothing.
  since = await lastSeq(emu);
  const refreshed = await s.run("refresh", { description: "v1", label: "first" }, secrets);
  expect(refreshed.ok, refreshed.summary).toBe(true);
  expect(refreshed.steps.filter((st) => st.op !== "same")).toEqual([]);
  const afterRefresh = await s.run("up", { description: "v1", label: "first" }, secrets);
  expect(afterRefresh.steps.filter((st) => st.op !== "same"), afterRefresh.summary).toEqual([]);
  expect(writesOf(await requestsSince(emu, since))).toEqual([]);

  since = await lastSeq(emu);
  const changed = await s.run("up", { description: "v2", label: "second" }, secrets);
  expect(changed.ok, changed.summary).toBe(true);
  expect(writesOf(await requestsSince(emu, since)).sort()).toEqual([`PATCH /inboxes/v1/inboxes/${inboxId}`, `PATCH /webhooks/v1/endpoints/${endpointId}`]);
  const state = loadCliState(s.options("up"));
  expect(state.find((r) => r.type === "svc:webhooks:Endpoint")?.outputs).toMatchObject({ description: "v2", customHeaders: { Authorization: token } });
  // Decrypted above; as stored and as shown, never in plaintext: the header (a secret input) and
  // the signing secret the service made (an output the schema marks secret) are stored encrypted.
  const stored = fs.readFileSync(changed.stateFile, "utf8");
  expect(stored).not.toContain(marker);
  const signingSecret = state.find((r) => r.type === "svc:webhooks:Endpoint")?.outputs["signingSecret"];
  expect(signingSecret).toMatch(/^whsec_/);
  expect(stored).not.toContain(String(signingSecret));
  expect(up.summary + again.summary + changed.summary).not.toContain(marker);

  since = await lastSeq(emu);
  const down = await s.run("destroy", { description: "v2", label: "second" }, secrets);
  expect(down.ok, down.summary).toBe(true);
  expect(writesOf(await requestsSince(emu, since)).sort()).toEqual([`DELETE /inboxes/v1/inboxes/${inboxId}`, `DELETE /webhooks/v1/endpoints/${endpointId}`]);
}
