/**
 * The Source resource against the emulator over HTTP: create (generic secret
 * generated and kept as an output; a provider's secret given), read, one PATCH per
 * update, status after create, a secret change is exactly one rotate-secret and no
 * replacement, provider replaces, delete, refresh after out-of-band change and delete,
 * adoption, and every refusal at preview (provider_secret_required, broker fields,
 * port, queue kind, broker host, the broker_sources plan gate) with no secret in any
 * message.
 */
import { afterAll, beforeEach, describe, expect, it } from "vitest";
import { closeSharedDispatcher, providers } from "../../provider";
import { newOperation } from "../support/operation";
import { UNKNOWN } from "../../provider/engine/unknown";
import { call, control, useEmulator } from "../support/emulator";
import { Driver, useWorkspace, type Props, type Workspace } from "./support";

const provider = providers["webhooks:Source"]!;
const emu = useEmulator();
const d = () => new Driver(emu(), provider);
afterAll(() => closeSharedDispatcher());

const SECRET = "pay-secret-4e1c9a";
const SECRET2 = "pay-secret-rotated-77d0";
/** A write-only secret as the outputs keep it (engine/sealed.ts): a seal, never the value. */
const SEALED = expect.stringMatching(/^hmac-sha256:/);
const BROKER = { provider: "broker", secret: "broker-pw-1", brokerIdentifier: "b1", brokerHost: "mq.example.com", brokerUser: "u", brokerExchange: "ex", brokerTopic: "orders.#" };

let ws: Workspace;
beforeEach(async () => {
  newOperation();
  ws = await useWorkspace(emu(), provider);
});

const secretsOf = (id: string) => control<{ secret: string; previous_secret: string | null }>(emu(), "GET", `/webhooks/sources/${id}/secret`);

/** Sign and send a body to a source's ingest URL. */
async function ingest(id: string, body: object, secret?: string) {
  const raw = JSON.stringify(body);
  const { createHmac } = await import("node:crypto");
  const signature = secret ? `sha256=${createHmac("sha256", secret).update(raw).digest("hex")}` : (await control(emu(), "POST", `/webhooks/sources/${id}/sign`, { body: raw })).signature;
  return call(emu(), "POST", `/webhooks/v1/ingest/${id}`, { raw, headers: { "content-type": "application/json", "x-webhook-signature": signature } });
}

