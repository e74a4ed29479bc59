/**
 * The typed operations (provider/engine/operations.ts) called directly, as a second
 * front end would: no `__provider`, no dynamic-provider shapes. An endpoint through
 * check, create, diff, update, read and delete against the emulator; a partial failure
 * carries the outputs the state must keep and nothing of Pulumi's; an object deleted
 * outside reads as gone. The dynamic provider is one adapter over these (its own
 * tests: endpoint.test.ts and the lifecycle contract).
 */
import { afterAll, beforeEach, describe, expect, it } from "vitest";
import { closeSharedDispatcher, PartialFailure, providers } from "../../provider";
import { newOperation } from "../support/operation";
import { operationsFor } from "../../provider/engine/operations";
import { fieldRoles } from "../../provider/engine/values";
import { endpointDefinition } from "../../provider/webhooks/endpoint";
import { control, useEmulator } from "../support/emulator";
import { useWorkspace, type Workspace } from "./support";

const emu = useEmulator();
// The dynamic provider's configure is how this process gets its settings, for either front end.
const provider = providers["webhooks:Endpoint"]!;
const ops = operationsFor(endpointDefinition);
afterAll(() => closeSharedDispatcher());

let ws: Workspace;
beforeEach(async () => {
  ws = await useWorkspace(emu(), provider);
});

describe("typed operations of a kind, without Pulumi's interface", () => {
  it("check, create, diff, update, read and delete an endpoint", async () => {
    const { inputs, failures } = await ops.check({ olds: {}, news: { url: "https://a.example.com/in", description: "orders" } });
    expect(failures).toEqual([]);
    expect(inputs).toMatchObject({ subscriptions: [], verify: false });
    const created = await ops.create({ inputs });
    expect(created.id).toMatch(/^ep_/);
    expect(created.outputs).toMatchObject({ url: "https://a.example.com/in", description: "orders", projectId: ws.project_id, signingSecret: expect.any(String) });
    expect(created.outputs).not.toHaveProperty("__provider");

    const news = { ...inputs, description: "invoices" };
    expect(ops.diff({ id: created.id, olds: created.outputs, news })).toEqual({ changes: true, diffs: ["description"], replaces: [], deleteBeforeReplace: false });
    const updated = await ops.update({ id: created.id, olds: created.outputs, news });
    expect(updated.outputs.description).toBe("invoices");

    const read = await ops.read({ id: created.id, outputs: updated.outputs });
    expect(read).toMatchObject({ gone: false, id: created.id, outputs: { description: "invoices" }, inputs: { description: "invoices" } });

    // A later run (\`destroy\`): another plugin process, which knows nothing of this one's diff
    // (the real engine never diffs and then deletes one resource in an operation unless it replaces it).
    newOperation();
    await ops.delete({ id: created.id, outputs: updated.outputs });
    expect(await ops.read({ id: created.id, outputs: updated.outputs })).toEqual({ gone: true });
  });

  it("a partial failure keeps the object with its outputs, every field present, and nothing of the front end's", async () => {
    await control(emu(), "PUT", "/webhooks/targets/down.example.com", { result: "connection_failed" });
    const { inputs } = await ops.check({ olds: {}, news: { url: "https://down.example.com/h", verify: true } });
    const err = await ops.create({ inputs }).catch((e) => e);
    expect(err).toBeInstanceOf(PartialFailure);
    expect(err.properties).toMatchObject({ url: "https://down.example.com/h", verified: false, suspension: null });
    expect(err.properties).not.toHaveProperty("__provider");
  });

  it("a partial failure's state keeps the internal keys a create's keeps: the owner token (a later delete reads the mark by it), the declared fields", async () => {
    await control(emu(), "PUT", "/webhooks/targets/down.example.com", { result: "connection_failed" });
    const { inputs } = await provider.check!({}, { url: "https://down.example.com/k", verify: true });
    const err = await provider.create(inputs).catch((e) => e);
    expect(err).toBeInstanceOf(PartialFailure);
    expect(err.properties.__owner).toMatch(/^[a-z2-7]{26}$/);
    expect(err.properties.__owner).toBe(inputs.__owner);
    expect(err.properties.__declared).toMatchObject({ fields: expect.arrayContaining(["url", "verify"]) });
  });

  it("field roles are decided once per definition", () => {
    const roles = fieldRoles(endpointDefinition);
    expect(fieldRoles(endpointDefinition)).toBe(roles);
    const names = (entries: readonly (readonly [string, unknown])[]) => entries.map(([name]) => name);
    // Sent and never shown: kept by the provider, never read back.
    expect(names(roles.kept)).toEqual(expect.arrayContaining(["secret", "customHeaders", "secretRotation", "verify", "profile"]));
    expect(names(roles.returned)).not.toContain("customHeaders");
    expect(names(roles.returned)).toEqual(expect.arrayContaining(["url", "customHeaderNames", "createdAt"]));
    expect(names(roles.afterCreate)).toEqual(["status"]);
    expect(names(roles.created)).not.toContain("status");
  });
});

