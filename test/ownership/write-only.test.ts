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
import { errorsOf, RUNS_TIMEOUT_MS, useOwnershipStacks, type Declared, type OwnershipStack, CLI_MISSING } from "./support";

const emu = useEmulator();
const stack = useOwnershipStacks(emu);
const secrets = { team: "Bearer team-token", source: "source-signing-secret" };

/** refresh shows drift on `name`; up makes exactly `restore`; the next up writes nothing. */
async function restoredByOneCall(s: OwnershipStack, program: Declared[], name: string, restore: (id: string) => string): Promise<void> {
  const refresh = await s.run("refresh", program, { secrets });
  expect(refresh.ok, errorsOf(refresh)).toBe(true);
  expect(refresh.steps.find((st) => st.name === name)).toMatchObject({ op: "update" });
  // The drift is the update. The keys the CLI shows are the inputs that moved with secrets masked,
  // so a secret map replaced by another secret map names no key: which keys show is not asserted.
  const up = await s.writes("up", program, { secrets });
  expect(up.result.ok, errorsOf(up.result)).toBe(true);
  expect(up.writes).toEqual([restore(s.id(name)!)]);
  const again = await s.writes("up", program, { secrets, verbOptions: { expectNoChanges: true } });
  expect(again.result.ok, errorsOf(again.result)).toBe(true);
  expect(again.writes).toEqual([]);
}

describe.skipIf(CLI_MISSING !== undefined)("write-only values changed outside Pulumi", () => {
  const hook: Declared = { kind: "webhooks:Endpoint", name: "hook", inputs: { url: "https://hooks.example.com/wo", customHeaders: { "X-Team": { $secret: "team" } } } };
  const headerNames = async (s: OwnershipStack) => (await call(emu(), "GET", `/webhooks/v1/endpoints/${s.id("hook")}`, { key: s.ws.webhooks.admin })).body.custom_header_names;

  for (const [what, replacement] of [
    ["replaced by another header", { "X-Evil": "attacker" }],
    ["removed", null],
  ] as const) {
    it(`an endpoint's custom headers ${what}: refresh shows customHeaders, up PATCHes the declared map once`, async () => {
      const s = await stack(`headers-${replacement ? "replaced" : "removed"}`);
      const up = await s.run("up", [hook], { secrets });
      expect(up.ok, errorsOf(up)).toBe(true);
      await call(emu(), "PATCH", `/webhooks/v1/endpoints/${s.id("hook")}`, { key: s.ws.webhooks.admin, body: { custom_headers: replacement } });
      await restoredByOneCall(s, [hook], "hook", (id) => `PATCH /v1/endpoints/${id}`);
      expect(await headerNames(s)).toEqual(["X-Team"]);
    }, RUNS_TIMEOUT_MS);
  }

  it("a source's secret rotated outside Pulumi: refresh shows secret, up rotates it back to the declared value once", async () => {
    const s = await stack("source-secret");
    const source: Declared = { kind: "webhooks:Source", name: "src", inputs: { provider: "payments", name: "payments in", secret: { $secret: "source" } } };
    const up = await s.run("up", [source], { secrets });
    expect(up.ok, errorsOf(up)).toBe(true);
    await call(emu(), "POST", `/webhooks/v1/sources/${s.id("src")}/rotate-secret`, { key: s.ws.webhooks.admin, body: { secret: "someone-elses-secret" } });
    await restoredByOneCall(s, [source], "src", (id) => `POST /v1/sources/${id}/rotate-secret`);
    expect((await control<{ secret: string }>(emu(), "GET", `/webhooks/sources/${s.id("src")}/secret`)).secret).toBe(secrets.source);
  }, RUNS_TIMEOUT_MS);
});