describe("Source: lifecycle and call counts", () => {
  it("generic without a secret: one POST; the generated secret is an output, everything else plain JSON", async () => {
    const { calls, result } = await d().calls(() => d().create({ provider: "generic", name: "in" }));
    expect(calls).toEqual(["POST /v1/sources"]);
    expect(result.outs).toMatchObject({ provider: "generic", name: "in", projectId: ws.project_id, eventTypeSource: "provider", captureEnabled: false, status: "enabled", secret: null });
    expect(result.outs.generatedSecret).toMatch(/^whsec_/);
    expect(result.outs.generatedSecret).toBe((await secretsOf(result.id)).secret);
    expect(result.outs.ingestUrl).toBe(`${emu().webhooksUrl}/v1/ingest/${result.id}`);
    for (const [k, v] of Object.entries(result.outs)) expect(v, k).not.toBeUndefined();
  });

  it("payments with its secret: kept (write-only), never read back; read gives the same outputs; no-op no write", async () => {
    const declared = { provider: "payments", secret: SECRET, eventTypePrefix: "pay." };
    const { id, outs } = await d().create(declared);
    expect(outs).toMatchObject({ secret: SEALED, generatedSecret: null, eventTypePrefix: "pay." });
    expect((await secretsOf(id)).secret).toBe(SECRET);
    const read = await provider.read!(id, outs);
    expect(read.props).toEqual({ ...outs, updatedAt: read.props!.updatedAt });
    const { writes } = await d().calls(() => d().update(id, read.props!, declared));
    expect(writes).toEqual([]);
  });

  it("several patch fields: one PATCH; status disabled: one PATCH; created disabled: POST then PATCH", async () => {
    const declared = { provider: "generic", name: "a" };
    const { id, outs } = await d().create(declared);
    const several = await d().calls(() => d().update(id, outs, { ...declared, name: "b", captureEnabled: true, eventTypeSource: "header", eventTypeKey: "X-Type", defaultEventType: "misc.event" }));
    expect(several.writes).toEqual([`PATCH /v1/sources/${id}`]);
    expect(several.result.diff.replaces).toEqual([]);
    expect(several.result.outs).toMatchObject({ name: "b", captureEnabled: true, eventTypeSource: "header", eventTypeKey: "X-Type", defaultEventType: "misc.event" });
    const disabled = await d().calls(() => d().update(id, several.result.outs, { ...declared, name: "b", captureEnabled: true, eventTypeSource: "header", eventTypeKey: "X-Type", defaultEventType: "misc.event", status: "disabled" }));
    expect(disabled.writes).toEqual([`PATCH /v1/sources/${id}`]);
    expect(disabled.result.outs.status).toBe("disabled");
    const created = await d().calls(() => d().create({ provider: "generic", status: "disabled" }));
    expect(created.calls).toEqual(["POST /v1/sources", `PATCH /v1/sources/${created.result.id}`]);
  });

  it("a secret change is exactly one rotate-secret with the new value, no replacement; the old one verifies for the overlap", async () => {
    const declared = { provider: "payments", secret: SECRET };
    const { id, outs } = await d().create(declared);
    const { result, writes } = await d().calls(() => d().update(id, outs, { ...declared, secret: SECRET2 }));
    expect(result.diff).toMatchObject({ changes: true, replaces: [] });
    expect(writes).toEqual([`POST /v1/sources/${id}/rotate-secret`]);
    expect(result.outs).toMatchObject({ secret: SEALED, generatedSecret: null });
    expect(result.outs.secret).not.toEqual(outs.secret);
    expect(await secretsOf(id)).toMatchObject({ secret: SECRET2, previous_secret: SECRET });
    expect((await ingest(id, { type: "invoice.paid" }, SECRET2)).status).toBe(202);
    expect((await ingest(id, { type: "invoice.paid" }, SECRET)).status).toBe(202);
  });

  it("generic: giving a secret later rotates to it (generatedSecret cleared); removing it rotates to a generated one", async () => {
    const { id, outs } = await d().create({ provider: "generic" });
    const given = await d().calls(() => d().update(id, outs, { provider: "generic", secret: SECRET }));
    expect(given.writes).toEqual([`POST /v1/sources/${id}/rotate-secret`]);
    expect(given.result.outs).toMatchObject({ secret: SEALED, generatedSecret: null });
    const removed = await d().update(id, given.result.outs, { provider: "generic" });
    expect(removed.outs.generatedSecret).toMatch(/^whsec_/);
    expect((await secretsOf(id)).secret).toBe(removed.outs.generatedSecret);
  });

  it("provider change replaces; projectId moves with a PATCH", async () => {
    const p2 = await control(emu(), "POST", "/projects", { workspace_id: ws.workspace_id, name: "p2" });
    const { id, outs } = await d().create({ provider: "generic" });
    const diff = async (news: Props) => provider.diff!(id, outs, (await d().check(news, outs)).inputs);
    expect(await diff({ provider: "codehost", secret: SECRET })).toMatchObject({ changes: true, replaces: ["provider"], deleteBeforeReplace: false });
    const moved = await d().calls(() => d().update(id, outs, { provider: "generic", projectId: p2.id }));
    expect(moved.writes).toEqual([`PATCH /v1/sources/${id}`]);
    expect(moved.result.outs.projectId).toBe(p2.id);
  });

  it("delete, and delete again (already gone)", async () => {
    const { id, outs } = await d().create({ provider: "generic" });
    const { writes } = await d().calls(() => provider.delete!(id, outs));
    expect(writes).toEqual([`DELETE /v1/sources/${id}`]);
    await expect(provider.delete!(id, outs)).resolves.toBeUndefined();
  });

  it("refresh after an out-of-band change shows the drift (secret kept); after an out-of-band delete drops it", async () => {
    const declared = { provider: "payments", secret: SECRET, name: "mine" };
    const { id, outs } = await d().create(declared);
    await d().raw("PATCH", `/v1/sources/${id}`, ws.webhooks.admin, { name: "theirs", capture_enabled: true });
    const read = await provider.read!(id, outs);
    expect(read.inputs).toMatchObject({ provider: "payments", name: "theirs", captureEnabled: true, secret: SEALED });
    const { writes } = await d().calls(() => d().update(id, read.props!, declared));
    expect(writes).toEqual([`PATCH /v1/sources/${id}`]);
    await d().raw("DELETE", `/v1/sources/${id}`, ws.webhooks.admin);
    expect(await provider.read!(id, outs)).toEqual({});
  });

  it("adoptId: read, one PATCH, and the declared secret applied with rotate-secret; no POST", async () => {
    const existing = await d().raw("POST", "/v1/sources", ws.webhooks.admin, { provider: "payments", secret: "old", name: "old" });
    const id = existing.body.id as string;
    const { calls, result } = await d().calls(() => d().create({ provider: "payments", secret: SECRET, name: "new", adoptId: id }));
    // The check's read (is it there? engine/adoption.ts), then the create's own.
    expect(calls).toEqual([`GET /v1/sources/${id}`, `GET /v1/sources/${id}`, `PATCH /v1/sources/${id}`, `POST /v1/sources/${id}/rotate-secret`]);
    expect(result).toMatchObject({ id, outs: { name: "new", secret: SEALED } });
    // A create-only field the source holds otherwise: the preview says so (engine/adoption.ts), the create too.
    expect((await d().check({ provider: "generic", adoptId: id })).failures).toEqual([{ property: "provider", reason: expect.stringMatching(/has provider "payments" but "generic" is declared/) }]);
    const err = await provider.create({ provider: "generic", adoptId: id }).catch((e) => e);
    expect(err.message).toMatch(/has provider "payments" but "generic" is declared/);
  });
});

