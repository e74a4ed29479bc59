/**
 * What is QuotaLimits' own (admins), against the emulator over HTTP: create is a read
 * and ONE PATCH, a change moves only the changed entries, delete writes back the
 * declared names' earlier values in its region (never a reset), a service change replaces, the admin-only refusal; and the read-only
 * infrastructure functions, including the cursor walk of getVms (call counts and
 * cursors from the request log). No-op and drift are the lifecycle contract's
 * (test/lifecycle/contract.test.ts).
 */
import { afterAll, beforeEach, describe, expect, it, vi } from "vitest";
import * as svc from "../../sdk";
import { PartialFailure, closeSharedDispatcher, providers } from "../../provider";
import { newOperation } from "../support/operation";
import { UNKNOWN } from "../../provider/engine/unknown";
import { setNoteSink } from "../../provider/engine/errors";
import { call, control, lastSeq, requestsSince, useEmulator } from "../support/emulator";
import { quotaLimitsDefinition } from "../../provider/infra/quota-limits";
import { configure, Driver, type Workspace } from "./support";

const provider = providers["infra:QuotaLimits"]!;
const emu = useEmulator();
const d = () => new Driver(emu(), provider);
afterAll(() => closeSharedDispatcher());

const DEFAULTS = { vms: 50, vcpu: 200, ram_gb: 800 };
let ws: Workspace;
const quota = async (service: string, region = "us-east-1") => (await call(emu(), "GET", `/infra/api/v1/quota/${service}?region=${region}`, { key: ws.infra.member })).body.limits;

beforeEach(async () => {
  ws = await control<Workspace>(emu(), "POST", "/workspaces", { plan: "pro" });
  await configure(provider, { "svc:infraUrl": emu().infraUrl, "svc:infraApiKey": ws.infra.admin });
  newOperation();
});

