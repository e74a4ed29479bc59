/** Infrastructure quotas: entries, per-service limits and usage, admin changes, reset, the 429 refusal. */
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { startEmulator } from "../../../emulator";
import { call, control, errorOf, useEmulator } from "../../support/emulator";
import { QUOTA_SERVICES } from "../../../rules/quota";

describe("Infrastructure credentials", () => {
  const emu = useEmulator();

  it("401 unauthorized missing; 401 invalid_credential for an unknown or app key; 401 revoked", async () => {
    const missing = await call(emu(), "GET", "/infra/v1/quotas");
    expect(missing.status).toBe(401);
    expect(errorOf(missing)).toMatchObject({ code: "unauthorized", details: { reason: "missing" } });
    for (const key of ["svc_test_" + "a".repeat(40), emu().keys.inboxes.admin]) {
      const res = await call(emu(), "GET", "/infra/v1/quotas", { key });
      expect(res.status).toBe(401);
      expect(errorOf(res).code).toBe("invalid_credential");
    }
    const { key } = await control<{ key: string }>(emu(), "POST", "/keys", { product: "infra", scopes: ["iam:read"], workspace_id: emu().keys.workspace_id });
    await control(emu(), "POST", "/keys/revoke", { key });
    expect(errorOf(await call(emu(), "GET", "/infra/v1/quotas", { key })).details).toEqual({ reason: "revoked" });
  });

  it("403 forbidden naming the missing scope", async () => {
    const { key } = await control<{ key: string }>(emu(), "POST", "/keys", { product: "infra", scopes: ["vms:read"], workspace_id: emu().keys.workspace_id });
    const res = await call(emu(), "GET", "/infra/v1/quotas", { key });
    expect(res.status).toBe(403);
    expect(errorOf(res).code).toBe("forbidden");
    expect(errorOf(res).message).toContain("iam:read");
  });
});

