/**
 * What is the Endpoint's own, against the emulator over HTTP: outputs as plain JSON,
 * several fields in one PATCH, write-only headers, status and enable, rotation,
 * replace rules, header drift, adoption, verification, the mapped refusals, retries,
 * and no secret in any message. No-op and each field's call are the lifecycle
 * contract's (test/lifecycle/contract.test.ts).
 */
import { afterAll, beforeEach, describe, expect, it, vi } from "vitest";
import { closeSharedDispatcher, providers, PartialFailure } from "../../provider";
import { newOperation } from "../support/operation";
import { control, useEmulator } from "../support/emulator";
import { configure, Driver, useWorkspace, type Props, type Workspace } from "./support";

const provider = providers["webhooks:Endpoint"]!;
const emu = useEmulator();
const d = () => new Driver(emu(), provider);
afterAll(() => closeSharedDispatcher());

let n = 0;
const url = () => `https://hooks-${++n}.example.com/in`;
const HEADER_VALUE = "Bearer header-value-7f3a";

describe("Endpoint: lifecycle and call counts", () => {
  let ws: Workspace;
  beforeEach(async () => {
    ws = await useWorkspace(emu(), provider);
  });

  it("create is one call and returns every output as plain JSON", async () => {
    const checked = await d().check({ url: url(), subscriptions: [{ eventType: "order.*" }], customHeaders: { "X-Team": HEADER_VALUE }, maxAttempts: 4, retrySchedule: [5, 60], description: "orders" });
    expect(checked.failures).toEqual([]);
    // check read the plan once (GET /v1/workspace) to judge maxAttempts; create itself is one call.
    const { result, calls } = await d().calls(() => provider.create(checked.inputs));
    expect(calls).toEqual(["POST /v1/endpoints"]);
    const { id, outs } = result as { id: string; outs: Props };
    expect(id).toMatch(/^ep_/);
    expect(outs).toMatchObject({
      subscriptions: [{ eventType: "order.*" }],
      // Sealed (engine/sealed.ts): the names, never the value.
      customHeaders: { "X-Team": expect.stringMatching(/^hmac-sha256:/) },
      customHeaderNames: ["X-Team"],
      maxAttempts: 4,
      retrySchedule: [5, 60],
      projectId: ws.project_id,
      status: "enabled",
      verified: false,
      suspension: null,
      drainTimeoutSeconds: 0,
      verify: false,
    });
    expect(outs.signingSecret).toMatch(/^whsec_/);
    expect(JSON.stringify(outs)).not.toContain("undefined");
    expect(JSON.stringify(outs)).not.toContain(HEADER_VALUE);
    for (const [k, v] of Object.entries(outs)) expect(v, k).not.toBeUndefined();
  });

  it("one patch field: one PATCH; several patch fields: still one PATCH", async () => {
    const declared = { url: url(), description: "a", maxAttempts: 3 };
    const { id, outs } = await d().create(declared);
    const one = await d().calls(() => d().update(id, outs, { ...declared, description: "b" }));
    expect(one.writes).toEqual([`PATCH /v1/endpoints/${id}`]);
    expect(one.result.outs.description).toBe("b");
    const several = await d().calls(() => d().update(id, one.result.outs, { ...declared, description: "c", maxAttempts: 5, customHeaders: { "X-B": "2" }, deliveryTimeoutMs: 5000 }));
    expect(several.writes).toEqual([`PATCH /v1/endpoints/${id}`]);
    expect(several.result.outs).toMatchObject({ description: "c", maxAttempts: 5, customHeaders: { "X-B": expect.stringMatching(/^hmac-sha256:/) }, customHeaderNames: ["X-B"], deliveryTimeoutMs: 5000 });
  });

  it("a custom header value change (write-only) is seen and PATCHed; names are read back", async () => {
    const declared = { url: url(), customHeaders: { "X-A": "1" } };
    const { id, outs } = await d().create(declared);
    const { result, writes } = await d().calls(() => d().update(id, outs, { ...declared, customHeaders: { "X-A": "2" } }));
    expect(result.diff.changes).toBe(true);
    expect(writes).toEqual([`PATCH /v1/endpoints/${id}`]);
    expect(result.outs.customHeaders).toEqual({ "X-A": expect.stringMatching(/^hmac-sha256:/) });
    expect(result.outs.customHeaders).not.toEqual(outs.customHeaders);
  });

  it("projectId and secret changes replace; url does not", async () => {
    const project2 = await control(emu(), "POST", "/projects", { workspace_id: ws.workspace_id, name: "p2" });
    const declared = { url: url(), secret: "whsec_first" };
    const { id, outs } = await d().create(declared);
    // Declared: not repeated in the outputs (engine/sealed.ts).
    expect(outs.signingSecret).toBeNull();
    const check = async (news: Props) => provider.diff!(id, outs, (await d().check(news)).inputs);
    expect(await check({ ...declared, projectId: project2.id })).toMatchObject({ changes: true, replaces: ["projectId"], deleteBeforeReplace: false });
    expect(await check({ ...declared, secret: "whsec_second" })).toMatchObject({ changes: true, replaces: ["secret"] });
    expect(await check({ ...declared, url: url() })).toMatchObject({ changes: true, replaces: [] });
    expect(await check({ ...declared, projectId: ws.project_id })).toMatchObject({ changes: false });
  });

  it("status: disabled is a PATCH; enabled on an auto-disabled endpoint is POST /enable", async () => {
    const declared = { url: url() };
    const { id, outs } = await d().create(declared);
    const disabled = await d().calls(() => d().update(id, outs, { ...declared, status: "disabled" }));
    expect(disabled.writes).toEqual([`PATCH /v1/endpoints/${id}`]);
    expect(disabled.result.outs.status).toBe("disabled");
    await control(emu(), "POST", `/webhooks/endpoints/${id}/status`, { status: "auto_disabled" });
    const refreshed = await provider.read!(id, disabled.result.outs);
    expect(refreshed.props!.status).toBe("auto_disabled");
    const enabled = await d().calls(() => d().update(id, refreshed.props!, { ...declared, status: "enabled" }));
    expect(enabled.writes).toEqual([`POST /v1/endpoints/${id}/enable`]);
    expect(enabled.result.outs.status).toBe("enabled");
  });

  it("status declared disabled at create: POST then one PATCH", async () => {
    const inputs = await d().checked({ url: url(), status: "disabled" });
    const { calls, result } = await d().calls(() => provider.create(inputs));
    expect(calls).toEqual(["POST /v1/endpoints", `PATCH /v1/endpoints/${result.id}`]);
    expect(result.outs.status).toBe("disabled");
  });

  it("secretRotation change calls rotate-secret and updates signingSecret", async () => {
    const declared = { url: url(), secretRotation: 1 };
    const { id, outs } = await d().create(declared);
    const { writes, result } = await d().calls(() => d().update(id, outs, { ...declared, secretRotation: 2 }));
    expect(writes).toEqual([`POST /v1/endpoints/${id}/rotate-secret`]);
    expect(result.outs.signingSecret).toMatch(/^whsec_/);
    expect(result.outs.signingSecret).not.toBe(outs.signingSecret);
    expect(result.outs.secretRotation).toBe(2);
  });

  it("a rotate-secret whose answer was lost (not sent twice) says the service may have rotated; the next up converges", async () => {
    const declared = { url: url(), secretRotation: 1 };
    const { id, outs } = await d().create(declared);
    await control(emu(), "POST", "/faults", { method: "POST", path: `/webhooks/v1/endpoints/${id}/rotate-secret`, drop_after_response: true, count: 1 });
    const err = await d().update(id, outs, { ...declared, secretRotation: 2 }).catch((e: Error) => e);
    expect((err as Error).message).toMatch(/rotate-secret: no answer from the service \(.+\).*It was sent: the service may have acted on it, and the next run sees what it did\./);
    const again = await d().calls(() => d().update(id, outs, { ...declared, secretRotation: 2 }));
    expect(again.writes).toEqual([`POST /v1/endpoints/${id}/rotate-secret`]);
  });

  it("delete, and delete again (already gone)", async () => {
    const { id, outs } = await d().create({ url: url() });
    const { writes } = await d().calls(() => provider.delete!(id, outs));
    expect(writes).toEqual([`DELETE /v1/endpoints/${id}`]);
    await expect(provider.delete!(id, outs)).resolves.toBeUndefined();
  });

  it("refresh after an out-of-band change shows the drift in inputs; after an out-of-band delete drops it", async () => {
    const declared = { url: url(), description: "mine", customHeaders: { "X-A": HEADER_VALUE } };
    const { id, outs } = await d().create(declared);
    await d().raw("PATCH", `/v1/endpoints/${id}`, ws.webhooks.admin, { description: "theirs", custom_headers: { "X-A": "changed", "X-Extra": "1" } });
    const read = await provider.read!(id, outs);
    // The header map was written outside Pulumi (its names changed): no value is known to be the one applied.
    expect(read.props).toMatchObject({ description: "theirs", customHeaderNames: ["X-A", "X-Extra"], customHeaders: { "X-A": null, "X-Extra": null } });
    expect(read.inputs).toMatchObject({ url: declared.url, description: "theirs", customHeaders: { "X-A": null, "X-Extra": null } });
    // The next up puts it back: description and the headers in one PATCH (the engine's own path: test/ownership/write-only.test.ts).
    const { writes } = await d().calls(() => d().update(id, read.props!, declared));
    expect(writes).toEqual([`PATCH /v1/endpoints/${id}`]);
    await d().raw("DELETE", `/v1/endpoints/${id}`, ws.webhooks.admin);
    expect(await provider.read!(id, outs)).toEqual({});
  });

  it("Resource.get-style read with no state", async () => {
    const { id } = await d().create({ url: url(), description: "x" });
    const read = await provider.read!(id, {});
    expect(read.props).toMatchObject({ description: "x", signingSecret: null, customHeaders: null });
  });

  it("adoptId: create reads the endpoint and brings it to the declared state with PATCH/PUT, no POST", async () => {
    const existing = await d().raw("POST", "/v1/endpoints", ws.webhooks.admin, { url: "https://old.example.com/h", description: "old" });
    const id = existing.body.id as string;
    const declared = { url: "https://new.example.com/h", description: "new", subscriptions: [{ eventType: "x.*" }], adoptId: id };
    const { calls, result } = await d().calls(() => d().create(declared));
    expect(result.id).toBe(id);
    // The check's read (is it there? engine/adoption.ts), then the create's own.
    expect(calls).toEqual([`GET /v1/endpoints/${id}`, `GET /v1/endpoints/${id}`, `PATCH /v1/endpoints/${id}`, `PUT /v1/endpoints/${id}/subscriptions`]);
    expect(result.outs).toMatchObject({ url: declared.url, description: "new", subscriptions: [{ eventType: "x.*" }], adoptId: id });
    const again = await d().calls(() => d().update(id, result.outs, declared));
    expect(again.writes).toEqual([]);
  });

  it("adoptId under a profile: the adopted endpoint keeps the profile, and the next up changes nothing (adv14c F1: every up replaced it)", async () => {
    await configure(provider, { "svc:webhooksUrl": emu().webhooksUrl, "svc:webhooksApiKey": ws.webhooks.admin, "svc:profiles": JSON.stringify({ whA: { webhooksUrl: emu().webhooksUrl, webhooksApiKey: ws.webhooks.admin } }) });
    const id = (await d().raw("POST", "/v1/endpoints", ws.webhooks.admin, { url: "https://old.example.com/p" })).body.id as string;
    const declared = { url: "https://old.example.com/p", adoptId: id, profile: "whA" };
    const { outs } = await d().create(declared);
    expect(outs.profile).toBe("whA");
    newOperation();
    const again = await d().calls(() => d().update(id, outs, declared));
    expect(again.result.diff).toMatchObject({ changes: false });
    expect(again.writes).toEqual([]);
  });

  it("an adoptId that is another resource's output, known only at up, of an endpoint that resource made in this run: refused before any write (adv14c F3)", async () => {
    const made = await d().create({ url: url() });
    const { failures } = await d().check({ url: url(), adoptId: made.id, resourceName: "adopter" });
    expect(failures).toEqual([{ property: "adoptId", reason: expect.stringMatching(/would be held by two resources of this stack/) }]);
  });

  it("adoptId of a missing endpoint fails the preview naming it (test/provider/predictable-refusals.test.ts has the words)", async () => {
    const { failures } = await d().check({ url: url(), adoptId: "ep_missing" });
    expect(failures).toEqual([{ property: "adoptId", reason: expect.stringMatching(/^adoptId ep_missing: no endpoint/) }]);
  });
});