describe("QuotaLimits: lifecycle and call counts", () => {
  const declared = { service: "compute", region: "eu-west-1", limits: { vms: 120 } };

  it("create reads the limits (kept in limitsBefore) and writes the declared ones in ONE PATCH", async () => {
    const { calls, result } = await d().calls(() => d().create(declared));
    // The limits found (kept), and the key's project: where the create goes, which its pending create holds (engine/reach.ts).
    expect(calls).toEqual(["GET /api/v1/quota/compute", "GET /api/v1/quota/compute", "PATCH /api/v1/quota/compute"]);
    expect(result.id).toBe("compute/eu-west-1");
    expect(result.outs).toMatchObject({ service: "compute", region: "eu-west-1", projectId: ws.project_id, limits: { ...DEFAULTS, vms: 120 }, limitsBefore: { limits: { vms: 50 } } });
    expect(await quota("compute", "eu-west-1")).toEqual({ ...DEFAULTS, vms: 120 });
    expect(await quota("compute")).toEqual(DEFAULTS); // another region is untouched
  });

  it("a change is ONE PATCH; only the changed entries move", async () => {
    const { id, outs } = await d().create({ ...declared, limits: { vms: 120, ram_gb: 1000 } });
    await call(emu(), "PATCH", "/infra/api/v1/quota/compute", { key: ws.infra.admin, body: { limits: { vcpu: 250 }, region: "eu-west-1" } });
    // The state still thinks vcpu is 200: a PATCH of changed entries only sends vms.
    const { result, writes } = await d().calls(() => d().update(id, outs, { ...declared, limits: { vms: 130, ram_gb: 1000 } }));
    expect(writes).toEqual(["PATCH /api/v1/quota/compute"]);
    expect(result.outs.limits).toEqual({ vms: 130, vcpu: 250, ram_gb: 1000 });
    expect(result.outs.limitsBefore).toEqual({ limits: { vms: 50, ram_gb: 800 } });
  });

  it("a name removed from limits is written back only where it still holds what the resource wrote; an admin's value since is left, with a warning", async () => {
    const { id, outs } = await d().create({ ...declared, limits: { vms: 120, ram_gb: 1000, vcpu: 300 } });
    await call(emu(), "PATCH", "/infra/api/v1/quota/compute", { key: ws.infra.admin, body: { limits: { ram_gb: 1100 }, region: "eu-west-1" } });
    newOperation();
    const warnings: string[] = [];
    setNoteSink((m) => warnings.push(m));
    try {
      const { writes, result } = await d().calls(() => d().update(id, outs, { ...declared, limits: { vms: 120 } }));
      expect(result.diff).toMatchObject({ changes: true, replaces: [] });
      expect(writes).toEqual(["PATCH /api/v1/quota/compute"]);
    } finally {
      setNoteSink((m) => void process.stderr.write(`warning: ${m}\n`));
    }
    expect(await quota("compute", "eu-west-1")).toEqual({ ...DEFAULTS, vms: 120, ram_gb: 1100 });
    expect(warnings).toEqual([expect.stringMatching(/limits\.ram_gb holds 1100, not what this resource wrote, and would have been put back to 800\. Left as it is/)]);
  });

  it("service or region changes replace", async () => {
    const { id, outs } = await d().create(declared);
    const diff = async (news: Record<string, unknown>) => provider.diff!(id, outs, (await d().check(news)).inputs);
    expect(await diff({ ...declared, region: "us-east-1" })).toMatchObject({ changes: true, replaces: ["region"] });
    expect(await diff({ ...declared, service: "network", limits: { networks: 20 } })).toMatchObject({ changes: true, replaces: ["service"] });
    // Another region is another setting: created first. Another profile keeps the setting: deleted first (it puts back
    // what it found, and the replacement finds that), whatever key the profile holds (adv14a F9).
    expect(await diff({ ...declared, region: "us-east-1" })).toMatchObject({ deleteBeforeReplace: false });
    await configure(provider, { "svc:infraUrl": emu().infraUrl, "svc:infraApiKey": ws.infra.admin, "svc:profiles": JSON.stringify({ adminB: { infraUrl: emu().infraUrl, infraApiKey: ws.infra.admin } }) });
    expect(await diff({ ...declared, profile: "adminB" })).toMatchObject({ changes: true, replaces: ["profile"], deleteBeforeReplace: true });
  });

  it("delete writes back the declared names' earlier values with one PATCH in its region; other names and regions keep theirs", async () => {
    const { id, outs } = await d().create(declared);
    await call(emu(), "PATCH", "/infra/api/v1/quota/compute", { key: ws.infra.admin, body: { limits: { vms: 70 } } });
    await call(emu(), "PATCH", "/infra/api/v1/quota/compute", { key: ws.infra.admin, body: { limits: { vcpu: 300 }, region: "eu-west-1" } });
    const { writes } = await d().calls(() => provider.delete!(id, outs));
    expect(writes).toEqual(["PATCH /api/v1/quota/compute"]);
    expect(await quota("compute", "eu-west-1")).toEqual({ ...DEFAULTS, vcpu: 300 });
    expect(await quota("compute")).toEqual({ ...DEFAULTS, vms: 70, vcpu: 300 });
  });

  it("renamed without an alias (the new resource is created before the old one's delete): the old delete leaves the new one's limits", async () => {
    const old = await d().create(declared);
    const renamed = await d().create(declared);
    const { writes } = await d().calls(() => provider.delete!(old.id, old.outs));
    expect(writes).toEqual([]);
    expect(await quota("compute", "eu-west-1")).toEqual({ ...DEFAULTS, vms: 120 });
    // The resource that manages the limits now puts back what it found on its own delete: the old resource's value
    // (a rename without an alias cannot hand over what the old one found; an alias keeps it).
    const { writes: last } = await d().calls(() => provider.delete!(renamed.id, renamed.outs));
    expect(last).toEqual(["PATCH /api/v1/quota/compute"]);
    expect(await quota("compute", "eu-west-1")).toEqual({ ...DEFAULTS, vms: 120 });
  });

  it("another QuotaLimits of the same region (one id) holds other names: the removed one still puts its own back, whether the other was created in the run or kept by a Diff", async () => {
    const a = await d().create({ ...declared, limits: { vms: 120 } });
    const b = await d().create({ ...declared, limits: { ram_gb: 1000 } });
    expect(b.id).toBe(a.id);
    // Created in this run (takenOver).
    expect((await d().calls(() => provider.delete!(a.id, a.outs))).writes).toEqual(["PATCH /api/v1/quota/compute"]);
    expect(await quota("compute", "eu-west-1")).toEqual({ ...DEFAULTS, ram_gb: 1000 });
    // Kept by a Diff in a later run (claims.ts, the keepers).
    const again = await d().create({ ...declared, limits: { vms: 120 } });
    newOperation();
    await provider.diff!(b.id, b.outs, (await d().check({ ...declared, limits: { ram_gb: 1000 } }, b.inputs)).inputs);
    expect((await d().calls(() => provider.delete!(again.id, again.outs))).writes).toEqual(["PATCH /api/v1/quota/compute"]);
    expect(await quota("compute", "eu-west-1")).toEqual({ ...DEFAULTS, ram_gb: 1000 });
  });

  it("delete puts back only the names that still hold what the resource wrote; one an admin changed since is left, with a warning", async () => {
    const { id, outs } = await d().create({ ...declared, limits: { vms: 120, ram_gb: 1000 } });
    await call(emu(), "PATCH", "/infra/api/v1/quota/compute", { key: ws.infra.admin, body: { limits: { vms: 90 }, region: "eu-west-1" } });
    const warned: string[] = [];
    const stderr = vi.spyOn(process.stderr, "write").mockImplementation((chunk) => (warned.push(String(chunk)), true));
    try {
      newOperation(); // a destroy of its own (the create's Check read the key's project in its operation)
      const { calls } = await d().calls(() => provider.delete!(id, outs));
      // The key's project (engine/reach.ts, once per operation), the limits found, the PATCH.
      expect(calls).toEqual(["GET /api/v1/quota/compute", "GET /api/v1/quota/compute", "PATCH /api/v1/quota/compute"]);
    } finally {
      stderr.mockRestore();
    }
    expect(await quota("compute", "eu-west-1")).toEqual({ ...DEFAULTS, vms: 90 });
    expect(warned.join("")).toContain("limits.vms holds 90, not what this resource wrote, and would have been put back to 50");
  });

  it("refresh declares the managed names alone: an admin's change to one of them shows, the service's other figures never do", async () => {
    const { id, outs } = await d().create({ ...declared, limits: { vms: 120, ram_gb: 1000 } });
    await call(emu(), "PATCH", "/infra/api/v1/quota/compute", { key: ws.infra.admin, body: { limits: { vms: 90, vcpu: 250 }, region: "eu-west-1" } });
    newOperation();
    const read = await provider.read!(id, outs);
    expect(read.inputs.limits).toEqual({ vms: 90, ram_gb: 1000 });
    // The outputs keep every figure the service reports.
    expect(read.props!.limits).toEqual({ vms: 90, vcpu: 250, ram_gb: 1000 });
    // A name added later is managed too, and one removed no longer shows.
    const { outs: changed } = await d().update(id, read.props!, { ...declared, limits: { vms: 120, vcpu: 300 } });
    newOperation();
    expect((await provider.read!(id, changed)).inputs.limits).toEqual({ vms: 120, vcpu: 300 });
  });

  it("a project-wide service takes no region: id is the service", async () => {
    const { id, outs } = await d().create({ service: "dns", limits: { dns_zones: 80 } });
    expect(id).toBe("dns");
    expect(outs).toMatchObject({ region: null, limits: { dns_zones: 80 } });
  });
});