describe("Infrastructure quotas", () => {
  const emu = useEmulator();
  const admin = () => emu().keys.infra.admin;
  const member = () => emu().keys.infra.member;

  it("lists every quota entry with scope region: <region> or project", async () => {
    await control(emu(), "POST", "/infra/vms", { count: 2, region: "eu-west-1" });
    const { items } = (await call(emu(), "GET", "/infra/v1/quotas", { key: member() })).body;
    const find = (name: string, region: string | null) => items.find((e: { name: string; region: string | null }) => e.name === name && e.region === region);
    expect(find("vms", "eu-west-1")).toEqual({ service: "compute", name: "vms", scope: "region: eu-west-1", region: "eu-west-1", limit: 50, usage: 2 });
    expect(find("vms", "us-east-1")).toMatchObject({ scope: "region: us-east-1", usage: 0 });
    expect(find("users", null)).toEqual({ service: "iam", name: "users", scope: "project", region: null, limit: 25, usage: 0 });
    expect(find("dns_zones", null)).toMatchObject({ scope: "project", limit: 50 });
    const names = new Set(items.map((e: { name: string }) => e.name));
    expect([...names].sort()).toEqual(Object.values(QUOTA_SERVICES).flatMap((n) => Object.keys(n)).sort());

    const usage = (await call(emu(), "GET", "/infra/v1/quotas/usage", { key: member() })).body.items;
    expect(usage.find((e: { name: string; region: string }) => e.name === "vms" && e.region === "eu-west-1")).toEqual({ service: "compute", name: "vms", scope: "region: eu-west-1", region: "eu-west-1", usage: 2 });
    expect(usage.find((e: { name: string }) => e.name === "vcpu")).toEqual({ service: "compute", name: "vcpu", scope: "project", region: null, usage: 4 });
  });

  it("GET /api/v1/quota/{service}: current limits, or defaults; usage", async () => {
    const res = await call(emu(), "GET", "/infra/api/v1/quota/dns", { key: member() });
    expect(res.body).toEqual({ service: "dns", project_id: emu().keys.project_id, region: null, limits: { dns_zones: 50 } });
    const compute = (await call(emu(), "GET", "/infra/api/v1/quota/compute?region=eu-west-1", { key: member() })).body;
    expect(compute).toEqual({ service: "compute", project_id: emu().keys.project_id, region: "eu-west-1", limits: { vms: 50, vcpu: 200, ram_gb: 800 } });
    const usage = (await call(emu(), "GET", "/infra/api/v1/quota/compute/usage?region=eu-west-1", { key: member() })).body;
    expect(usage).toMatchObject({ service: "compute", region: "eu-west-1", usage: { vms: 2, vcpu: 4, ram_gb: 8 } });
    expect((await call(emu(), "GET", "/infra/api/v1/quota/object-storage", { key: member() })).body.limits).toEqual({});
    const unknown = await call(emu(), "GET", "/infra/api/v1/quota/gpu", { key: member() });
    expect(unknown.status).toBe(422);
    expect(errorOf(unknown).details.errors[0]).toMatchObject({ loc: ["path", "service"], type: "enum" });
  });

  it("PATCH is admin only; applies per region; unknown quota name is 422; defaults stay readable; reset restores", async () => {
    const refused = await call(emu(), "PATCH", "/infra/api/v1/quota/compute", { key: member(), body: { limits: { vms: 70 } } });
    expect(refused.status).toBe(403);
    expect(errorOf(refused).message).toContain("iam:write");

    const bad = await call(emu(), "PATCH", "/infra/api/v1/quota/compute", { key: admin(), body: { limits: { vms: 70, disks: 1 } } });
    expect(bad.status).toBe(422);
    expect(errorOf(bad).details.errors).toEqual([expect.objectContaining({ loc: ["body", "limits", "disks"], type: "extra_forbidden" })]);

    const ok = await call(emu(), "PATCH", "/infra/api/v1/quota/compute", { key: admin(), body: { limits: { vms: 70 }, admin_project: emu().keys.project_id } });
    expect(ok.status).toBe(200);
    expect(ok.body.limits).toEqual({ vms: 70, vcpu: 200, ram_gb: 800 });
    expect((await call(emu(), "GET", "/infra/api/v1/quota/compute", { key: member() })).body.limits.vms).toBe(70);
    expect((await call(emu(), "GET", "/infra/api/v1/quota/compute?region=eu-west-1", { key: member() })).body.limits.vms).toBe(50);
    expect((await call(emu(), "GET", "/infra/api/v1/quota/compute?defaults=true", { key: member() })).body.limits.vms).toBe(50);

    expect((await call(emu(), "POST", "/infra/api/v1/quota/compute/reset", { key: member(), body: {} })).status).toBe(403);
    const reset = await call(emu(), "POST", "/infra/api/v1/quota/compute/reset", { key: admin(), body: { admin_project: emu().keys.project_id } });
    expect(reset.status).toBe(200);
    expect(reset.body.limits.vms).toBe(50);
    expect((await call(emu(), "GET", "/infra/api/v1/quota/compute", { key: member() })).body.limits.vms).toBe(50);
  });

  it("403 for admin_project naming another project", async () => {
    const other = await control<{ project_id: string }>(emu(), "POST", "/workspaces", {});
    const res = await call(emu(), "GET", `/infra/api/v1/quota/compute?admin_project=${other.project_id}`, { key: admin() });
    expect(res.status).toBe(403);
  });

  it("a key sees only its project's usage", async () => {
    const other = await control<{ infra: { member: string } }>(emu(), "POST", "/workspaces", {});
    const usage = (await call(emu(), "GET", "/infra/api/v1/quota/compute/usage?region=eu-west-1", { key: other.infra.member })).body;
    expect(usage.usage.vms).toBe(0);
  });
});