describe("Endpoint: verification", () => {
  beforeEach(async () => {
    await useWorkspace(emu(), provider);
  });

  it("verify: true calls /verify after create and keeps verified", async () => {
    const inputs = await d().checked({ url: url(), verify: true });
    const { calls, result } = await d().calls(() => provider.create(inputs));
    expect(calls).toEqual(["POST /v1/endpoints", `POST /v1/endpoints/${result.id}/verify`]);
    expect(result.outs.verified).toBe(true);
  });

  it("a failed verification keeps the resource (partial failure with id, properties, reasons) and names the failure_reason", async () => {
    await control(emu(), "PUT", "/webhooks/targets/down.example.com", { result: "connection_failed" });
    const err = await d().create({ url: "https://down.example.com/h", verify: true, __provider: "shim" }).catch((e) => e);
    expect(err).toBeInstanceOf(PartialFailure);
    expect(err.id).toMatch(/^ep_/);
    expect(err.properties).toMatchObject({ url: "https://down.example.com/h", verified: false, __provider: "shim" });
    // The engine shows the reasons alone: they carry the whole explanation.
    expect(err.reasons).toEqual([err.message]);
    expect(err.message).toMatch(/not verified \(connection_failed.*Set verify: false to skip verification/);
  });

  it("a URL change with verify: true verifies again", async () => {
    const declared = { url: url(), verify: true };
    const { id, outs } = await d().create(declared);
    const next = url();
    const { writes, result } = await d().calls(() => d().update(id, outs, { ...declared, url: next }));
    expect(writes).toEqual([`PATCH /v1/endpoints/${id}`, `POST /v1/endpoints/${id}/verify`]);
    expect(result.outs.verified).toBe(true);
  });
});

describe("Endpoint: refusals mapped to the reason and the fix", () => {
  it("the endpoint allocation: the preview fails for the fourth endpoint on free (limit, current), counting those planned in the same run; the create's refusal names both", async () => {
    newOperation();
    const ws = await useWorkspace(emu(), provider, "free");
    await d().raw("POST", "/v1/endpoints", ws.webhooks.admin, { url: url() });
    const existing = (await d().raw("POST", "/v1/endpoints", ws.webhooks.admin, { url: url() })).body as { id: string };
    expect((await d().check({ url: url() })).failures).toEqual([]); // the third: 2 live + this one
    expect((await d().check({ url: url() })).failures).toEqual([{ property: "url", reason: expect.stringMatching(/plan allows 3 endpoints and 3 exist or are planned \(quota_exceeded, reason allocation, metric endpoints\)\. Delete endpoints/) }]);
    // An adopted endpoint exists already, and an existing one's update creates nothing: neither counts.
    expect((await d().check({ url: url(), adoptId: existing.id })).failures).toEqual([]);
    expect((await d().check({ url: url() }, { url: url() })).failures).toEqual([]);
    await d().raw("POST", "/v1/endpoints", ws.webhooks.admin, { url: url() });
    const err = await provider.create({ url: url(), subscriptions: [] }).catch((e) => e);
    expect(err.message).toMatch(/plan allows 3 endpoints and 3 exist/);
    expect(err).toMatchObject({ status: 402, code: "quota_exceeded" });
  });

  it("an unchanged maxAttempts above a plan lowered since: the preview warns naming the fix instead of failing; a new value above it fails", async () => {
    newOperation();
    const ws = await useWorkspace(emu(), provider, "pro");
    const declared = { url: url(), maxAttempts: 10 };
    const { inputs } = await d().create(declared);
    await control(emu(), "PATCH", `/workspaces/${ws.workspace_id}`, { plan: "free" });
    newOperation();
    const warned: string[] = [];
    const stderr = vi.spyOn(process.stderr, "write").mockImplementation((chunk) => (warned.push(String(chunk)), true));
    try {
      expect((await d().check(declared, inputs)).failures).toEqual([]);
    } finally {
      stderr.mockRestore();
    }
    expect(warned.join("")).toMatch(/maxAttempts 10 is above the workspace plan's ceiling of 5 .*Lower maxAttempts to 5 or less, or upgrade/);
    expect((await d().check({ ...declared, maxAttempts: 9 }, inputs)).failures).toEqual([{ property: "maxAttempts", reason: expect.stringMatching(/count 5.*Lower maxAttempts to 5/) }]);
  });

  it("max_attempts above the plan fails the preview (plan read once) and the create names the ceiling", async () => {
    newOperation();
    await useWorkspace(emu(), provider, "free");
    const checked = await d().check({ url: url(), maxAttempts: 10 });
    expect(checked.failures).toEqual([{ property: "maxAttempts", reason: expect.stringMatching(/webhooks.max_attempts_above_plan, count 5.*Lower maxAttempts to 5/) }]);
    const err = await provider.create({ url: url(), maxAttempts: 10, subscriptions: [] }).catch((e) => e);
    expect(err.message).toMatch(/maxAttempts 10 is above the plan's ceiling of 5/);
    // The plan is read once per process per connection.
    const { calls } = await d().calls(async () => {
      await d().check({ url: url(), maxAttempts: 2 });
      await d().check({ url: url(), maxAttempts: 3 });
    });
    expect(calls).toEqual([]);
  });

  it("enabling an endpoint the state thinks is disabled but the service auto-disabled: the 409 says to refresh", async () => {
    await useWorkspace(emu(), provider);
    const declared = { url: url(), status: "disabled" };
    const { id, outs } = await d().create(declared);
    await control(emu(), "POST", `/webhooks/endpoints/${id}/status`, { status: "auto_disabled" });
    const err = await d().update(id, outs, { ...declared, status: "enabled" }).catch((e) => e);
    expect(err).toMatchObject({ status: 409, reason: "endpoint_auto_disabled" });
    expect(err.message).toMatch(/disabled automatically.*pulumi refresh.*POST \/enable/);
  });

  it("workspace_suspended says the service is stopped and to settle the payment", async () => {
    const ws = await useWorkspace(emu(), provider);
    const { id, outs } = await d().create({ url: url() });
    await control(emu(), "PATCH", `/workspaces/${ws.workspace_id}`, { suspended: true });
    const err = await provider.read!(id, outs).catch((e) => e);
    expect(err).toMatchObject({ status: 402, code: "workspace_suspended" });
    expect(err.message).toMatch(/suspended.*Settle the payment/);
  });

  it("workspace_frozen says to settle the payment", async () => {
    const ws = await useWorkspace(emu(), provider);
    const { id, outs } = await d().create({ url: url() });
    await control(emu(), "PATCH", `/workspaces/${ws.workspace_id}`, { frozen: true });
    const err = await d().update(id, outs, { url: url() }).catch((e) => e);
    expect(err).toMatchObject({ status: 402, code: "workspace_frozen" });
    expect(err.message).toMatch(/frozen.*Settle the payment/);
  });

  it("a read-only key names the scope and the config key", async () => {
    const ws = await useWorkspace(emu(), provider);
    await configure(provider, { "svc:webhooksUrl": emu().webhooksUrl, "svc:webhooksApiKey": ws.webhooks.read });
    const err = await provider.create({ url: url(), subscriptions: [] }).catch((e) => e);
    expect(err.message).toMatch(/svc:webhooksApiKey.*needs the admin scope/);
    expect(err.message).not.toContain(ws.webhooks.read);
  });

  it("an unknown project names projectId", async () => {
    await useWorkspace(emu(), provider);
    const err = await provider.create({ url: url(), projectId: "proj_nope", subscriptions: [] }).catch((e) => e);
    expect(err.message).toMatch(/project proj_nope does not exist/);
  });

  it("the API's own 422 names the camelCase property, type and limit, and never the value", async () => {
    await useWorkspace(emu(), provider);
    const err = await provider.create({ url: url(), customHeaders: { "X-A": HEADER_VALUE + "v".repeat(1100) }, subscriptions: [] }).catch((e) => e);
    expect(err.message).toMatch(/customHeaders: .*webhooks.custom_header_value_too_long.*1024/);
    expect(err.message).not.toContain("header-value-7f3a");
  });

  it("delete with pending deliveries: waits drainTimeoutSeconds, then fails saying it is disabled, how many, and what to do", async () => {
    const ws = await useWorkspace(emu(), provider);
    const { id, outs } = await d().create({ url: url(), subscriptions: [{ eventType: "order.*" }], drainTimeoutSeconds: 1 });
    await d().raw("POST", "/v1/events", ws.webhooks.admin, { event_type: "order.created", payload: {} });
    await d().raw("POST", "/v1/events", ws.webhooks.admin, { event_type: "order.created", payload: {} });
    const started = Date.now();
    const err = await provider.delete!(id, outs).catch((e) => e);
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);
    expect(err.message).toMatch(/was not deleted: 2 deliveries are still pending .* after waiting 1 s\. The service disabled the endpoint while refusing; it was enabled again/);
    expect(err.message).toMatch(/drainTimeoutSeconds/);
    // It stays in the state as it was: enabled, as the service holds it again.
    expect((await provider.read!(id, outs)).props!.status).toBe("enabled");
  });

  // adv14b F13: the CLI showed a refused delete's message twice: as the resource's error, and again as the stack-level
  // line the dynamic-provider plugin prints for a failed delete (`console.error(\`${e}: ${e.stack}\`)`, cmd/dynamic-provider).
  it("a refused delete's message is printed once: the plugin's own print of the error is dropped, other lines are not", async () => {
    const printed: unknown[][] = [];
    const original = console.error;
    console.error = (...args: unknown[]) => void printed.push(args);
    try {
      const ws = await useWorkspace(emu(), provider); // configure: as the plugin configures the provider
      const { id, outs } = await d().create({ url: url(), subscriptions: [{ eventType: "order.*" }] });
      await d().raw("POST", "/v1/events", ws.webhooks.admin, { event_type: "order.created", payload: {} });
      const e = await provider.delete!(id, outs).catch((err) => err);
      expect(e.message).toMatch(/was not deleted: 1 delivery is still pending/);
      console.error(`${e}: ${e.stack}`); // what the plugin does with it
      console.error("pulumi-svc: another line");
      expect(printed).toEqual([["pulumi-svc: another line"]]);
    } finally {
      console.error = original;
    }
  });

  it("delete with pending deliveries of an endpoint a Diff of this run replaced: not enabled again, the error names it the replaced one", async () => {
    const ws = await useWorkspace(emu(), provider);
    const declared = { url: url(), subscriptions: [{ eventType: "order.*" }], secret: "whsec_first_signing_secret_0001" };
    const { id, outs } = await d().create(declared);
    await d().raw("POST", "/v1/events", ws.webhooks.admin, { event_type: "order.created", payload: {} });
    const checked = await d().check({ ...declared, secret: "whsec_second_signing_secret_002" }, outs);
    const diff = await provider.diff!(id, outs, checked.inputs);
    expect(diff.replaces).toEqual(["secret"]);
    const { result: err, writes } = await d().calls(() => provider.delete!(id, outs).catch((e) => e));
    expect(writes).toEqual([`DELETE /v1/endpoints/${id}`]);
    expect(err.message).toMatch(/was not deleted: 1 delivery is still pending .*old endpoint of a replacement.*left disabled/);
    expect(err.message).not.toContain("enabled again");
    expect((await d().raw("GET", `/v1/endpoints/${id}`, ws.webhooks.admin)).body.status).toBe("disabled");
  });

  it("delete with pending deliveries of an endpoint the service held disabled before (the state says enabled): not enabled again", async () => {
    const ws = await useWorkspace(emu(), provider);
    const { id, outs } = await d().create({ url: url(), subscriptions: [{ eventType: "order.*" }] });
    await d().raw("POST", "/v1/events", ws.webhooks.admin, { event_type: "order.created", payload: {} });
    await d().raw("PATCH", `/v1/endpoints/${id}`, ws.webhooks.admin, { status: "disabled" });
    const { result: err, calls } = await d().calls(() => provider.delete!(id, outs).catch((e) => e));
    expect(calls).toEqual([`GET /v1/endpoints/${id}`, `DELETE /v1/endpoints/${id}`]);
    expect(err.message).toMatch(/was not deleted: 1 delivery is still pending .*held it disabled before this delete.*left disabled/);
    expect((await d().raw("GET", `/v1/endpoints/${id}`, ws.webhooks.admin)).body.status).toBe("disabled");
  });

  it("delete with pending deliveries that drain in time succeeds", async () => {
    const ws = await useWorkspace(emu(), provider);
    const { id, outs } = await d().create({ url: url(), subscriptions: [{ eventType: "**" }], drainTimeoutSeconds: 10 });
    await d().raw("POST", "/v1/events", ws.webhooks.admin, { event_type: "a.b", payload: {} });
    const deleting = provider.delete!(id, outs);
    await new Promise((r) => setTimeout(r, 1200));
    await control(emu(), "POST", `/webhooks/endpoints/${id}/deliveries`, { to: "sent" });
    await expect(deleting).resolves.toBeUndefined();
    expect((await d().raw("GET", `/v1/endpoints/${id}`, ws.webhooks.admin)).status).toBe(404);
  });
});

describe("Endpoint: transport faults", () => {
  beforeEach(async () => {
    await useWorkspace(emu(), provider);
    await control(emu(), "DELETE", "/faults");
  });

  it("429 then success on create: retried, one endpoint", async () => {
    const inputs = await d().checked({ url: url() });
    await control(emu(), "POST", "/faults", { method: "POST", path: "/webhooks/v1/endpoints", status: 429, retry_after: 0, count: 1 });
    const { calls, result } = await d().calls(() => provider.create(inputs));
    expect(calls).toEqual(["POST /v1/endpoints", "POST /v1/endpoints"]);
    expect(result.id).toMatch(/^ep_/);
  });

  it("500 on read (GET) is retried", async () => {
    const { id, outs } = await d().create({ url: url() });
    await control(emu(), "POST", "/faults", { method: "GET", path: `/webhooks/v1/endpoints/${id}`, status: 500, count: 1 });
    const { calls, result } = await d().calls(() => provider.read!(id, outs));
    expect(calls).toEqual([`GET /v1/endpoints/${id}`, `GET /v1/endpoints/${id}`]);
    expect(result.id).toBe(id);
  });

  it("500 on create: listings until the window has passed find nothing made, so the create is sent again once (no duplicate)", async () => {
    const inputs = await d().checked({ url: url() });
    await control(emu(), "POST", "/faults", { method: "POST", path: "/webhooks/v1/endpoints", status: 500, count: 1 });
    process.env.SVC_RECONCILE_WINDOW_SECONDS = "1";
    const { calls, result } = await d()
      .calls(() => provider.create(inputs))
      .finally(() => delete process.env.SVC_RECONCILE_WINDOW_SECONDS);
    expect(calls).toEqual(["POST /v1/endpoints", "GET /v1/endpoints", "POST /v1/endpoints"]);
    expect(result.id).toMatch(/^ep_/);
  });

  it("500 on create and the listing refused too: the message says it may exist and how to adopt it", async () => {
    const inputs = await d().checked({ url: url() });
    await control(emu(), "POST", "/faults", { method: "POST", path: "/webhooks/v1/endpoints", status: 500, count: 1 });
    await control(emu(), "POST", "/faults", { method: "GET", path: "/webhooks/v1/endpoints", status: 403, count: 1 });
    const { calls, result } = await d().calls(() => provider.create(inputs).catch((e) => e));
    expect(calls).toEqual(["POST /v1/endpoints", "GET /v1/endpoints"]);
    expect(result.message).toMatch(/may have been created/);
    expect(result.message).toMatch(/adoptId/);
  });
});

describe("Endpoint: credentials", () => {
  it("a missing key fails check naming the config key and the env variable", async () => {
    const saved = process.env.SVC_WEBHOOKS_API_KEY;
    delete process.env.SVC_WEBHOOKS_API_KEY;
    await configure(provider, { "svc:webhooksUrl": emu().webhooksUrl });
    const checked = await d().check({ url: url() });
    // No profile set: the failure names no property (the default profile's settings are the stack's).
    expect(checked.failures).toEqual([{ property: "", reason: expect.stringMatching(/svc:webhooksApiKey.*SVC_WEBHOOKS_API_KEY/) }]);
    if (saved !== undefined) process.env.SVC_WEBHOOKS_API_KEY = saved;
  });

  it("connections follow the config: a new configure() takes effect at the next operation, an env fallback follows the environment", async () => {
    const first = await control<Workspace>(emu(), "POST", "/workspaces", { plan: "pro" });
    const second = await control<Workspace>(emu(), "POST", "/workspaces", { plan: "pro" });
    await configure(provider, { "svc:webhooksUrl": emu().webhooksUrl, "svc:webhooksApiKey": first.webhooks.admin });
    expect((await d().create({ url: url() })).outs.projectId).toBe(first.project_id);
    await configure(provider, { "svc:webhooksUrl": emu().webhooksUrl, "svc:webhooksApiKey": second.webhooks.admin });
    expect((await d().create({ url: url() })).outs.projectId).toBe(second.project_id);
    // The key from the environment (none in config) is read again at each operation.
    await configure(provider, { "svc:webhooksUrl": emu().webhooksUrl });
    const saved = process.env.SVC_WEBHOOKS_API_KEY;
    try {
      process.env.SVC_WEBHOOKS_API_KEY = first.webhooks.admin;
      expect((await d().create({ url: url() })).outs.projectId).toBe(first.project_id);
      process.env.SVC_WEBHOOKS_API_KEY = second.webhooks.admin;
      expect((await d().create({ url: url() })).outs.projectId).toBe(second.project_id);
    } finally {
      if (saved === undefined) delete process.env.SVC_WEBHOOKS_API_KEY;
      else process.env.SVC_WEBHOOKS_API_KEY = saved;
    }
  });

  it("env fallback, and named profiles from svc:profiles or SVC_PROFILE_<NAME>_*", async () => {
    const ws = await control<Workspace>(emu(), "POST", "/workspaces", { plan: "pro" });
    const other = await control<Workspace>(emu(), "POST", "/workspaces", { plan: "pro" });
    process.env.SVC_WEBHOOKS_URL = emu().webhooksUrl;
    process.env.SVC_WEBHOOKS_API_KEY = ws.webhooks.admin;
    process.env.SVC_PROFILE_OTHER_WS_WEBHOOKS_URL = emu().webhooksUrl;
    process.env.SVC_PROFILE_OTHER_WS_WEBHOOKS_API_KEY = other.webhooks.admin;
    try {
      await configure(provider, { "svc:profiles": JSON.stringify({ staging: { webhooksUrl: emu().webhooksUrl, webhooksApiKey: other.webhooks.admin } }) });
      const a = await d().create({ url: url() });
      const b = await d().create({ url: url(), profile: "staging" });
      const c = await d().create({ url: url(), profile: "other-ws" });
      expect(a.outs.projectId).toBe(ws.project_id);
      expect(b.outs.projectId).toBe(other.project_id);
      expect(c.outs.projectId).toBe(other.project_id);
      const diff = await provider.diff!(b.id, b.outs, (await d().check({ url: b.inputs.url, profile: "other-ws" })).inputs);
      expect(diff.replaces).toEqual(["profile"]);
    } finally {
      for (const k of ["SVC_WEBHOOKS_URL", "SVC_WEBHOOKS_API_KEY", "SVC_PROFILE_OTHER_WS_WEBHOOKS_URL", "SVC_PROFILE_OTHER_WS_WEBHOOKS_API_KEY"]) delete process.env[k];
    }
  });
});