describe("Source: refusals", () => {
  it.each([
    { what: "payments without a secret", news: { provider: "payments" }, want: [["secret", /provider_secret_required, provider "payments"/]] },
    { what: "codehost without a secret", news: { provider: "codehost" }, want: [["secret", /provider_secret_required, provider "codehost"/]] },
    { what: "broker without a secret", news: { ...BROKER, secret: undefined }, want: [["secret", /provider_secret_required, provider "broker"/]] },
    { what: "broker without its fields", news: { provider: "broker", secret: "pw", brokerHost: "mq.example.com" }, want: ["brokerIdentifier", "brokerUser", "brokerExchange", "brokerTopic"].map((p) => [p, /webhooks.broker_fields_required/]) },
    { what: "broker port out of range", news: { ...BROKER, brokerPort: 70000 }, want: [["brokerPort", /less_than_equal, limit 65535/]] },
    { what: "broker port zero", news: { ...BROKER, brokerPort: 0 }, want: [["brokerPort", /greater_than_equal, limit 1/]] },
    { what: "unknown queue kind", news: { ...BROKER, brokerQueues: "lazy" }, want: [["brokerQueues", /enum/]] },
    { what: "private broker host", news: { ...BROKER, brokerHost: "10.1.2.3", brokerPort: 5673 }, want: [["brokerHost", /broker_not_allowed, host "10.1.2.3:5673"/]] },
    { what: "header source without a key", news: { provider: "generic", eventTypeSource: "header" }, want: [["eventTypeKey", /missing/]] },
    { what: "unknown provider", news: { provider: "smtp" }, want: [["provider", /enum/]] },
    { what: "a secret not known yet is not judged", news: { provider: "payments", secret: UNKNOWN }, want: [] },
  ])("$what", async ({ news, want }) => {
    const { failures } = await d().check(news as Props);
    expect((failures ?? []).map((f) => f.property)).toEqual(want.map(([p]) => p));
    want.forEach(([, re], i) => expect(failures![i]!.reason).toMatch(re as RegExp));
  });

  it("a provider's secret the object has but the resource never applied (imported) is not demanded; a replacement's and a dropped one's still are", async () => {
    const imported = { provider: "codehost", name: "hooks" };
    expect((await d().check(imported, imported)).failures).toEqual([]);
    // Another provider: a new source is made, which needs its secret.
    expect((await d().check({ provider: "payments" }, imported)).failures!.map((f) => f.property)).toEqual(["secret"]);
    // A secret the resource applied, then left out of the program: the rotate-secret that clears it would be refused.
    expect((await d().check(imported, { ...imported, secret: SECRET })).failures!.map((f) => f.property)).toEqual(["secret"]);
  });

  it("broker_sources at preview on a plan without it: names the plan and the feature; the plan is read once", async () => {
    ws = await useWorkspace(emu(), provider, "free");
    const { result, calls } = await d().calls(async () => [await d().check(BROKER), await d().check({ ...BROKER, brokerTopic: "x" }), await d().check({ provider: "generic" })]);
    expect(calls).toEqual(["GET /v1/workspace"]);
    expect(result[0]!.failures).toEqual([{ property: "provider", reason: expect.stringMatching(/plan "free" does not include broker_sources \(402 not_entitled, feature broker_sources\)/) }]);
    expect(result[2]!.failures).toEqual([]);
    // The service's own refusal, if the preview was skipped, is explained too.
    const err = await provider.create({ ...BROKER, eventTypeSource: "provider", captureEnabled: false }).catch((e) => e);
    expect(err).toMatchObject({ status: 402, code: "not_entitled" });
    expect(err.message).toMatch(/does not include broker_sources.*Upgrade the plan/);
    expect(err.message).not.toContain("broker-pw-1");
  });

  it("a broker source on a downgraded plan may still be renamed, not have its broker fields changed", async () => {
    const { id, outs } = await d().create(BROKER);
    await control(emu(), "PATCH", `/workspaces/${ws.workspace_id}`, { plan: "free" });
    newOperation();
    expect((await d().check({ ...BROKER, name: "renamed" }, { ...BROKER, eventTypeSource: "provider", captureEnabled: false })).failures).toEqual([]);
    // (Driver.update checks as a create; the engine checks against the old inputs, as above.)
    const inputs = (await d().check({ ...BROKER, name: "renamed" }, outs)).inputs;
    const renamed = await d().calls(() => provider.update!(id, outs, inputs));
    expect(renamed.writes).toEqual([`PATCH /v1/sources/${id}`]);
    const checked = await d().check({ ...BROKER, brokerTopic: "other" }, { ...BROKER, eventTypeSource: "provider", captureEnabled: false });
    expect(checked.failures).toEqual([{ property: "provider", reason: expect.stringMatching(/broker_sources/) }]);
  });

  it("rotate-secret refused (provider_secret_required) is explained; no secret in the message", async () => {
    const { id, outs } = await d().create({ provider: "codehost", secret: SECRET });
    const err = await provider.update!(id, outs, { ...outs, secret: undefined }).catch((e) => e);
    expect(err).toMatchObject({ status: 422, code: "provider_secret_required" });
    expect(err.message).toMatch(/set `secret` to the new value/);
    expect(err.message).not.toContain(SECRET);
  });

  it("the service's own 422 names the camelCase property and never the secret", async () => {
    const err = await provider.create({ provider: "payments", secret: SECRET, brokerPort: 0 }).catch((e) => e);
    expect(err.message).toMatch(/brokerPort: .*greater_than_equal/);
    expect(err.message).not.toContain(SECRET);
  });
});
