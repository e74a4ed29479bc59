/**
 * Workspace settings over HTTP: GET shape, PATCH endpoint_verification, and
 * 402 not_entitled optional_endpoint_verification on a plan requiring verification.
 */
import { describe, expect, it } from "vitest";
import { useEmulator } from "../../support/emulator";
import { expectError, expectValidation, newWorkspace, wh } from "./endpoints-support";

describe("workspace", () => {
  const emu = useEmulator();

  it("GET returns id, plan, endpoint_verification and event_type_policy; PATCH switches verification", async () => {
    const ws = await newWorkspace(emu(), "pro");
    const res = await wh(emu(), "GET", "/v1/workspace", { key: ws.webhooks.read });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ id: ws.workspace_id, plan: "pro", endpoint_verification: "optional", event_type_policy: "lenient" });
    const required = await wh(emu(), "PATCH", "/v1/workspace", { key: ws.webhooks.admin, body: { endpoint_verification: "required" } });
    expect(required.body.endpoint_verification).toBe("required");
    const optional = await wh(emu(), "PATCH", "/v1/workspace", { key: ws.webhooks.admin, body: { endpoint_verification: "optional" } });
    expect(optional.body.endpoint_verification).toBe("optional");
  });

  it("rejects other values and read keys", async () => {
    const ws = await newWorkspace(emu());
    expectValidation(await wh(emu(), "PATCH", "/v1/workspace", { key: ws.webhooks.admin, body: { endpoint_verification: "off" } }), [{ loc: ["body", "endpoint_verification"], type: "enum" }]);
    expectError(await wh(emu(), "PATCH", "/v1/workspace", { key: ws.webhooks.read, body: { endpoint_verification: "required" } }), 403, "forbidden", { reason: "scope", required: "admin" });
  });
});

describe("workspace on a plan requiring endpoint verification", () => {
  const emu = useEmulator({ plans: { free: { webhooks: { optional_endpoint_verification: false } } } });

  it("reads required; turning verification off is 402 not_entitled optional_endpoint_verification", async () => {
    const ws = await newWorkspace(emu(), "free");
    expect((await wh(emu(), "GET", "/v1/workspace", { key: ws.webhooks.read })).body.endpoint_verification).toBe("required");
    expectError(await wh(emu(), "PATCH", "/v1/workspace", { key: ws.webhooks.admin, body: { endpoint_verification: "optional" } }), 402, "not_entitled", { feature: "optional_endpoint_verification" });
    expect((await wh(emu(), "PATCH", "/v1/workspace", { key: ws.webhooks.admin, body: { endpoint_verification: "required" } })).status).toBe(200);
    // Pro still allows it.
    const pro = await newWorkspace(emu(), "pro");
    expect((await wh(emu(), "PATCH", "/v1/workspace", { key: pro.webhooks.admin, body: { endpoint_verification: "optional" } })).status).toBe(200);
  });
});
