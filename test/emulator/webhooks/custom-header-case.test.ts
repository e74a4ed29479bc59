/**
 * Custom header names that differ only in case (`X-A`, `x-a`): HTTP header names are
 * case-insensitive, so a delivery could carry only one. The emulator refuses them on
 * create and PATCH (422 `webhooks.custom_header_duplicate`, emulator/README.md "Where
 * the spec is silent"), and the provider refuses them at preview with the same type.
 */
import { describe, expect, it } from "vitest";
import { checkInputs } from "../../../provider/engine/check";
import { endpointDefinition } from "../../../provider/webhooks/endpoint";
import { useEmulator } from "../../support/emulator";
import { createEndpoint, expectError, newWorkspace, wh } from "./endpoints-support";

const duplicate = {
  loc: ["body", "custom_headers"],
  type: "webhooks.custom_header_duplicate",
  msg: "Header names 'X-A' and 'x-a' differ only in case; header names are case-insensitive, so a delivery can carry only one.",
};

describe("custom header names differing only in case", () => {
  const emu = useEmulator();

  it("create: 422 webhooks.custom_header_duplicate naming both, nothing created", async () => {
    const ws = await newWorkspace(emu());
    const res = await wh(emu(), "POST", "/v1/endpoints", { key: ws.webhooks.admin, body: { url: "https://hooks.example.com/h", subscriptions: [{ event_type: "**" }], custom_headers: { "X-A": "1", "x-a": "2" } } });
    expectError(res, 422, "validation_error", { errors: [duplicate] });
    expect((await wh(emu(), "GET", "/v1/endpoints", { key: ws.webhooks.read })).body.total).toBe(0);
  });

  it("PATCH: 422, the stored headers unchanged", async () => {
    const ws = await newWorkspace(emu());
    const ep = await createEndpoint(emu(), ws.webhooks.admin, { custom_headers: { "X-A": "1" } });
    expectError(await wh(emu(), "PATCH", `/v1/endpoints/${ep.id}`, { key: ws.webhooks.admin, body: { custom_headers: { "X-A": "1", "x-a": "2" } } }), 422, "validation_error", { errors: [duplicate] });
    expect((await wh(emu(), "GET", `/v1/endpoints/${ep.id}`, { key: ws.webhooks.read })).body.custom_header_names).toEqual(["X-A"]);
  });

  it("the provider's preview refuses the same, naming both and no value", () => {
    const { failures } = checkInputs(endpointDefinition, { url: "https://hooks.example.com/h", customHeaders: { "X-A": "s3cr3t-1", "x-a": "s3cr3t-2" } });
    expect(failures.map((f) => f.property)).toEqual(["customHeaders"]);
    expect(failures[0]!.reason).toContain("webhooks.custom_header_duplicate");
    expect(failures[0]!.reason).toContain("'X-A' and 'x-a' differ only in case");
    expect(JSON.stringify(failures)).not.toContain("s3cr3t");
  });
});
