/**
 * The QuotaRequest resource against the emulator over HTTP, its lifecycle driven
 * through the admin routes (admin infra key): filed (pending), edited with ONE PATCH,
 * flagged for updates and edited back to pending, approved (limits applied, seen by
 * getQuota), rejected, withdrawn on destroy, decided ones dropped with a note;
 * waitForDecision with an approval during the wait and with a timeout; every preview
 * refusal; no duplicate request after a timeout or a create with an unknown outcome.
 */
import { afterAll, beforeEach, describe, expect, it } from "vitest";
import * as svc from "../../sdk";
import { closeSharedDispatcher, PartialFailure, providers } from "../../provider";
import { newOperation } from "../support/operation";
import { call, control, lastSeq, requestsSince, useEmulator } from "../support/emulator";
import { configure, Driver, type Workspace } from "./support";

const provider = providers["infra:QuotaRequest"]!;
// A lost create is looked for over a short reconcile window (svc:reconcileWindowSeconds): waiting out the default 15 s proves nothing more.
process.env.SVC_RECONCILE_WINDOW_SECONDS = "3";

const emu = useEmulator();
const d = () => new Driver(emu(), provider);
afterAll(() => closeSharedDispatcher());

const Q = "/api/v1/quota-request/";
let ws: Workspace;
const admin = (action: "approve" | "reject" | "update", id: string, message?: string) =>
  call(emu(), "POST", `/infra${Q}${action}`, { key: ws.infra.admin, body: { id, ...(message ? { message } : {}) } });
const raw = (method: string, path: string, body?: unknown, key = ws.infra.member) => call(emu(), method, `/infra${path}`, { key, body });
const stateOf = async (id: string) => (await raw("GET", `${Q}?id=${id}`)).body;

/** Capture the provider's notes (stderr) while `fn` runs. */
async function notes<T>(fn: () => Promise<T>): Promise<{ result: T; text: string }> {
  const lines: string[] = [];
  const write = process.stderr.write.bind(process.stderr);
  process.stderr.write = ((chunk: string) => (lines.push(String(chunk)), true)) as typeof process.stderr.write;
  try {
    return { result: await fn(), text: lines.join("") };
  } finally {
    process.stderr.write = write;
  }
}

const VMS = { service: "compute", region: "us-east-1", limits: { vms: 80 }, justification: "launch week load tests" };

beforeEach(async () => {
  ws = await control<Workspace>(emu(), "POST", "/workspaces", { plan: "pro" });
  await configure(provider, { "svc:infraUrl": emu().infraUrl, "svc:infraApiKey": ws.infra.member });
  newOperation();
});

