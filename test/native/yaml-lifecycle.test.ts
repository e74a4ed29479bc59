/**
 * A Pulumi YAML program of native resources (`svc:webhooks:Endpoint`, `svc:inboxes:Inbox`)
 * through the real CLI, the YAML language host and `pulumi-resource-svc` on PATH, against
 * the emulator: create, a no-op, an update, destroy, with the API calls counted from the
 * emulator's request log, a refresh that finds nothing moved, and the custom header's
 * secret value nowhere in plaintext.
 */
import * as fs from "node:fs";
import { describe, expect, it } from "vitest";
import { lastSeq, requestsSince, useEmulator } from "../support/emulator";
import { loadCliState } from "../support/pulumi-cli";
import { NATIVE_MISSING, nativeStack, writesOf } from "./support";

const emu = useEmulator();

const PROGRAM = `
config:
  description:
    type: string
  label:
    type: string
  token:
    type: string
    secret: true
resources:
  orders:
    type: svc:webhooks:Endpoint
    properties:
      url: https://hooks.example.com/orders
      description: \${description}
      maxAttempts: 5
      customHeaders:
        X-Team: fulfilment
        Authorization: \${token}
  bin:
    type: svc:inboxes:Inbox
    properties:
      label: \${label}
outputs:
  endpointId: \${orders.id}
  inboxId: \${bin.id}
`;

const TOKEN = "Bearer tok-4242-native-yaml-secret";

if (NATIVE_MISSING) console.log(`native plugin under the real CLI: skipped: ${NATIVE_MISSING}`);
describe.skipIf(NATIVE_MISSING !== undefined)("a YAML program of native resources under the real CLI", () => {
  it("creates with one POST each, a rerun and a refresh write nothing, a change is one PATCH each, destroy deletes both; the secret header stays secret", async () => {
    const s = await nativeStack(emu(), "native-yaml", PROGRAM);
    const secrets = { token: TOKEN };
    let since = await lastSeq(emu());

    const up = await s.run("up", { description: "v1", label: "first" }, secrets);
    expect(up.ok, up.summary).toBe(true);
    expect(writesOf(await requestsSince(emu(), since))).toEqual(expect.arrayContaining(["POST /webhooks/v1/endpoints", "POST /inboxes/v1/inboxes"]));
    expect(writesOf(await requestsSince(emu(), since))).toHaveLength(2);
    const { endpointId, inboxId } = up.outputs as { endpointId: string; inboxId: string };
    expect(endpointId).toMatch(/^ep_/);

    since = await lastSeq(emu());
    const again = await s.run("up", { description: "v1", label: "first" }, secrets);
    expect(again.ok, again.summary).toBe(true);
    expect(again.steps.filter((st) => st.op !== "same")).toEqual([]);
    expect(writesOf(await requestsSince(emu(), since))).toEqual([]);

    // A refresh finds nothing moved (Read gives back the inputs as declared), and the up after it writes nothing.
    since = await lastSeq(emu());
    const refreshed = await s.run("refresh", { description: "v1", label: "first" }, secrets);
    expect(refreshed.ok, refreshed.summary).toBe(true);
    expect(refreshed.steps.filter((st) => st.op !== "same")).toEqual([]);
    const afterRefresh = await s.run("up", { description: "v1", label: "first" }, secrets);
    expect(afterRefresh.steps.filter((st) => st.op !== "same"), afterRefresh.summary).toEqual([]);
    expect(writesOf(await requestsSince(emu(), since))).toEqual([]);

    since = await lastSeq(emu());
    const changed = await s.run("up", { description: "v2", label: "second" }, secrets);
    expect(changed.ok, changed.summary).toBe(true);
    expect(writesOf(await requestsSince(emu(), since)).sort()).toEqual([`PATCH /inboxes/v1/inboxes/${inboxId}`, `PATCH /webhooks/v1/endpoints/${endpointId}`]);
    const state = loadCliState(s.options("up"));
    expect(state.find((r) => r.type === "svc:webhooks:Endpoint")?.outputs).toMatchObject({ description: "v2", customHeaders: { Authorization: TOKEN } });
    // Decrypted above; as stored and as shown, never in plaintext: the header (a secret input) and
    // the signing secret the service made (an output the schema marks secret) are stored encrypted.
    const stored = fs.readFileSync(changed.stateFile, "utf8");
    expect(stored).not.toContain("tok-4242");
    const signingSecret = state.find((r) => r.type === "svc:webhooks:Endpoint")?.outputs["signingSecret"];
    expect(signingSecret).toMatch(/^whsec_/);
    expect(stored).not.toContain(String(signingSecret));
    expect(up.summary + again.summary + changed.summary).not.toContain("tok-4242");

    since = await lastSeq(emu());
    const down = await s.run("destroy", { description: "v2", label: "second" }, secrets);
    expect(down.ok, down.summary).toBe(true);
    expect(writesOf(await requestsSince(emu(), since)).sort()).toEqual([`DELETE /inboxes/v1/inboxes/${inboxId}`, `DELETE /webhooks/v1/endpoints/${endpointId}`]);
  });
});