describe("QuotaLimits: import by scope", () => {
  /** `pulumi import` of `id` as the engine makes it: a Read with no state; its inputs are what the generated code declares. */
  const imported = async (id: string) => {
    const read = await provider.read!(id);
    expect(read.id).toBe(id);
    return { inputs: read.inputs!, outs: read.props! };
  };

  // adv37f F3: each region's import declared vcpu and ram_gb (project-wide) too, so two region imports failed their own preview.
  it("two regions of one service and the service itself: each holds its scope's figures alone, and the three, checked as one program, pass and show no change", async () => {
    await call(emu(), "PATCH", "/infra/api/v1/quota/compute", { key: ws.infra.admin, body: { limits: { vms: 73, vcpu: 320 }, region: "eu-west-1" } });
    const imports = { east: await imported("compute/us-east-1"), west: await imported("compute/eu-west-1"), project: await imported("compute") };
    // The generated code as the program: its preview checks each resource (no "Declare ram_gb in one QuotaLimits only"), and diffs it with no change.
    newOperation();
    for (const [name, { inputs, outs }] of Object.entries(imports)) {
      const checked = await d().check({ ...inputs, resourceName: name });
      expect(checked.failures ?? [], name).toEqual([]);
      expect(await provider.diff!(name === "project" ? "compute" : `compute/${String(inputs.region)}`, outs, checked.inputs), name).toMatchObject({ changes: false });
    }
    expect(imports.east.inputs).toEqual({ service: "compute", region: "us-east-1", projectId: ws.project_id, limits: { vms: 50 } });
    expect(imports.west.inputs).toEqual({ service: "compute", region: "eu-west-1", projectId: ws.project_id, limits: { vms: 73 } });
    // Project-wide: one figure for every region, so no region.
    expect(imports.project.inputs).toEqual({ service: "compute", projectId: ws.project_id, limits: { vcpu: 320, ram_gb: 800 } });
    // The outputs are every limit the service reports, as for a created resource.
    expect(imports.west.outs.limits).toEqual({ vms: 73, vcpu: 320, ram_gb: 800 });
    // A refresh of the imported entries declares their scope still (adv14a F2: every figure, and a region for the project-wide one).
    newOperation();
    expect((await provider.read!("compute", imports.project.outs)).inputs).toEqual(imports.project.inputs);
    expect((await provider.read!("compute/eu-west-1", imports.west.outs)).inputs).toEqual(imports.west.inputs);
  });

  it("a service with quotas of one scope only holds them under its id: `dns` its project-wide ones, `network/<region>` that region's", async () => {
    expect((await imported("dns")).inputs).toEqual({ service: "dns", projectId: ws.project_id, limits: { dns_zones: 50 } });
    expect((await imported("network/eu-west-1")).inputs).toMatchObject({ region: "eu-west-1", limits: { floating_ips: 20, networks: 10, security_groups: 50, load_balancers: 10 } });
    expect((await imported("block-storage/eu-west-1")).inputs.limits).toEqual({ snapshots: 200, backups: 500 });
    expect((await imported("block-storage")).inputs.limits).toEqual({ block_storage_gb: 5000 });
  });
});

