/**
 * adv14b F2 and F3 under the real Pulumi CLI (the provider's side, at Check:
 * predictable-refusals.test.ts, in the inner loop): refusals the provider can predict
 * fail `pulumi preview`, naming what to do, and nothing is written; a read-scope key's
 * preview passes (a pipeline's preview job may hold one) and warns that an up needs admin.
 */
import { expect, it } from "vitest";
import { describeWithCli } from "../support/cli-suite";
import { call, control, useEmulator } from "../support/emulator";
import { errorsOf, RUNS_TIMEOUT_MS, useOwnershipStacks, type Declared } from "../ownership/support";
import type { Workspace } from "./support";

const emu = useEmulator();

describeWithCli("refusals the provider can predict fail the preview, under the real Pulumi CLI", () => {
  const stack = useOwnershipStacks(emu);

  it("a read-scope Webhooks key: the preview passes, warning that an up needs the admin scope; adoptId with secret, and of no endpoint, fail naming them", async () => {
    const ws = await control<Workspace>(emu(), "POST", "/workspaces", { plan: "pro" });
    const endpoint = (inputs: Record<string, unknown>): Declared => ({ kind: "webhooks:Endpoint", name: "orders", inputs: { url: "https://hooks.example.com/orders", ...inputs } });

    const readOnly = await stack("read-key", { ...ws, webhooks: { ...ws.webhooks, admin: ws.webhooks.read } });
    const readPreview = await readOnly.writes("preview", [endpoint({})]);
    expect(readPreview.result.ok, errorsOf(readPreview.result)).toBe(true);
    expect(readPreview.result.diagnostics.map((d) => d.message).join("\n")).toMatch(/API key in svc:webhooksApiKey \(or SVC_WEBHOOKS_API_KEY\) has the read scope, which may only read: this preview can read, but a `pulumi up` with it would be refused/);
    expect(readPreview.writes).toEqual([]);

    const existing = (await call(emu(), "POST", "/webhooks/v1/endpoints", { key: ws.webhooks.admin, body: { url: "https://hooks.example.com/old" } })).body.id as string;
    const admin = await stack("adopt", ws);
    const withSecret = await admin.writes("preview", [endpoint({ adoptId: existing, secret: "whsec_given_value" })]);
    expect(withSecret.result.ok).toBe(false);
    expect(errorsOf(withSecret.result)).toMatch(new RegExp(`adoptId ${existing}: \`secret\` cannot be applied to an existing endpoint.*cannot be given together with adoptId`));
    expect(errorsOf(withSecret.result)).not.toContain("whsec_given_value");
    const missing = await admin.writes("preview", [endpoint({ adoptId: "ep_doesnotexist" })]);
    expect(missing.result.ok).toBe(false);
    expect(errorsOf(missing.result)).toMatch(/adoptId ep_doesnotexist: no endpoint with this id is visible to the API key in svc:webhooksApiKey.*request id/);
    expect([...withSecret.writes, ...missing.writes]).toEqual([]);
  }, RUNS_TIMEOUT_MS);
});
