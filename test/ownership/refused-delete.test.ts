/**
 * Issue 24, scenario 6, through the engine stand-in against the emulator: the service
 * disables an endpoint when it refuses its delete (409 endpoint_has_pending_deliveries).
 * The endpoint stays in the state as it was (enabled), so the provider puts it back:
 * the program that declares it again gets it enabled, and state and service agree.
 */
import { describe, expect, it } from "vitest";
import { call, control, useEmulator } from "../support/emulator";
import { errorsOf, RUNS_TIMEOUT_MS, useOwnershipStacks, type Declared, CLI_MISSING } from "./support";

const emu = useEmulator();
const stack = useOwnershipStacks(emu);

/** A stack holding one enabled endpoint `hook` at `url` with one delivery pending, and a reader of its status at the service. */
async function endpointWithPendingDelivery(name: string, url: string) {
  const s = await stack(name);
  const hook: Declared = { kind: "webhooks:Endpoint", name: "hook", inputs: { url, subscriptions: [{ eventType: "order.*" }], status: "enabled" } };
  const up = await s.run("up", [hook]);
  expect(up.ok, errorsOf(up)).toBe(true);
  const id = s.id("hook")!;
  await call(emu(), "POST", "/webhooks/v1/events", { key: s.ws.webhooks.admin, body: { event_type: "order.created", payload: {} } });
  const status = async () => (await call(emu(), "GET", `/webhooks/v1/endpoints/${id}`, { key: s.ws.webhooks.admin })).body.status;
  return { s, hook, id, status };
}

describe.skipIf(CLI_MISSING !== undefined)("a delete refused for pending deliveries", () => {
  it("removed with a delivery pending: the up fails naming it, the endpoint is enabled again; declared again, it is enabled and nothing changes", async () => {
    const { s, hook, id, status } = await endpointWithPendingDelivery("refused-delete", "https://hooks.example.com/pending");

    const removed = await s.run("up", []);
    expect(removed.ok).toBe(false);
    expect(errorsOf(removed)).toMatch(new RegExp(`Endpoint ${id} was not deleted: 1 deliveries are still pending.*enabled again`));
    expect(s.id("hook")).toBe(id);
    expect(await status()).toBe("enabled");
    // The provider's message, with no stack trace or file path of the provider anywhere the run printed.
    const printed = removed.diagnostics.map((d) => d.message).join("\n");
    expect(printed).toContain(`Endpoint ${id} was not deleted`);
    expect(printed).not.toMatch(/^\s+at |\.[jt]s:\d+/m);

    const again = await s.writes("up", [hook]);
    expect(again.result.ok, errorsOf(again.result)).toBe(true);
    expect(await status()).toBe("enabled");
    expect(again.writes).toEqual([]);
  }, RUNS_TIMEOUT_MS);

  it("removed with a delivery pending, and the re-enable answered 503 past the retries: the up fails naming the refusal and the failed re-enable; `up --refresh` declaring it enables it", async () => {
    const { s, hook, id, status } = await endpointWithPendingDelivery("refused-delete-enable-503", "https://hooks.example.com/pending-503");
    // More 503s than the client's retries (DEFAULT_RETRY_POLICY: 5).
    await control(emu(), "POST", "/faults", { method: "POST", path: "/webhooks/v1/endpoints/*/enable", status: 503, count: 20 });

    const removed = await s.run("up", []);
    await control(emu(), "DELETE", "/faults");
    expect(removed.ok).toBe(false);
    const error = errorsOf(removed);
    // Both failures, each with its code and request id, and what to do.
    expect(error).toMatch(new RegExp(`Endpoint ${id} was not deleted: 1 deliveries are still pending.*enabling it again failed: .*503.*request id \\S+.*still says enabled.*pulumi up --refresh.*DELETE \\S+ → 409 conflict/endpoint_has_pending_deliveries, request id \\S+`, "s"));
    expect(await status()).toBe("disabled");
    expect(s.id("hook")).toBe(id);

    // The refresh reads it as disabled; the up that declares it enabled enables it.
    const again = await s.run("up", [hook], { verbOptions: { refresh: true } });
    expect(again.ok, errorsOf(again)).toBe(true);
    expect(await status()).toBe("enabled");
    const settled = await s.writes("up", [hook]);
    expect(settled.result.ok, errorsOf(settled.result)).toBe(true);
    expect(settled.writes).toEqual([]);
  }, RUNS_TIMEOUT_MS);
});