describe("QuotaLimits: import ids", () => {
  // adv37h H1, H7: these were imported (a junk id stored, a region sent to dns, an empty object-storage resource).
  it.each([
    ["compute/", /QuotaLimits id "compute\/" is not `<service>` or `<service>\/<region>`.*with a service of compute, block-storage, network, dns, iam\.$/],
    ["compute/us-east-1/x", /QuotaLimits id "compute\/us-east-1\/x" is not `<service>` or `<service>\/<region>`/],
    ["Compute", /QuotaLimits id "Compute" is not/],
    ["dns/us-east-1", /QuotaLimits id "dns\/us-east-1": the quotas of dns are project-wide \(one figure for every region\): import it as `dns`/],
    ["object-storage", /QuotaLimits id "object-storage": object-storage has no quotas to limit/],
  ])("%s is refused at import, saying what an id is, with no write", async (id, message) => {
    const { result, writes } = await d().calls(() => provider.read!(id).catch((e: Error) => e));
    expect((result as Error).message).toMatch(message);
    expect(writes).toEqual([]);
  });
});

describe("QuotaLimits: ids an earlier release stored", () => {
  // adv37i I1, I2: earlier releases imported ids as given; refusing them at every read left such a stack unable to
  // refresh, change or delete anything, and a project-wide service's region was sent to the service.
  it("are still read and written by their service and region: `compute/` as `compute`, `dns/eu-west-1` with no region", async () => {
    expect(quotaLimitsDefinition.paths.item("compute/")).toBe("/api/v1/quota/compute");
    expect(quotaLimitsDefinition.paths.item("compute/eu-west-1/x")).toBe("/api/v1/quota/compute?region=eu-west-1");
    expect(quotaLimitsDefinition.paths.item("dns/eu-west-1")).toBe("/api/v1/quota/dns");
    const stored = (await provider.read!("compute")).props!;
    const read = await provider.read!("compute/", stored);
    expect(read.id).toBe("compute/");
    expect(read.props).toMatchObject({ service: "compute", limits: stored.limits });
  });
});

