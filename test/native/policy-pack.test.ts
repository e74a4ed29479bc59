/**
 * The svc-guardrails pack on native resources: a YAML program of `svc:webhooks:Endpoint`
 * previewed by the real CLI with `--policy-pack` (a private build of policy/, as
 * test/policy/e2e.test.ts builds it). An endpoint delivering to a private address is the
 * mandatory `endpoint-public-host` violation, reported on the native resource, and the
 * preview fails with nothing written; the same endpoint at a public host previews clean.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { lastSeq, requestsSince, useEmulator } from "../support/emulator";
import { runCli } from "../support/pulumi-cli";
import { buildPack, type BuiltPack } from "../policy/pack-build";
import { NATIVE_MISSING, nativeStack, writesOf } from "./support";

const emu = useEmulator();
let pack: BuiltPack;

/** An endpoint delivering to `url`. */
const program = (url: string) => `
resources:
  orders:
    type: svc:webhooks:Endpoint
    properties:
      url: ${url}
`;

beforeAll(async () => {
  pack = await buildPack();
}, 300_000);
afterAll(() => pack?.remove());

if (NATIVE_MISSING) console.log(`policy pack on native resources: skipped: ${NATIVE_MISSING}`);
describe.skipIf(NATIVE_MISSING !== undefined)("the policy pack on a YAML program of native resources, under the real CLI", () => {
  it("an endpoint at a private address fails pulumi preview --policy-pack with the mandatory violation on the resource; at a public host it previews clean", async () => {
    const blockedStack = await nativeStack(emu(), "native-policy", program("https://10.1.2.3/orders"));
    const since = await lastSeq(emu());
    const blocked = await runCli({ ...blockedStack.options("preview"), policyPack: pack.dir });
    expect(blocked.ok).toBe(false);
    expect(blocked.policyViolations.map((v) => [v.policyName, v.enforcementLevel, v.urn])).toEqual([["endpoint-public-host", "mandatory", expect.stringMatching(/::svc:webhooks:Endpoint::orders$/)]]);
    expect(blocked.policyViolations[0]!.message).toContain("10.1.2.3");
    expect(writesOf(await requestsSince(emu(), since))).toEqual([]);

    const cleanStack = await nativeStack(emu(), "native-policy-ok", program("https://hooks.example.com/orders"), { ws: blockedStack.ws });
    const clean = await runCli({ ...cleanStack.options("preview"), policyPack: pack.dir });
    expect(clean.policyViolations).toEqual([]);
    expect(clean.ok, clean.summary).toBe(true);
  });
});
