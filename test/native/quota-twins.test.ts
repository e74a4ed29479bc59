/**
 * Two QuotaRequests of one YAML program asking for the same quota: the preview fails
 * naming the other, and nothing is filed. The TypeScript SDK tells the provider each
 * resource's name; a native program's is its URN's, which the plugin passes on. Found by
 * an adversarial trial: both requests were filed.
 */
import { describe, expect, it } from "vitest";
import { lastSeq, requestsSince, useEmulator } from "../support/emulator";
import { NATIVE_MISSING, nativeStack } from "./support";

const emu = useEmulator();

const request = (name: string) => `
  ${name}:
    type: svc:infra:QuotaRequest
    properties:
      service: compute
      region: us-east-1
      limits:
        vms: 80
      justification: load tests`;

if (NATIVE_MISSING) console.log(`native quota twins: skipped: ${NATIVE_MISSING}`);
describe.skipIf(NATIVE_MISSING !== undefined)("two QuotaRequests of one YAML program for one quota", () => {
  it("the preview fails naming the other request, and nothing is filed", async () => {
    const s = await nativeStack(emu(), "quota-twins", `resources:${request("moreVms")}${request("launchCapacity")}\n`);
    const since = await lastSeq(emu());
    const preview = await s.run("preview");
    expect(preview.ok).toBe(false);
    expect(preview.diagnostics.map((d) => d.message).join("\n")).toMatch(/QuotaRequest "(moreVms|launchCapacity)" of this program also asks for vms/);
    expect((await requestsSince(emu(), since)).filter((r) => r.method !== "GET")).toEqual([]);
  }, 300_000);
});