describe("QuotaLimits: refusals", () => {
  it("a member key (no iam:write) is refused with what to use instead, and never the key", async () => {
    await configure(provider, { "svc:infraUrl": emu().infraUrl, "svc:infraApiKey": ws.infra.member });
    const { result: err, writes } = await d().calls(() => d().create({ service: "compute", limits: { vms: 60 } }).catch((e) => e));
    expect(err.message).toMatch(/admin only.*iam:write.*QuotaRequest/);
    expect(writes).toEqual(["PATCH /api/v1/quota/compute"]);
    expect(err.message).not.toContain(ws.infra.member);
    // Nothing was taken over (the first write was refused): a plain error, so the engine records nothing.
    expect(err).not.toBeInstanceOf(PartialFailure);
  });

  it("preview: a projectId other than the key's project fails naming both, not the key", async () => {
    const other = await control<Workspace>(emu(), "POST", "/workspaces", { plan: "pro" });
    const { failures } = await d().check({ service: "compute", projectId: other.project_id, limits: { vms: 60 } });
    expect(failures).toEqual([{ property: "projectId", reason: expect.stringMatching(new RegExp(`acts on project ${ws.project_id} only, and this quota limits resource names project ${other.project_id}`)) }]);
    expect((await d().check({ service: "compute", projectId: ws.project_id, limits: { vms: 60 } })).failures).toEqual([]);
  });

  // Issue 25, item 9c: vcpu and ram_gb are one figure per project (emulator/README.md, "Where the spec is silent").
  it("preview: two QuotaLimits of one program setting vcpu from two regions fail (each up would undo the other's); vms per region does not", async () => {
    expect((await d().check({ service: "compute", region: "us-east-1", limits: { vms: 60, vcpu: 300 }, resourceName: "us" })).failures).toEqual([]);
    const { failures } = await d().check({ service: "compute", region: "eu-west-1", limits: { vms: 60, vcpu: 400 }, resourceName: "eu" });
    expect(failures).toEqual([{ property: "limits.vcpu", reason: expect.stringMatching(/QuotaLimits "us" of this program also sets vcpu of compute, which is project-wide.*one QuotaLimits/) }]);
    // Omitting the region is the default region's resource: the same clash.
    expect((await d().check({ service: "compute", limits: { vcpu: 400 }, resourceName: "default" })).failures!.map((f) => f.property)).toEqual(["limits.vcpu"]);
    // The same resource checked again, and vms (per region) in another region: no clash.
    expect((await d().check({ service: "compute", region: "us-east-1", limits: { vms: 60, vcpu: 300 }, resourceName: "us" })).failures).toEqual([]);
    expect((await d().check({ service: "compute", region: "ap-1", limits: { vms: 70 }, resourceName: "ap" })).failures).toEqual([]);
  });

  it("preview: two QuotaLimits of one program in the same region clash on any name they both set, per-region ones included", async () => {
    expect((await d().check({ service: "compute", region: "eu-west-1", limits: { vms: 60 }, resourceName: "a" })).failures).toEqual([]);
    const { failures } = await d().check({ service: "compute", region: "eu-west-1", limits: { vms: 70 }, resourceName: "b" });
    expect(failures).toEqual([{ property: "limits.vms", reason: expect.stringMatching(/QuotaLimits "a" of this program also sets vms of compute, which is of region eu-west-1/) }]);
  });

  // adv37i I4: it was refused as an id the program never wrote.
  it("preview: a region holding `/` is refused on the property", async () => {
    const { failures } = await d().check({ service: "block-storage", region: "eu/west", limits: { snapshots: 222 }, resourceName: "a" });
    expect(failures).toEqual([{ property: "region", reason: expect.stringContaining("A region name holds no `/`.") }]);
  });

  // adv37h H1: `network` and `network/us-east-1` wrote the same figures and passed the preview.
  it("preview: no region and the default region are one region", async () => {
    expect((await d().check({ service: "network", region: "us-east-1", limits: { floating_ips: 30 }, resourceName: "a" })).failures).toEqual([]);
    const { failures } = await d().check({ service: "network", limits: { floating_ips: 40 }, resourceName: "b" });
    // The region named, not "of region the default region" (adv37i I3).
    expect(failures).toEqual([{ property: "limits.floating_ips", reason: expect.stringMatching(/QuotaLimits "a" of this program also sets floating_ips of network, which is of region us-east-1:/) }]);
  });

  it("preview: projectId omitted and projectId set to the key's project are one project", async () => {
    expect((await d().check({ service: "compute", limits: { vcpu: 300 }, resourceName: "a" })).failures).toEqual([]);
    const { failures } = await d().check({ service: "compute", region: "eu-west-1", projectId: ws.project_id, limits: { vcpu: 400 }, resourceName: "b" });
    expect(failures!.map((f) => f.property)).toEqual(["limits.vcpu"]);
  });

  it("preview: a region unknown at preview still clashes on a project-wide name", async () => {
    expect((await d().check({ service: "compute", region: "us-east-1", limits: { vcpu: 300 }, resourceName: "a" })).failures).toEqual([]);
    const { failures } = await d().check({ service: "compute", region: UNKNOWN, limits: { vms: 60, vcpu: 400 }, resourceName: "b" });
    expect(failures!.map((f) => f.property)).toEqual(["limits.vcpu"]);
  });

  it("preview: an unknown name, a value not above 0, an unknown service", async () => {
    const bad = await d().check({ service: "compute", limits: { vms: 0, gpus: 2 } });
    expect(bad.failures!.map((f) => f.property).sort()).toEqual(["limits.gpus", "limits.vms"]);
    expect((await d().check({ service: "moon", limits: { x: 1 } })).failures!.map((f) => f.property)).toEqual(["service"]);
  });
});

