/**
 * Issue 24, scenario 6, under the real CLI against the emulator: the service disables an
 * endpoint when it refuses its delete (409 endpoint_has_pending_deliveries). A removed
 * endpoint stays in the state as it was (enabled), so the provider puts it back: the
 * program that declares it again gets it enabled, and state and service agree. The old
 * endpoint of a replacement (adversary finding F2) is declared by no program: it is left
 * disabled, or it would receive every event beside its replacement and never drain.
 */
import { describe, expect, it } from "vitest";
import { call, control, useEmulator } from "../support/emulator";
import { errorsOf, RUNS_TIMEOUT_MS, useOwnershipStacks, type Declared, CLI_MISSING } from "./support";

const emu = useEmulator();
const stack = useOwnershipStacks(emu);

/** Signing secrets `{ $secret: "one" }` and `"two"` refer to (a change of the create-only `secret` replaces the endpoint). */
const secrets = { one: "whsec_first_signing_secret_0001", two: "whsec_second_signing_secret_002" };

/**
 * A stack holding one enabled endpoint `hook` at `url` (with `more` inputs) with one
 * delivery pending; what publishes another event; readers of an endpoint's status and deliveries at the service.
 */
async function endpointWithPendingDelivery(name: string, url: string, more: Declared["inputs"] = {}) {
  const s = await stack(name);
  const hook: Declared = { kind: "webhooks:Endpoint", name: "hook", inputs: { url, subscriptions: [{ eventType: "order.*" }], status: "enabled", ...more } };
  // Setup: its preview proves nothing here (the tests' own ups preview as a user's do).
  const up = await s.run("up", [hook], { secrets, verbOptions: { skipPreview: true } });
  expect(up.ok, errorsOf(up)).toBe(true);
  const id = s.id("hook")!;
  const key = s.ws.webhooks.admin;
  const event = () => call(emu(), "POST", "/webhooks/v1/events", { key, body: { event_type: "order.created", payload: {} } });
  await event();
  const status = async (of = id) => (await call(emu(), "GET", `/webhooks/v1/endpoints/${of}`, { key })).body.status;
  const deliveries = async (of: string) => ((await call(emu(), "GET", `/webhooks/v1/deliveries?endpoint_id=${of}&limit=200`, { key })).body.data as unknown[]).length;
  const enabled = async () => ((await call(emu(), "GET", "/webhooks/v1/endpoints?limit=200", { key })).body.data as { id: string; status: string }[]).filter((e) => e.status === "enabled").map((e) => e.id);
  return { s, hook, id, event, status, deliveries, enabled };
}

/** `hook` with its signing secret `which`: a change of it replaces the endpoint. */
const withSecret = (hook: Declared, which: keyof typeof secrets): Declared => ({ ...hook, inputs: { ...hook.inputs, secret: { $secret: which } } });

