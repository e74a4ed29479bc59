/**
 * Credentials and scopes on every route of event types, policy, sources, captures,
 * operational endpoints and workspace: no credential is 401 missing; a key without
 * the needed scope is 403 forbidden reason scope naming it. Captures may be deleted
 * with a read key.
 */
import { describe, expect, it } from "vitest";
import { control, useEmulator } from "../../support/emulator";
import { expectError, newWorkspace, wh } from "./endpoints-support";

const ROUTES: [method: string, path: string, need: "read" | "admin"][] = [
  ["GET", "/v1/event-types", "read"],
  ["POST", "/v1/event-types", "admin"],
  ["GET", "/v1/event-types/x", "read"],
  ["DELETE", "/v1/event-types/x", "admin"],
  ["GET", "/v1/event-types/policy", "read"],
  ["PUT", "/v1/event-types/policy", "admin"],
  ["GET", "/v1/sources", "read"],
  ["POST", "/v1/sources", "admin"],
  ["GET", "/v1/sources/src_x", "read"],
  ["PATCH", "/v1/sources/src_x", "admin"],
  ["DELETE", "/v1/sources/src_x", "admin"],
  ["POST", "/v1/sources/src_x/rotate-secret", "admin"],
  ["GET", "/v1/captures", "read"],
  ["GET", "/v1/captures/cap_x", "read"],
  ["DELETE", "/v1/captures/cap_x", "read"],
  ["GET", "/v1/operational-endpoints", "read"],
  ["POST", "/v1/operational-endpoints", "admin"],
  ["GET", "/v1/operational-endpoints/x", "read"],
  ["DELETE", "/v1/operational-endpoints/x", "admin"],
  ["GET", "/v1/workspace", "read"],
  ["PATCH", "/v1/workspace", "admin"],
];

/** GET sends no body (fetch refuses one). */
const bodyFor = (method: string) => (method === "GET" ? undefined : {});

describe("credentials and scopes on catalog, source and workspace routes", () => {
  const emu = useEmulator();

  it.each(ROUTES)("%s %s without a credential: 401 unauthorized missing", async (method, path) => {
    expectError(await wh(emu(), method, path, { body: bodyFor(method) }), 401, "unauthorized", { reason: "missing" });
  });

  it.each(ROUTES)("%s %s with a publish key: 403 forbidden scope", async (method, path, need) => {
    const ws = await newWorkspace(emu());
    expectError(await wh(emu(), method, path, { key: ws.webhooks.publish, body: bodyFor(method) }), 403, "forbidden", { reason: "scope", required: need });
  });

  it.each(ROUTES.filter(([, , need]) => need === "admin"))("%s %s with a read key: 403 forbidden scope admin", async (method, path) => {
    const ws = await newWorkspace(emu());
    expectError(await wh(emu(), method, path, { key: ws.webhooks.read, body: bodyFor(method) }), 403, "forbidden", { reason: "scope", required: "admin" });
  });

  it("a frozen workspace may read but not change (402 workspace_frozen)", async () => {
    const ws = await newWorkspace(emu());
    await wh(emu(), "GET", "/v1/sources", { key: ws.webhooks.read });
    await control(emu(), "PATCH", `/workspaces/${ws.workspace_id}`, { frozen: true });
    expect((await wh(emu(), "GET", "/v1/sources", { key: ws.webhooks.read })).status).toBe(200);
    expectError(await wh(emu(), "POST", "/v1/sources", { key: ws.webhooks.admin, body: { provider: "generic" } }), 402, "workspace_frozen", undefined);
  });
});