describe("QuotaRequest: lifecycle and call counts", () => {
  it("check reads the current limit and the open requests; create is one POST", async () => {
    const checked = await d().calls(() => d().check(VMS));
    expect(checked.result.failures).toEqual([]);
    expect(checked.calls.sort()).toEqual(["GET /api/v1/quota-request/list", "GET /api/v1/quota/compute"]);
    const { calls, result } = await d().calls(() => provider.create(checked.result.inputs));
    expect(calls).toEqual([`POST ${Q}`]);
    expect(result.id).toMatch(/^qr_/);
    expect(result.outs).toMatchObject({ ...VMS, projectId: ws.project_id, state: "pending", adminMessage: null, decidedAt: null, waitForDecision: 0 });
    expect(result.outs.requestedBy).toMatch(/^key_/);
    expect(JSON.stringify(result.outs)).not.toContain(ws.infra.member);
  });

  it("while pending: limits and justification change with ONE PATCH carrying the id", async () => {
    const { id, outs } = await d().create(VMS);
    const next = { ...VMS, limits: { vms: 90, vcpu: 300 }, justification: "more" };
    const since = await lastSeq(emu());
    const { result, writes } = await d().calls(() => d().update(id, outs, next));
    expect(result.diff).toMatchObject({ changes: true, replaces: [] });
    expect(writes).toEqual([`PATCH ${Q}`]);
    // The id travels in the body only (the spec's PATCH takes no query).
    const patch = (await requestsSince(emu(), since)).find((r) => r.method === "PATCH") as { query?: string } | undefined;
    expect(patch?.query).toBe("");
    expect(result.outs).toMatchObject({ limits: { vms: 90, vcpu: 300 }, justification: "more", state: "pending" });
    expect(await stateOf(id)).toMatchObject({ limits: { vms: 90, vcpu: 300 } });
  });

  it("flagged for updates by an admin: refresh shows it with the message; one PATCH returns it to pending", async () => {
    const { id, outs } = await d().create(VMS);
    await admin("update", id, "say which region");
    const read = await provider.read!(id, outs);
    expect(read.props).toMatchObject({ state: "needs_updates", adminMessage: "say which region" });
    const { result, writes } = await d().calls(() => d().update(id, read.props!, { ...VMS, justification: "us-east-1 launch week" }));
    expect(writes).toEqual([`PATCH ${Q}`]);
    expect(result.outs.state).toBe("pending");
  });

  it("approved: the limits are applied (getQuota sees them); refresh brings state, message and decision time", async () => {
    const { id, outs } = await d().create(VMS);
    await admin("approve", id, "ok for the launch");
    const read = await provider.read!(id, outs);
    expect(read.props).toMatchObject({ state: "approved", adminMessage: "ok for the launch" });
    expect(Date.parse(read.props!.decidedAt)).not.toBeNaN();
    process.env.SVC_INFRA_URL = emu().infraUrl;
    process.env.SVC_INFRA_API_KEY = ws.infra.member;
    try {
      expect(await svc.infra.getQuota("compute", { region: "us-east-1" })).toMatchObject({ service: "compute", projectId: ws.project_id, limits: { vms: 80 } });
    } finally {
      delete process.env.SVC_INFRA_URL;
      delete process.env.SVC_INFRA_API_KEY;
    }
  });

  it("a change once approved replaces it with a new request (the preview says why); the old one leaves the state with a note", async () => {
    const { id, outs } = await d().create(VMS);
    await admin("approve", id);
    const read = await provider.read!(id, outs);
    const next = { ...VMS, limits: { vms: 120 } };
    const { result: diff, text } = await notes(async () => provider.diff!(id, read.props!, (await d().check(next, VMS)).inputs));
    expect(diff).toMatchObject({ changes: true, replaces: ["limits"], deleteBeforeReplace: false });
    expect(text).toMatch(new RegExp(`Quota request ${id} is approved and can no longer be edited: changing limits files a new request`));
    // The engine's replacement: create the new one, then delete the old one.
    newOperation();
    const created = await d().calls(() => d().create(next));
    expect(created.writes).toEqual([`POST ${Q}`]);
    const deleted = await notes(() => d().calls(() => provider.delete!(id, read.props!)));
    expect(deleted.result.writes).toEqual([`DELETE ${Q}`]);
    expect(deleted.text).toMatch(/is approved and cannot be withdrawn; it is dropped from the state \(the limits it raised stay\)/);
    expect((await stateOf(id)).state).toBe("approved");
  });

  it("rejected: waitForDecision fails with the admin's message and keeps the request in the state", async () => {
    const { id, outs } = await d().create(VMS);
    await admin("reject", id, "use another region");
    const err = await provider.update!(id, outs, { ...VMS, waitForDecision: 5 }).catch((e) => e);
    expect(err).toBeInstanceOf(PartialFailure);
    expect(err.id).toBe(id);
    expect(err.message).toMatch(/was rejected: "use another region"/);
    expect(err.properties).toMatchObject({ state: "rejected", adminMessage: "use another region" });
  });

  it("rejected, seen by refresh: the next up fails with the admin's message and files nothing; a change files a new request", async () => {
    const { id, outs } = await d().create(VMS);
    await admin("reject", id, "too many for a test project");
    const read = await provider.read!(id, outs);
    const { result, text } = await notes(() => d().calls(() => d().update(id, read.props!, VMS).catch((e) => e)));
    expect(text).toMatch(/was rejected: "too many for a test project"/);
    expect(result.result).toBeInstanceOf(PartialFailure);
    expect(result.result.message).toMatch(/was rejected: "too many for a test project"/);
    expect(result.writes).toEqual([]);
    const changed = await notes(async () => provider.diff!(id, read.props!, (await d().check({ ...VMS, limits: { vms: 60 } }, VMS)).inputs));
    expect(changed.result).toMatchObject({ changes: true, replaces: ["limits"] });
  });

  it("destroy withdraws an open request (one DELETE); refresh then drops it", async () => {
    const { id, outs } = await d().create(VMS);
    const { writes } = await d().calls(() => provider.delete!(id, outs));
    expect(writes).toEqual([`DELETE ${Q}`]);
    expect((await stateOf(id)).state).toBe("withdrawn");
    expect(await provider.read!(id, outs)).toEqual({});
  });

  it("withdrawn outside Pulumi: refresh drops it; deleted already: delete is a no-op with a note", async () => {
    const { id, outs } = await d().create(VMS);
    await raw("DELETE", `${Q}?id=${id}`);
    expect(await provider.read!(id, outs)).toEqual({});
    const { text } = await notes(() => provider.delete!(id, outs));
    expect(text).toMatch(/withdrawn and cannot be withdrawn; it is dropped from the state/);
  });

  it("decided since the last refresh: the preview of an edit shows the replacement it will be (limits, or justification alone), not an edit the service refuses", async () => {
    const { id, outs } = await d().create(VMS);
    await admin("approve", id);
    for (const edit of [{ limits: { vms: 99 } }, { justification: "launch week, for real" }]) {
      newOperation(); // a new operation, as each preview is
      const checked = await d().check({ ...VMS, ...edit }, VMS);
      expect(checked.failures).toEqual([]);
      const diff = await provider.diff!(id, outs, checked.inputs);
      expect(diff).toMatchObject({ changes: true, replaces: Object.keys(edit), deleteBeforeReplace: false });
    }
    // Still open: an edit (one PATCH), as before.
    const open = await d().create({ ...VMS, region: "eu-west-1" });
    newOperation();
    const checked = await d().check({ ...VMS, region: "eu-west-1", justification: "edited" }, { ...VMS, region: "eu-west-1" });
    expect(await provider.diff!(open.id, open.outs, checked.inputs)).toMatchObject({ changes: true, replaces: [] });
  });

  it("an edit refused because an admin decided meanwhile says to refresh", async () => {
    const { id, outs } = await d().create(VMS);
    await admin("approve", id);
    const err = await provider.update!(id, outs, { ...VMS, limits: { vms: 99 } }).catch((e) => e);
    expect(err).toMatchObject({ status: 409, code: "conflict" });
    expect(err.message).toMatch(/was approved since the state last saw it.*pulumi refresh/);
  });

  it("adoptId takes an open request over: one GET and one PATCH, no POST", async () => {
    const filed = await raw("POST", Q, { ...VMS, limits: { vms: 70 } });
    const checked = await d().check({ ...VMS, adoptId: filed.body.id });
    expect(checked.failures).toEqual([]);
    const { calls, result } = await d().calls(() => provider.create(checked.inputs));
    expect(calls).toEqual([`GET ${Q}`, `PATCH ${Q}`]);
    expect(result).toMatchObject({ id: filed.body.id, outs: { limits: { vms: 80 }, state: "pending" } });
  });
});

