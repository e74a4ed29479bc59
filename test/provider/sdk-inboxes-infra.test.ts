/**
 * The Inboxes and Infrastructure SDK classes in the program process: each registers
 * under its own type token with the shim as `__provider`, and hands every input and
 * output name to the engine (so every declared output resolves).
 */
import * as pulumi from "@pulumi/pulumi";
import { beforeAll, describe, expect, it } from "vitest";
import * as svc from "../../sdk";

const registered: { type: string; name: string; inputs: Record<string, unknown> }[] = [];
beforeAll(async () => {
  await pulumi.runtime.setMocks(
    { newResource: (args) => (registered.push({ type: args.type, name: args.name, inputs: args.inputs }), { id: `${args.name}-id`, state: { ...args.inputs, state: "pending", url: "https://bins.svc.test/bin/x" } }), call: () => ({}) },
    "project",
    "stack",
    false,
  );
});
const value = <T>(o: pulumi.Output<T>) => new Promise<T>((resolve) => o.apply((v) => resolve(v)));

describe("Inbox, QuotaRequest, QuotaLimits classes", () => {
  it.each([
    { make: () => new svc.inboxes.Inbox("bin", { transport: "http" }), cls: svc.inboxes.Inbox, token: "pulumi-nodejs:dynamic/svc/inboxes:Inbox", output: "url", expected: "https://bins.svc.test/bin/x" },
    { make: () => new svc.infra.QuotaRequest("qr", { service: "compute", region: "us-east-1", limits: { vms: 80 }, justification: "j" }), cls: svc.infra.QuotaRequest, token: "pulumi-nodejs:dynamic/svc/infra:QuotaRequest", output: "state", expected: "pending" },
    { make: () => new svc.infra.QuotaLimits("ql", { service: "dns", limits: { dns_zones: 80 } }), cls: svc.infra.QuotaLimits, token: "pulumi-nodejs:dynamic/svc/infra:QuotaLimits", output: "limits", expected: { dns_zones: 80 } },
  ])("$token", async ({ make, cls, token, output, expected }) => {
    const resource = make() as unknown as Record<string, pulumi.Output<unknown>>;
    expect(cls.__pulumiType).toBe(token);
    expect(await value(resource[output]!)).toEqual(expected);
    const reg = registered.find((r) => r.type === token)!;
    expect(String(reg.inputs.__provider)).toContain("pulumi-svc/provider");
  });
});