// Each test tells one endpoint's story on one stack (its first up and pending delivery made once), within the time of the two tests it merges.
describe.skipIf(CLI_MISSING !== undefined)("a delete refused for pending deliveries", () => {
  it("removed with a delivery pending: the up fails naming it, the endpoint is enabled again; declared again, it is enabled and nothing changes. Removed again, the re-enable answered 503 past the retries: the up fails naming the refusal and the failed re-enable; `up --refresh` declaring it enables it", async () => {
    const { s, hook, id, status } = await endpointWithPendingDelivery("refused-delete", "https://hooks.example.com/pending");

    const removed = await s.run("up", []);
    expect(removed.ok).toBe(false);
    expect(errorsOf(removed)).toMatch(new RegExp(`Endpoint ${id} was not deleted: 1 delivery is still pending.*enabled again`));
    expect(s.id("hook")).toBe(id);
    expect(await status()).toBe("enabled");
    // The provider's message, with no stack trace or file path of the provider anywhere the run printed.
    const printed = removed.diagnostics.map((d) => d.message).join("\n");
    expect(printed).toContain(`Endpoint ${id} was not deleted`);
    expect(printed).not.toMatch(/^\s+at |\.[jt]s:\d+/m);
    // Once, as the resource's error: no second, stack-level `pulumi-svc: ...` line (adv14b F13).
    expect(printed.split(`Endpoint ${id} was not deleted`)).toHaveLength(2);

    const again = await s.writes("up", [hook], { secrets });
    expect(again.result.ok, errorsOf(again.result)).toBe(true);
    expect(await status()).toBe("enabled");
    expect(again.writes).toEqual([]);

    // Removed again, its delivery still pending; more 503s than the client's retries (DEFAULT_RETRY_POLICY: 5) on the re-enable.
    await control(emu(), "POST", "/faults", { method: "POST", path: "/webhooks/v1/endpoints/*/enable", status: 503, count: 20 });
    const removed503 = await s.run("up", []);
    await control(emu(), "DELETE", "/faults");
    expect(removed503.ok).toBe(false);
    const error = errorsOf(removed503);
    // Both failures, each with its code and request id, and what to do.
    expect(error).toMatch(new RegExp(`Endpoint ${id} was not deleted: 1 delivery is still pending.*enabling it again failed: .*503.*request id \\S+.*still says enabled.*pulumi up --refresh.*DELETE \\S+ → 409 conflict/endpoint_has_pending_deliveries, request id \\S+`, "s"));
    expect(await status()).toBe("disabled");
    expect(s.id("hook")).toBe(id);

    // The refresh reads it as disabled; the up that declares it enabled enables it.
    const refreshed = await s.run("up", [hook], { secrets, verbOptions: { refresh: true } });
    expect(refreshed.ok, errorsOf(refreshed)).toBe(true);
    expect(await status()).toBe("enabled");
    const settled = await s.writes("up", [hook], { secrets });
    expect(settled.result.ok, errorsOf(settled.result)).toBe(true);
    expect(settled.writes).toEqual([]);
  }, RUNS_TIMEOUT_MS * 2);

  it("replaced (its create-only secret changed) with a delivery pending: the old endpoint is left disabled and the error says so; one endpoint enabled, one delivery per event; the next up, on a fresh machine, leaves it disabled; drained, it is deleted. Then replaced with deleteBeforeReplace and a delivery pending: the refused delete leaves the old endpoint disabled and the engine creates no new one; drained, the next up replaces it", async () => {
    const { s, hook, id: oldId, event, status, deliveries, enabled } = await endpointWithPendingDelivery("refused-replaced", "https://hooks.example.com/replace", { secret: { $secret: "one" } });

    const replaced = await s.writes("up", [withSecret(hook, "two")], { secrets });
    expect(replaced.result.ok).toBe(false);
    const newId = s.id("hook")!;
    expect(newId).not.toBe(oldId);
    expect(s.state().map((r) => [r.id, r.delete === true])).toEqual(expect.arrayContaining([[newId, false], [oldId, true]]));
    const error = errorsOf(replaced.result);
    expect(error).toMatch(new RegExp(`Endpoint ${oldId} was not deleted: 1 delivery is still pending.*old endpoint of a replacement.*left disabled.*pulumi up.*drainTimeoutSeconds set in the program now does not reach this delete`, "s"));
    // The advice must be one the user can follow: the old endpoint is not declared, so "declare status: disabled" cannot reach it.
    expect(error).not.toContain('declare status: "disabled"');
    expect(replaced.writes).toEqual(["POST /v1/endpoints", `DELETE /v1/endpoints/${oldId}`]);
    // The replaced endpoint must not keep receiving the program's events beside its replacement.
    expect(await enabled()).toEqual([newId]);
    await event();
    expect({ old: await deliveries(oldId), new: await deliveries(newId) }).toEqual({ old: 1, new: 1 });

    // The pending delete comes with no Diff of the old endpoint: the service's status tells.
    const rerun = await s.writes("up", [withSecret(hook, "two")], { secrets });
    expect(rerun.result.ok).toBe(false);
    expect(errorsOf(rerun.result)).toMatch(new RegExp(`Endpoint ${oldId} was not deleted: 1 delivery is still pending.*held it disabled before this delete.*left disabled`, "s"));
    expect(rerun.writes).toEqual([`DELETE /v1/endpoints/${oldId}`]);
    expect(await enabled()).toEqual([newId]);

    // Its delivery finished: the next up deletes it.
    await control(emu(), "POST", `/webhooks/endpoints/${oldId}/deliveries`, { to: "sent" });
    const drained = await s.writes("up", [withSecret(hook, "two")], { secrets });
    expect(drained.result.ok, errorsOf(drained.result)).toBe(true);
    expect(drained.writes).toEqual([`DELETE /v1/endpoints/${oldId}`]);
    expect(s.state().map((r) => r.id)).toEqual([newId]);
    expect(await status(newId)).toBe("enabled");

    // The replacement, its one delivery (the event above) pending, replaced with deleteBeforeReplace.
    const dbr: Declared = { ...withSecret(hook, "one"), options: { deleteBeforeReplace: true } };
    const replacedFirst = await s.writes("up", [dbr], { secrets });
    expect(replacedFirst.result.ok).toBe(false);
    expect(errorsOf(replacedFirst.result)).toMatch(new RegExp(`Endpoint ${newId} was not deleted: 1 delivery is still pending.*old endpoint of a replacement.*left disabled.*deleteBeforeReplace, the replacement is created only once this delete passes`, "s"));
    expect(replacedFirst.writes).toEqual([`DELETE /v1/endpoints/${newId}`]);
    expect(s.state().map((r) => r.id)).toEqual([newId]);
    expect(await status(newId)).toBe("disabled");
    expect(await enabled()).toEqual([]);

    await control(emu(), "POST", `/webhooks/endpoints/${newId}/deliveries`, { to: "sent" });
    const drainedFirst = await s.writes("up", [dbr], { secrets });
    expect(drainedFirst.result.ok, errorsOf(drainedFirst.result)).toBe(true);
    expect(drainedFirst.writes).toEqual([`DELETE /v1/endpoints/${newId}`, "POST /v1/endpoints"]);
    const newestId = s.id("hook")!;
    expect(s.state().map((r) => r.id)).toEqual([newestId]);
    expect(await enabled()).toEqual([newestId]);
  }, RUNS_TIMEOUT_MS * 2);
});
