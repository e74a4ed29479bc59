import { describe, expect, it } from "vitest";
import {
  OPEN_QUOTA_REQUEST_STATES, QUOTA_REQUEST_STATES, QUOTA_SCOPES, QUOTA_SERVICES,
  quotaLimitsViolations, quotaRequestTransition, quotaRequestViolations, quotaScopeLabel,
} from "../../../rules/quota";

const strip = (vs: { msg: string }[]) => vs.map(({ msg: _m, ...rest }) => rest);
const ok = { service: "compute", region: "us-east-1", limits: { vms: 60 }, justification: "launch" };

describe("quota tables", () => {
  it("has the spec's defaults", () => {
    expect(QUOTA_SERVICES).toEqual({
      compute: { vms: 50, vcpu: 200, ram_gb: 800 },
      "block-storage": { block_storage_gb: 5000, snapshots: 200, backups: 500 },
      network: { floating_ips: 20, networks: 10, security_groups: 50, load_balancers: 10 },
      dns: { dns_zones: 50 },
      iam: { users: 25 },
      "object-storage": {},
    });
  });
  it("gives every quota a scope", () => {
    for (const names of Object.values(QUOTA_SERVICES)) for (const n of Object.keys(names)) expect(QUOTA_SCOPES[n]).toMatch(/^(region|project)$/);
    expect(quotaScopeLabel("vms", "eu-1")).toBe("region: eu-1");
    expect(quotaScopeLabel("users", "eu-1")).toBe("project");
    // Spec document 3: "across running VMs", one figure, unlike the VMs' "per region".
    expect([QUOTA_SCOPES.vms, QUOTA_SCOPES.vcpu, QUOTA_SCOPES.ram_gb]).toEqual(["region", "project", "project"]);
  });
  it("lists the states", () => {
    expect(QUOTA_REQUEST_STATES).toEqual(["pending", "needs_updates", "approved", "rejected", "withdrawn"]);
    expect(OPEN_QUOTA_REQUEST_STATES).toEqual(["pending", "needs_updates"]);
  });
});

describe("quotaRequestViolations", () => {
  it.each([
    ["valid", ok, []],
    ["valid project-wide", { service: "dns", region: null, limits: { dns_zones: 80 }, justification: "x" }, []],
    ["unknown service", { ...ok, service: "gpu" }, [{ path: ["service"], type: "enum" }]],
    ["missing service", { ...ok, service: undefined }, [{ path: ["service"], type: "missing" }]],
    ["unknown quota name", { ...ok, limits: { vms: 60, disks: 3 } }, [{ path: ["limits", "disks"], type: "extra_forbidden" }]],
    ["object-storage has none", { ...ok, service: "object-storage", limits: { gb: 1 } }, [{ path: ["limits", "gb"], type: "extra_forbidden" }]],
    ["zero", { ...ok, limits: { vms: 0 } }, [{ path: ["limits", "vms"], type: "greater_than", params: { limit: 0 } }]],
    ["negative", { ...ok, limits: { vms: -3 } }, [{ path: ["limits", "vms"], type: "greater_than", params: { limit: 0 } }]],
    ["fraction", { ...ok, limits: { vms: 1.5 } }, [{ path: ["limits", "vms"], type: "int_type" }]],
    ["empty limits", { ...ok, limits: {} }, [{ path: ["limits"], type: "too_short", params: { count: 1 } }]],
    ["missing limits", { ...ok, limits: undefined }, [{ path: ["limits"], type: "missing" }]],
    ["region missing for per-region quota", { ...ok, region: null }, [{ path: ["region"], type: "missing" }]],
    ["region given for a service with only project-wide quotas", { service: "iam", region: "eu", limits: { users: 30 }, justification: "x" }, [{ path: ["region"], type: "none_required" }]],
    ["vcpu and ram_gb (project-wide) need no region", { ...ok, region: null, limits: { vcpu: 300, ram_gb: 900 } }, []],
    ["a region given with vcpu does not apply to it, and is no error", { ...ok, limits: { vcpu: 300 } }, []],
    ["a region that is not a string, with only project-wide quotas", { ...ok, region: 7, limits: { vcpu: 300 } }, [{ path: ["region"], type: "string_type" }]],
    ["vms (per region) with vcpu still needs a region", { ...ok, region: null, limits: { vms: 60, vcpu: 300 } }, [{ path: ["region"], type: "missing" }]],
    ["justification missing", { ...ok, justification: undefined }, [{ path: ["justification"], type: "missing" }]],
    ["justification blank", { ...ok, justification: "  " }, [{ path: ["justification"], type: "string_too_short", params: { count: 1 } }]],
    ["justification too long", { ...ok, justification: "j".repeat(2001) }, [{ path: ["justification"], type: "string_too_long", params: { count: 2000 } }]],
    ["unknown member", { ...ok, colour: 1 }, [{ path: ["colour"], type: "extra_forbidden" }]],
  ])("%s", (_n, body, expected) => {
    const clean = Object.fromEntries(Object.entries(body).filter(([, v]) => v !== undefined));
    expect(strip(quotaRequestViolations(clean))).toEqual(expected);
  });
});

describe("quotaLimitsViolations", () => {
  it("reports every bad entry", () => {
    expect(strip(quotaLimitsViolations("network", { networks: 0, floating_ips: "3", vms: 1 }))).toEqual([
      { path: ["limits", "networks"], type: "greater_than", params: { limit: 0 } },
      { path: ["limits", "floating_ips"], type: "int_type" },
      { path: ["limits", "vms"], type: "extra_forbidden" },
    ]);
  });
});

describe("quotaRequestTransition", () => {
  it.each([
    ["pending", "edit", { to: "pending" }],
    ["needs_updates", "edit", { to: "pending" }],
    ["approved", "edit", { conflict: "quota_request_decided" }],
    ["pending", "withdraw", { to: "withdrawn" }],
    ["withdrawn", "withdraw", { conflict: "quota_request_decided" }],
    ["rejected", "withdraw", { conflict: "quota_request_decided" }],
    ["pending", "approve", { to: "approved" }],
    ["needs_updates", "approve", { conflict: "quota_request_not_pending" }],
    ["approved", "approve", { conflict: "quota_request_decided" }],
    ["needs_updates", "reject", { to: "rejected" }],
    ["pending", "update", { to: "needs_updates" }],
    ["needs_updates", "update", { conflict: "quota_request_not_pending" }],
    ["rejected", "update", { conflict: "quota_request_decided" }],
  ] as const)("%s + %s", (state, action, expected) => expect(quotaRequestTransition(state, action)).toEqual(expected));
});
