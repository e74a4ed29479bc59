/**
 * Issue 24, scenario 1, through the engine stand-in against the emulator (the
 * engine's own Read -> Diff path, never a hand-fed update): a write-only value changed
 * outside Pulumi reaches the comparison the engine makes. `refresh` shows the drift,
 * the next `up` makes the one call that restores the declared value, and the up after
 * it makes none. Every write-only field that can change outside Pulumi: an endpoint's
 * custom headers (replaced by another map, or removed) and a source's secret (rotated).
 * An endpoint's `secret` and an inbox's `expiresInMinutes` are create-only; see
 * provider/README.md for what can and cannot be seen of them.
 */
import { describe, expect, it } from "vitest";
import { call, control, useEmulator } from "../support/emulator";
import { errorsOf, RUNS_TIMEOUT_MS, useOwnershipStacks, type Declared, CLI_MISSING } from "./support";

const emu = useEmulator();
const stack = useOwnershipStacks(emu);
const secrets = { team: "Bearer team-token", source: "source-signing-secret" };

describe.skipIf(CLI_MISSING !== undefined)("write-only values changed outside Pulumi", () => {
  // One stack holds every case (each resource independent of the others), so the four runs
  // are paid once: refresh shows each drift, the up makes exactly one restoring call per
  // resource, and the up after it makes none.
  it("an endpoint's custom headers replaced by another header, another's removed, a source's secret rotated: refresh shows each drift, up restores each with one call (a PATCH of the declared map, a secret rotated back), the next up writes nothing", async () => {
    const s = await stack("write-only");
    const endpoint = (name: string): Declared => ({ kind: "webhooks:Endpoint", name, inputs: { url: `https://hooks.example.com/wo-${name}`, customHeaders: { "X-Team": { $secret: "team" } } } });
    const source: Declared = { kind: "webhooks:Source", name: "src", inputs: { provider: "payments", name: "payments in", secret: { $secret: "source" } } };
    const program = [endpoint("replaced"), endpoint("removed"), source];
    const up = await s.run("up", program, { secrets });
    expect(up.ok, errorsOf(up)).toBe(true);
    const [replaced, removed, src] = [s.id("replaced")!, s.id("removed")!, s.id("src")!];
    await call(emu(), "PATCH", `/webhooks/v1/endpoints/${replaced}`, { key: s.ws.webhooks.admin, body: { custom_headers: { "X-Evil": "attacker" } } });
    await call(emu(), "PATCH", `/webhooks/v1/endpoints/${removed}`, { key: s.ws.webhooks.admin, body: { custom_headers: null } });
    await call(emu(), "POST", `/webhooks/v1/sources/${src}/rotate-secret`, { key: s.ws.webhooks.admin, body: { secret: "someone-elses-secret" } });

    const refresh = await s.run("refresh", program, { secrets });
    expect(refresh.ok, errorsOf(refresh)).toBe(true);
    for (const name of ["replaced", "removed", "src"]) expect(refresh.steps.find((st) => st.name === name), name).toMatchObject({ op: "update" });
    // The drift is the update. The keys the CLI shows are the inputs that moved with secrets masked,
    // so a secret map replaced by another secret map names no key: which keys show is not asserted.
    const restore = await s.writes("up", program, { secrets });
    expect(restore.result.ok, errorsOf(restore.result)).toBe(true);
    expect([...restore.writes].sort()).toEqual([`PATCH /v1/endpoints/${replaced}`, `PATCH /v1/endpoints/${removed}`, `POST /v1/sources/${src}/rotate-secret`].sort());
    const again = await s.writes("up", program, { secrets, verbOptions: { expectNoChanges: true } });
    expect(again.result.ok, errorsOf(again.result)).toBe(true);
    expect(again.writes).toEqual([]);

    for (const id of [replaced, removed]) expect((await call(emu(), "GET", `/webhooks/v1/endpoints/${id}`, { key: s.ws.webhooks.admin })).body.custom_header_names, id).toEqual(["X-Team"]);
    expect((await control<{ secret: string }>(emu(), "GET", `/webhooks/sources/${src}/secret`)).secret).toBe(secrets.source);
  }, RUNS_TIMEOUT_MS);
});