describe("QuotaRequest: waiting for a decision", () => {
  it("an approval arriving during the wait: up succeeds with the approved state", async () => {
    const checked = await d().check({ ...VMS, waitForDecision: 20 });
    const creating = d().calls(() => provider.create(checked.inputs));
    await new Promise((r) => setTimeout(r, 700));
    const open = (await raw("GET", `${Q}list?states=pending`)).body.items;
    expect(open).toHaveLength(1);
    await admin("approve", open[0].id, "granted");
    const { result, writes, calls } = await creating;
    expect(result.outs).toMatchObject({ state: "approved", adminMessage: "granted" });
    expect(writes).toEqual([`POST ${Q}`, `POST ${Q}approve`]); // the second is the admin's
    expect(calls.filter((c) => c === `GET ${Q}`).length).toBeGreaterThanOrEqual(1);
  });

  it("a timeout keeps the request (partial failure); the next up waits again and files nothing", async () => {
    const checked = await d().check({ ...VMS, waitForDecision: 1 });
    const started = Date.now();
    const first = await d().calls(() => provider.create(checked.inputs).catch((e) => e));
    const err = first.result;
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);
    expect(err).toBeInstanceOf(PartialFailure);
    expect(err.message).toMatch(/still pending after waiting 1 s.*stays in the state.*no second request is filed/);
    expect(err.properties).toMatchObject({ state: "pending", limits: { vms: 80 } });
    expect(first.writes).toEqual([`POST ${Q}`]);
    // The engine keeps it with its id and runs an update next time: checks pass, no POST.
    const again = await d().calls(async () => {
      const rechecked = await d().check({ ...VMS, waitForDecision: 1 }, checked.inputs);
      expect(rechecked.failures).toEqual([]);
      return provider.update!(err.id, err.properties, rechecked.inputs).catch((e) => e);
    });
    expect(again.writes).toEqual([]);
    expect(again.result).toBeInstanceOf(PartialFailure);
    expect((await raw("GET", `${Q}list`)).body.items).toHaveLength(1);
  });
});

