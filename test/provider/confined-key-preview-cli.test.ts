/**
 * Issue 25, item 9b under the real Pulumi CLI: with a key confined to one project, a
 * program naming another project fails preview naming both and writes nothing; naming
 * its own project, the up creates the endpoint there. (The provider's side of it, at
 * Check: confined-key-preview.test.ts, in the inner loop.)
 */
import { expect, it } from "vitest";
import { describeWithCli } from "../support/cli-suite";
import { call, useEmulator } from "../support/emulator";
import { errorsOf, RUNS_TIMEOUT_MS, useOwnershipStacks, type Declared } from "../ownership/support";
import { confinedWorkspace } from "./support";

const emu = useEmulator();

describeWithCli("a project-confined key naming another project, under the real Pulumi CLI", () => {
  const stack = useOwnershipStacks(emu);

  it("preview fails naming both projects and writes nothing; with its own project the up creates the endpoint in it", async () => {
    const { ws, project, confinedKey } = await confinedWorkspace(emu());
    const s = await stack("confined-other-project", { ...ws, webhooks: { ...ws.webhooks, admin: confinedKey } });
    const endpoint = (projectId: string): Declared => ({ kind: "webhooks:Endpoint", name: "orders", inputs: { url: "https://hooks.example.com/orders", projectId } });
    const refused = await s.writes("preview", [endpoint(ws.project_id)]);
    expect(refused.result.ok).toBe(false);
    expect(errorsOf(refused.result)).toMatch(new RegExp(`confined to project ${project}, and this endpoint names project ${ws.project_id}.*Set projectId to "${project}"`));
    expect(refused.writes).toEqual([]);
    const up = await s.run("up", [endpoint(project)]);
    expect(up.ok, errorsOf(up)).toBe(true);
    const created = await call(emu(), "GET", `/webhooks/v1/endpoints/${s.id("orders")}`, { key: confinedKey });
    expect(created.body.project_id).toBe(project);
  }, RUNS_TIMEOUT_MS);
});