describe("Infrastructure quota refusal", () => {
  const emu = useEmulator();

  it("429 with an empty Retry-After when VMs would pass the quota; terminated VMs do not count", async () => {
    const key = emu().keys.infra.admin;
    await call(emu(), "PATCH", "/infra/api/v1/quota/compute", { key, body: { limits: { vms: 3 }, region: "ap-1" } });
    const created = await control<{ items: { id: string }[] }>(emu(), "POST", "/infra/vms", { count: 3, region: "ap-1", state: "stopped" });
    const refused = await call(emu(), "POST", "/_emulator/infra/vms", { body: { count: 1, region: "ap-1" } });
    expect(refused.status).toBe(429);
    expect(refused.headers.has("retry-after")).toBe(true);
    expect(refused.headers.get("retry-after")).toBe("");
    expect(errorOf(refused)).toMatchObject({ code: "quota_exceeded", details: { quota: "vms", scope: "region: ap-1", limit: 3, current: 3 } });

    const api = await call(emu(), "POST", "/infra/v1/vms", { key, body: { name: "web", region: "ap-1" } });
    expect(api.status).toBe(429);
    expect(api.headers.get("retry-after")).toBe("");

    // Another region has its own count.
    expect((await call(emu(), "POST", "/infra/v1/vms", { key, body: { name: "web", region: "ap-2" } })).status).toBe(201);

    await control(emu(), "PATCH", `/infra/vms/${created.items[0]!.id}`, { state: "terminated" });
    const vm = await call(emu(), "POST", "/infra/v1/vms", { key, body: { name: "web", region: "ap-1" } });
    expect(vm.status).toBe(201);
    expect(vm.body).toMatchObject({ name: "web", region: "ap-1", state: "running", vcpu: 2, ram_gb: 4 });
    expect(vm.body.ipv4).toMatch(/^10\.\d+\.\d+\.\d+$/);
    expect((await call(emu(), "GET", "/infra/api/v1/quota/compute/usage?region=ap-1", { key })).body.usage.vms).toBe(3);

    // Bringing the terminated VM back would pass the quota again.
    expect((await call(emu(), "PATCH", `/_emulator/infra/vms/${created.items[0]!.id}`, { body: { state: "running" } })).status).toBe(429);
    // A terminated VM can always be recorded.
    expect((await call(emu(), "POST", "/_emulator/infra/vms", { body: { region: "ap-1", state: "terminated" } })).status).toBe(201);
  });

  it("vCPU counts across running VMs only", async () => {
    // A project of its own: vCPU counts the running VMs of every region (the tests above made some).
    const other = await control<{ project_id: string; infra: { admin: string } }>(emu(), "POST", "/workspaces", {});
    const key = other.infra.admin;
    await call(emu(), "PATCH", "/infra/api/v1/quota/compute", { key, body: { limits: { vcpu: 8 } } });
    await control(emu(), "POST", "/infra/vms", { count: 2, region: "cpu-1", vcpu: 4, project_id: other.project_id });
    await control(emu(), "POST", "/infra/vms", { count: 2, region: "cpu-1", vcpu: 4, state: "stopped", project_id: other.project_id });
    const res = await call(emu(), "POST", "/infra/v1/vms", { key, body: { name: "x", region: "cpu-1", vcpu: 1 } });
    expect(res.status).toBe(429);
    expect(errorOf(res).details).toMatchObject({ quota: "vcpu", limit: 8, current: 8 });
  });

  it("snapshots: deleted ones do not count", async () => {
    const key = emu().keys.infra.admin;
    await call(emu(), "PATCH", "/infra/api/v1/quota/block-storage", { key, body: { limits: { snapshots: 1 }, region: "s-1" } });
    const [snap] = (await control<{ items: { id: string }[] }>(emu(), "POST", "/infra/snapshots", { region: "s-1" })).items;
    expect((await call(emu(), "POST", "/_emulator/infra/snapshots", { body: { region: "s-1" } })).status).toBe(429);
    await control(emu(), "PATCH", `/infra/snapshots/${snap!.id}`, { state: "deleted" });
    expect((await call(emu(), "POST", "/_emulator/infra/snapshots", { body: { region: "s-1" } })).status).toBe(201);
  });
});

/**
 * Issue 25, item 9c. Spec document 3's table gives vCPU and RAM one figure "across
 * running VMs", where VMs, snapshots and the rest say "per region": vCPU and RAM are
 * counted and limited once per project, whatever the VMs' regions.
 */