describe("QuotaRequest: preview refusals", () => {
  it("a requested value not above the current limit names the limit", async () => {
    const { failures } = await d().check({ ...VMS, limits: { vms: 50, vcpu: 250 } });
    expect(failures).toEqual([{ property: "limits.vms", reason: expect.stringMatching(/Requested 50 is not above the current limit of 50 for compute in us-east-1/) }]);
  });

  it("an unknown quota name for the service fails always, even unchanged", async () => {
    const bad = { ...VMS, limits: { vms: 80, gpus: 4 } };
    expect((await d().check(bad)).failures).toEqual([{ property: "limits.gpus", reason: expect.stringMatching(/Unknown quota 'gpus' for service compute \(known: vms, vcpu, ram_gb\) \(extra_forbidden\)/) }]);
    expect((await d().check(bad, bad)).failures!.map((f) => f.property)).toEqual(["limits.gpus"]);
  });

  it("a per-region quota without a region, an unknown service, an empty justification", async () => {
    const { failures } = await d().check({ service: "compute", limits: { vms: 80 }, justification: " " });
    expect(failures!.map((f) => f.property).sort()).toEqual(["justification", "region"]);
    expect((await d().check({ ...VMS, service: "gpu-farm" })).failures!.map((f) => f.property)).toEqual(["service"]);
  });

  it("an open request for the same quota that is not this resource fails the preview naming it and adoptId", async () => {
    const filed = await raw("POST", Q, { ...VMS, limits: { vms: 60, vcpu: 300 } });
    const { failures } = await d().check(VMS);
    expect(failures).toEqual([{ property: "limits", reason: expect.stringMatching(new RegExp(`open quota request ${filed.body.id} \\(pending\\) for vms of compute in us-east-1.*adoptId: "${filed.body.id}"`)) }]);
    // Another quota or region is no duplicate.
    expect((await d().check({ ...VMS, limits: { ram_gb: 900 } })).failures).toEqual([]);
    expect((await d().check({ ...VMS, region: "eu-west-1" })).failures).toEqual([]);
  });

  it("two new requests of one program for the same quota: the second one's preview fails naming the first", async () => {
    // Neither is filed yet, so the service's list cannot show the clash: the names the SDK passes do.
    expect((await d().check({ ...VMS, resourceName: "more-vms" })).failures).toEqual([]);
    const { failures } = await d().check({ ...VMS, limits: { vms: 90, vcpu: 400 }, resourceName: "launch-capacity" });
    expect(failures).toEqual([{ property: "limits", reason: expect.stringMatching(/QuotaRequest "more-vms" of this program also asks for vms of compute in us-east-1.*one QuotaRequest/) }]);
    // The same resource checked again, another quota, another region: no clash.
    expect((await d().check({ ...VMS, resourceName: "more-vms" })).failures).toEqual([]);
    expect((await d().check({ ...VMS, limits: { ram_gb: 900 }, resourceName: "more-ram" })).failures).toEqual([]);
    expect((await d().check({ ...VMS, region: "eu-west-1", resourceName: "eu-vms" })).failures).toEqual([]);
  });

  it("a projectId other than the key's project fails naming both (the service refuses it: 403 forbidden, reason project), not the key", async () => {
    const other = await control<Workspace>(emu(), "POST", "/workspaces", { plan: "pro" });
    const { result, calls } = await d().calls(() => d().check({ ...VMS, projectId: other.project_id }));
    expect(result.failures).toEqual([{ property: "projectId", reason: expect.stringMatching(new RegExp(`acts on project ${ws.project_id} only, and this quota request names project ${other.project_id}.*reason project.*Omit projectId`)) }]);
    expect(calls).toEqual(["GET /api/v1/quota/compute"]);
    expect((await d().check({ ...VMS, projectId: ws.project_id })).failures).toEqual([]);
    const api = await raw("POST", Q, { ...VMS, project_id: other.project_id });
    expect([api.status, api.body.error.details.reason]).toEqual([403, "project"]);
  });

  // Issue 25, item 9c: vcpu and ram_gb are one figure per project (emulator/README.md, "Where the spec is silent").
  it("vcpu is project-wide: an open request for it in another region, or with no region, is the same quota", async () => {
    const filed = await raw("POST", Q, { ...VMS, region: "eu-west-1", limits: { vcpu: 300 } });
    const { region: _omitted, ...noRegion } = VMS;
    const { failures } = await d().check({ ...noRegion, limits: { vcpu: 400 } });
    expect(failures).toEqual([{ property: "limits", reason: expect.stringMatching(new RegExp(`open quota request ${filed.body.id} \\(pending\\) for vcpu of compute \\(project-wide\\).*adoptId: "${filed.body.id}"`)) }]);
    expect((await d().check({ ...VMS, region: "ap-1", limits: { vms: 60, vcpu: 400 } })).failures).toEqual([{ property: "limits", reason: expect.stringContaining(filed.body.id) }]);
    // vms stays per region: the same request in another region is no duplicate.
    expect((await d().check({ ...VMS, region: "ap-1", limits: { vms: 60 } })).failures).toEqual([]);
  });

  it("two requests of one program for vcpu in two regions: the second one's preview fails naming the first", async () => {
    expect((await d().check({ ...VMS, limits: { vcpu: 300 }, resourceName: "cpu-us" })).failures).toEqual([]);
    const { failures } = await d().check({ ...VMS, region: "eu-west-1", limits: { vcpu: 400 }, resourceName: "cpu-eu" });
    expect(failures).toEqual([{ property: "limits", reason: expect.stringMatching(/QuotaRequest "cpu-us" of this program also asks for vcpu of compute \(project-wide\)/) }]);
  });

  it("a new request naming a region with only project-wide quotas passes, with a warning that the region does not apply to them", async () => {
    const { result, text } = await notes(() => d().check({ ...VMS, region: "eu-west-1", limits: { vcpu: 300, ram_gb: 900 } }));
    expect(result.failures).toEqual([]);
    expect(text).toMatch(/vcpu, ram_gb .*project-wide.*region "eu-west-1" does not apply/);
    // A request already filed with it (as when vcpu was per region) is unchanged: no warning, no failure.
    const filed = { ...VMS, region: "eu-west-1", limits: { vcpu: 300 } };
    const again = await notes(() => d().check(filed, filed));
    expect(again.result.failures).toEqual([]);
    expect(again.text).not.toMatch(/does not apply/);
  });

  it("new limits for a decided request: the preview fails on another open request for the quota, not on this one's own", async () => {
    const { id, outs } = await d().create(VMS);
    expect((await d().check({ ...VMS, limits: { vms: 85 } }, outs)).failures).toEqual([]); // its own open request
    await admin("approve", id);
    newOperation();
    const other = await raw("POST", Q, { ...VMS, limits: { vms: 200 }, justification: "someone else" });
    const { failures } = await d().check({ ...VMS, limits: { vms: 150 } }, outs);
    expect(failures).toEqual([{ property: "limits", reason: expect.stringContaining(`adoptId: "${other.body.id}"`) }]);
  });

  it("a create whose answer is lost: the request found cannot be proven this resource's (no owner field), so it is named, not taken, and the state keeps the question; one POST", async () => {
    await control(emu(), "POST", "/faults", { method: "POST", path: "/infra/api/v1/quota-request/", drop_after_response: true, count: 1 });
    const checked = await d().check(VMS);
    const { result, writes } = await d().calls(() => provider.create(checked.inputs).catch((e) => e));
    expect(writes).toEqual([`POST ${Q}`]);
    const all = (await raw("GET", `${Q}list`)).body.items;
    expect(all).toHaveLength(1);
    expect(result).toBeInstanceOf(PartialFailure);
    expect(result.id).toMatch(/^unresolved-create-/);
    expect(result.message).toContain(all[0].id);
    expect(result.message).toMatch(/adoptId/);
  });

  it("a lost create beside someone else's identical open request: fails naming both, files nothing more", async () => {
    const other = await raw("POST", Q, VMS);
    await control(emu(), "POST", "/faults", { method: "POST", path: "/infra/api/v1/quota-request/", drop_after_response: true, count: 1 });
    const err = await provider.create({ ...VMS, waitForDecision: 0 }).catch((e) => e);
    const all = (await raw("GET", `${Q}list`)).body.items as { id: string }[];
    expect(all).toHaveLength(2);
    for (const { id } of all) expect(err.message).toContain(id);
    expect(err.message).toContain(other.body.id);
  });

  it("no key in any refusal", async () => {
    await configure(provider, { "svc:infraUrl": emu().infraUrl, "svc:infraApiKey": "svc_test_" + "a".repeat(40) });
    const err = await provider.create({ ...VMS, waitForDecision: 0 }).catch((e) => e);
    expect(err.message).toMatch(/svc:infraApiKey/);
    expect(err.message).not.toContain("a".repeat(40));
  });
});