describe("infrastructure functions (program process)", () => {
  beforeEach(() => {
    process.env.SVC_INFRA_URL = emu().infraUrl;
    process.env.SVC_INFRA_API_KEY = ws.infra.member;
  });
  afterAll(() => {
    delete process.env.SVC_INFRA_URL;
    delete process.env.SVC_INFRA_API_KEY;
  });

  it("getQuota (current and defaults), getQuotaUsage, getQuotas", async () => {
    await control(emu(), "POST", "/infra/vms", { count: 3, region: "us-east-1", project_id: ws.project_id });
    expect(await svc.infra.getQuota("compute")).toEqual({ service: "compute", projectId: ws.project_id, region: "us-east-1", limits: DEFAULTS });
    expect(await svc.infra.getQuota("compute", { defaults: true })).toMatchObject({ limits: DEFAULTS });
    expect(await svc.infra.getQuotaUsage("compute")).toMatchObject({ usage: { vms: 3, vcpu: 6, ram_gb: 12 } });
    const all = await svc.infra.getQuotas();
    expect(all.find((q) => q.name === "vms" && q.region === "us-east-1")).toMatchObject({ limit: 50, usage: 3, scope: "region: us-east-1" });
    expect(all.find((q) => q.name === "users")).toMatchObject({ scope: "project", region: null });
  });

  it("getVms walks next_cursor until null, sending each cursor as given; new filters start without one", async () => {
    await call(emu(), "PATCH", "/infra/api/v1/quota/compute", { key: ws.infra.admin, body: { limits: { vms: 1000 }, region: "eu-west-1" } });
    await control(emu(), "POST", "/infra/vms", { count: 450, region: "eu-west-1", state: "stopped", project_id: ws.project_id });
    await control(emu(), "POST", "/infra/vms", { count: 5, region: "us-east-1", project_id: ws.project_id });
    const since = await lastSeq(emu());
    const vms = await svc.infra.getVms({ region: "eu-west-1", sort: "name" });
    expect(vms).toHaveLength(450);
    expect(new Set(vms.map((v) => v.id)).size).toBe(450);
    expect(vms.map((v) => v.name)).toEqual([...vms.map((v) => v.name)].sort());
    expect(vms[0]).toMatchObject({ region: "eu-west-1", state: "stopped", projectId: ws.project_id });
    const running = await svc.infra.getVms({ state: "running", pageSize: 2 });
    expect(running).toHaveLength(5);
    // The request log records each query string as sent.
    const log = (await requestsSince(emu(), since)).map((r) => new URLSearchParams((r as { query?: string }).query ?? ""));
    expect(log).toHaveLength(3 + 3); // 450 in pages of 200; 5 in pages of 2
    expect(log.map((q) => q.has("cursor"))).toEqual([false, true, true, false, true, true]);
    expect(log.slice(0, 3).every((q) => q.get("region") === "eu-west-1" && q.get("sort") === "name")).toBe(true);
    expect(log.slice(3).every((q) => q.get("state") === "running" && !q.has("region"))).toBe(true);
  });
});
