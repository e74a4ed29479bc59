/**
 * Issue 24, scenario 4, through the engine stand-in against the emulator: a
 * QuotaLimits resource manages only the quota names it declares, in its own region
 * and project. Removing one region's resource (or one name) writes back what was
 * there before, in that region alone; `POST .../reset`, which drops every override of
 * the service in every region, is never sent.
 */
import { describe, expect, it } from "vitest";
import { call, useEmulator } from "../support/emulator";
import { errorsOf, RUNS_TIMEOUT_MS, useOwnershipStacks, type Declared, CLI_MISSING } from "./support";

const emu = useEmulator();
const stack = useOwnershipStacks(emu);

const limitsOf = (name: string, region: string, limits: Record<string, number>): Declared => ({
  kind: "infra:QuotaLimits",
  name,
  inputs: { service: "compute", region, limits, profile: "infraAdmin" },
});

describe.skipIf(CLI_MISSING !== undefined)("QuotaLimits in two regions", () => {
  it("removing one region's resource, then one name, then the other: each writes back only its own names in its own region; no reset", async () => {
    const s = await stack("quota-regions");
    const quota = async (region: string) => (await call(emu(), "GET", `/infra/api/v1/quota/compute?region=${region}`, { key: s.ws.infra.member })).body.limits;
    const us = limitsOf("compute-us", "us-east-1", { vms: 100, ram_gb: 900 });
    const eu = limitsOf("compute-eu", "eu-west-1", { vms: 70 });
    const up = await s.run("up", [us, eu]);
    expect(up.ok, errorsOf(up)).toBe(true);
    // An admin raises vcpu in us-east-1 outside Pulumi.
    await call(emu(), "PATCH", "/infra/api/v1/quota/compute", { key: s.ws.infra.admin, body: { limits: { vcpu: 300 }, region: "us-east-1" } });

    const removeEu = await s.writes("up", [us]);
    expect(removeEu.result.ok, errorsOf(removeEu.result)).toBe(true);
    expect(removeEu.writes).toEqual(["PATCH /api/v1/quota/compute"]);
    expect(await quota("us-east-1")).toEqual({ vms: 100, vcpu: 300, ram_gb: 900 });
    // vms is back in eu-west-1 alone; vcpu and ram_gb are the project's one figure (spec 3: "across running VMs").
    expect(await quota("eu-west-1")).toEqual({ vms: 50, vcpu: 300, ram_gb: 900 });

    // A name no longer declared goes back to what it was before the resource wrote it.
    const dropRam = limitsOf("compute-us", "us-east-1", { vms: 100 });
    const drop = await s.writes("up", [dropRam]);
    expect(drop.result.ok, errorsOf(drop.result)).toBe(true);
    expect(drop.result.steps.find((st) => st.name === "compute-us")).toMatchObject({ op: "update", diffs: ["limits"] });
    expect(drop.writes).toEqual(["PATCH /api/v1/quota/compute"]);
    expect(await quota("us-east-1")).toEqual({ vms: 100, vcpu: 300, ram_gb: 800 });
    const again = await s.writes("up", [dropRam]);
    expect(again.writes).toEqual([]);

    const destroy = await s.writes("destroy", [dropRam]);
    expect(destroy.result.ok, errorsOf(destroy.result)).toBe(true);
    expect(destroy.writes).toEqual(["PATCH /api/v1/quota/compute"]);
    // The admin's raise stays; the resource's own name is back to the default it found.
    expect(await quota("us-east-1")).toEqual({ vms: 50, vcpu: 300, ram_gb: 800 });
  }, RUNS_TIMEOUT_MS);

  // Issue 25, item 9c: vcpu is one figure per project, so two regions' resources setting it would undo each other.
  it("two QuotaLimits setting vcpu from two regions: preview fails naming the other, and nothing is written", async () => {
    const s = await stack("quota-vcpu-twice");
    const twice = [limitsOf("compute-us", "us-east-1", { vms: 100, vcpu: 300 }), limitsOf("compute-eu", "eu-west-1", { vcpu: 400 })];
    const preview = await s.writes("preview", twice);
    expect(preview.result.ok).toBe(false);
    expect(errorsOf(preview.result)).toMatch(/QuotaLimits "compute-(us|eu)" of this program also sets vcpu of compute, which is project-wide/);
    expect(preview.writes).toEqual([]);
  }, RUNS_TIMEOUT_MS);

  it("two QuotaLimits setting vcpu in the same region (one id): preview fails naming the other, and nothing is written", async () => {
    const s = await stack("quota-vcpu-same-region");
    const twice = [limitsOf("compute-a", "eu-west-1", { vcpu: 300 }), limitsOf("compute-b", "eu-west-1", { vcpu: 400 })];
    const preview = await s.writes("preview", twice);
    expect(preview.result.ok).toBe(false);
    expect(errorsOf(preview.result)).toMatch(/QuotaLimits "compute-(a|b)" of this program also sets vcpu of compute, which is project-wide/);
    expect(preview.writes).toEqual([]);
  }, RUNS_TIMEOUT_MS);
});