describe("vCPU and RAM: one figure per project across running VMs", () => {
  const emu = useEmulator();
  const admin = () => emu().keys.infra.admin;
  const member = () => emu().keys.infra.member;

  it("running VMs of every region count towards one vcpu and ram_gb limit; the refusal's scope is project", async () => {
    const other = await control<{ project_id: string; infra: { admin: string } }>(emu(), "POST", "/workspaces", {});
    const key = other.infra.admin;
    await call(emu(), "PATCH", "/infra/api/v1/quota/compute", { key, body: { limits: { vcpu: 8, ram_gb: 100 } } });
    await control(emu(), "POST", "/infra/vms", { count: 1, region: "r-1", vcpu: 4, project_id: other.project_id });
    await control(emu(), "POST", "/infra/vms", { count: 1, region: "r-2", vcpu: 4, project_id: other.project_id });
    const res = await call(emu(), "POST", "/infra/v1/vms", { key, body: { name: "x", region: "r-3", vcpu: 1 } });
    expect(res.status).toBe(429);
    expect(errorOf(res).details).toMatchObject({ quota: "vcpu", scope: "project", limit: 8, current: 8, requested: 1 });
    for (const region of ["r-1", "us-east-1"]) {
      const usage = (await call(emu(), "GET", `/infra/api/v1/quota/compute/usage?region=${region}`, { key })).body.usage;
      expect(usage).toMatchObject({ vcpu: 8, ram_gb: 8 });
    }
    const usage = (await call(emu(), "GET", "/infra/api/v1/quota/compute/usage?region=r-1", { key })).body.usage;
    expect(usage.vms).toBe(1);
  });

  it("/v1/quotas has one vcpu and one ram_gb entry, scope project, region null, usage summed over regions", async () => {
    await control(emu(), "POST", "/infra/vms", { count: 2, region: "eu-west-1" });
    await control(emu(), "POST", "/infra/vms", { count: 1, region: "ap-1" });
    const { items } = (await call(emu(), "GET", "/infra/v1/quotas", { key: member() })).body;
    for (const name of ["vcpu", "ram_gb"]) {
      const entries = items.filter((e: { name: string }) => e.name === name);
      expect(entries).toEqual([expect.objectContaining({ scope: "project", region: null })]);
    }
    expect(items.find((e: { name: string }) => e.name === "vcpu")).toMatchObject({ limit: 200, usage: 6 });
    expect(items.find((e: { name: string }) => e.name === "ram_gb")).toMatchObject({ usage: 12 });
  });

  it("an admin's PATCH of vcpu, in whatever region it names, is the project's one figure; vms stays per region", async () => {
    const other = await control<{ infra: { admin: string } }>(emu(), "POST", "/workspaces", {});
    const key = other.infra.admin;
    await call(emu(), "PATCH", "/infra/api/v1/quota/compute", { key, body: { limits: { vcpu: 300, vms: 70 }, region: "eu-west-1" } });
    const limits = async (region: string) => (await call(emu(), "GET", `/infra/api/v1/quota/compute?region=${region}`, { key })).body.limits;
    expect(await limits("eu-west-1")).toEqual({ vms: 70, vcpu: 300, ram_gb: 800 });
    expect(await limits("us-east-1")).toEqual({ vms: 50, vcpu: 300, ram_gb: 800 });
  });

  it("a quota request for vcpu takes no region (null) or any region; approved, it raises the project's figure", async () => {
    const other = await control<{ infra: { admin: string; member: string } }>(emu(), "POST", "/workspaces", {});
    const file = (region: string | null, limits: Record<string, number>) =>
      call(emu(), "POST", "/infra/api/v1/quota-request/", { key: other.infra.member, body: { service: "compute", region, limits, justification: "build farm" } });
    const noRegion = await file(null, { vcpu: 300 });
    expect(noRegion.status).toBe(201);
    expect(noRegion.body.region).toBe(null);
    // A request filed with a region (as per-region vcpu needed): accepted, the region does not apply to vcpu.
    const withRegion = await file("eu-west-1", { ram_gb: 1000 });
    expect(withRegion.status).toBe(201);
    // vms is per region: a request naming it still needs one.
    const mixed = await file(null, { vms: 60, vcpu: 400 });
    expect(mixed.status).toBe(422);
    expect(errorOf(mixed).details.errors[0]).toMatchObject({ loc: ["body", "region"], type: "missing" });
    for (const r of [noRegion.body, withRegion.body]) {
      expect((await call(emu(), "POST", "/infra/api/v1/quota-request/approve", { key: other.infra.admin, body: { id: r.id } })).status).toBe(200);
    }
    const limits = (await call(emu(), "GET", "/infra/api/v1/quota/compute?region=ap-1", { key: other.infra.member })).body.limits;
    expect(limits).toEqual({ vms: 50, vcpu: 300, ram_gb: 1000 });
  });
});

describe("a state file from an emulator that kept vcpu and ram_gb per region", () => {
  it("is read with those limits as the project's: the default region's value, else the highest", async () => {
    const stateFile = join(mkdtempSync(join(tmpdir(), "svc-quota-scope-")), "state.json");
    const first = await startEmulator({ port: 0, stateFile });
    const { project_id } = first.keys;
    await call(first, "PATCH", "/infra/api/v1/quota/compute", { key: first.keys.infra.admin, body: { limits: { vms: 60 } } });
    await first.close();
    const saved = JSON.parse(readFileSync(stateFile, "utf8"));
    // As 0.1.0's emulator wrote an admin's PATCH of vcpu and ram_gb in two regions.
    saved.products.infra = {
      ...(saved.products.infra ?? { quotaRequests: {}, vms: {}, snapshots: {}, ipSeq: 0 }),
      limits: { [project_id]: { "region:eu-west-1": { vms: 70, vcpu: 500, ram_gb: 900 }, "region:us-east-1": { vcpu: 300 } } },
    };
    writeFileSync(stateFile, JSON.stringify(saved));
    const second = await startEmulator({ port: 0, stateFile });
    try {
      const limits = async (region: string) => (await call(second, "GET", `/infra/api/v1/quota/compute?region=${region}`, { key: second.keys.infra.member })).body.limits;
      expect(await limits("eu-west-1")).toEqual({ vms: 70, vcpu: 300, ram_gb: 900 });
      expect(await limits("ap-1")).toEqual({ vms: 50, vcpu: 300, ram_gb: 900 });
    } finally {
      await second.close();
    }
  });
});
