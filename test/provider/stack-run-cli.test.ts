/**
 * What spans the stack (provider/engine/engine-operation.ts), under the real Pulumi CLI: its
 * preview and its update are separate plugin processes, and Check comes once per new
 * resource, twice for a replacement (the second with no old inputs, after Diff).
 * - Inbox allocations add up across the inboxes of one operation: the preview fails on
 *   the bin past the plan's limit and nothing is made; a bin that just fits passes both
 *   the preview and the update (each counts it once).
 * - An event type replaced keeping its name (delete first), twice in a row: the second
 *   Check knows the entry it finds is its own.
 * - What is counted is the workspace's (the project's for quotas), not a connection's:
 *   two profiles acting on one workspace or project add up.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { EngineResult } from "../support/run-types";
import { call, control, lastSeq, requestsSince, useEmulator } from "../support/emulator";
import { PULUMI_CLI_MISSING, runCli } from "../support/pulumi-cli";
import { emulatorStack } from "../support/stack-config";
import type { Workspace } from "./support";

const PROGRAM = resolve(__dirname, "fixtures/replacements");
const emu = useEmulator();
const dir = mkdtempSync(join(tmpdir(), "svc-stack-run-cli-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Spec {
  kind: string;
  name: string;
  args: Record<string, unknown>;
}

type Profiles = Record<string, Record<string, string>>;

/** `profiles`: the stack's `svc:profiles`, made from the new workspace's keys. */
async function stack(plan: "free" | "pro", profiles: (ws: Workspace) => Promise<Profiles> | Profiles = () => ({})) {
  const ws = await control<Workspace>(emu(), "POST", "/workspaces", { plan });
  const profileTable = JSON.stringify(await profiles(ws));
  const up = async (resources: Spec[]) => {
    const since = await lastSeq(emu());
    const result = await runCli({
      verb: "up",
      cwd: PROGRAM,
      stack: "dev",
      stateFile: join(dir, `${ws.workspace_id}.json`),
      ...emulatorStack(
        emu(),
        { webhooks: ws.webhooks.admin, inboxes: ws.inboxes.admin, infra: ws.infra.member },
        { config: { "svc-replacements:resources": JSON.stringify(resources) }, secrets: { "svc:profiles": profileTable } },
      ),
    });
    const writes = (await requestsSince(emu(), since)).filter((r) => r.method !== "GET").map((r) => `${r.method} ${r.path.replace(/\/[^/]*$/, "/…")}`);
    return { result, writes };
  };
  return { ws, up };
}

const errorsOf = (r: EngineResult) => r.diagnostics.filter((d) => d.severity === "error").map((d) => d.message).join("\n");
const bin = (name: string, profile?: string): Spec => ({ kind: "inboxes.Inbox", name, args: { transport: "http", label: name, profile } });

if (PULUMI_CLI_MISSING) console.log(`stack-wide checks under the real CLI: skipped: ${PULUMI_CLI_MISSING}`);
describe.skipIf(PULUMI_CLI_MISSING !== undefined)("checks that span the stack, under the real CLI", { timeout: 600_000 }, () => {
  it("inbox allocations add up across one operation's inboxes, and each operation counts them once", async () => {
    const { ws, up } = await stack("free"); // 3 request bins
    for (let i = 0; i < 2; i++) await call(emu(), "POST", "/inboxes/v1/inboxes", { key: ws.inboxes.admin, body: { transport: "http" } });
    const over = await up([bin("a"), bin("b")]);
    expect(over.result.ok).toBe(false);
    expect(errorsOf(over.result)).toMatch(/allows 3 request bins and 3 are live or planned \(quota_exceeded, reason allocation, metric http_bins\)/);
    expect(over.writes).toEqual([]);
    const fits = await up([bin("a")]);
    expect(fits.result.ok, errorsOf(fits.result)).toBe(true);
    expect(fits.writes).toEqual(["POST /inboxes/v1/…"]);
  });

  it("an event type replaced keeping its name, twice: each run deletes then registers it, and the catalog holds it once", async () => {
    const { ws, up } = await stack("pro");
    const entry = (description: string): Spec => ({ kind: "webhooks.EventType", name: "order", args: { name: "order.created", description } });
    expect((await up([entry("v1")])).result.ok).toBe(true);
    for (const description of ["v2", "v3"]) {
      const { result, writes } = await up([entry(description)]);
      expect(result.ok, errorsOf(result)).toBe(true);
      expect(result.steps.find((s) => s.name === "order")?.op).toBe("replace");
      expect(writes).toEqual(["DELETE /webhooks/v1/event-types/…", "POST /webhooks/v1/…"]);
    }
    const entries = (await call<{ data: { name: string; description: string }[] }>(emu(), "GET", "/webhooks/v1/event-types", { key: ws.webhooks.admin })).body.data;
    expect(entries.filter((e) => e.name === "order.created").map((e) => e.description)).toEqual(["v3"]);
  });

  it("two profiles with one workspace's key count one allocation: 4 bins on a 3-bin plan fail the preview", async () => {
    const sameKey = (ws: Workspace) => ({ inboxesUrl: emu().inboxesUrl, inboxesApiKey: ws.inboxes.admin });
    const { up } = await stack("free", (ws) => ({ a: sameKey(ws), b: sameKey(ws) }));
    const over = await up([bin("a1", "a"), bin("a2", "a"), bin("b1", "b"), bin("b2", "b")]);
    expect(over.result.ok).toBe(false);
    expect(errorsOf(over.result)).toMatch(/allows 3 request bins and 3 are live or planned \(quota_exceeded, reason allocation, metric http_bins\)/);
    expect(over.writes).toEqual([]);
  });

  it("two keys of one workspace count one allocation once its audit log names it: 1 live bin and 3 declared fail the preview", async () => {
    let firstKey = "";
    const { up } = await stack("free", async (ws) => {
      firstKey = ws.inboxes.admin;
      const { key } = await control<{ key: string }>(emu(), "POST", "/keys", { product: "inboxes", scope: "admin", workspace_id: ws.workspace_id });
      return { other: { inboxesUrl: emu().inboxesUrl, inboxesApiKey: key } };
    });
    await call(emu(), "POST", "/inboxes/v1/inboxes", { key: firstKey, body: { transport: "http" } });
    const over = await up([bin("a1"), bin("b1", "other"), bin("b2", "other")]);
    expect(over.result.ok).toBe(false);
    expect(errorsOf(over.result)).toMatch(/allows 3 request bins and 3 are live or planned \(quota_exceeded, reason allocation, metric http_bins\)/);
    expect(over.writes).toEqual([]);
  });

  it("two QuotaRequests for one quota under two keys of one project (projectId omitted) fail the preview", async () => {
    const { up } = await stack("free", (ws) => ({ admin: { infraUrl: emu().infraUrl, infraApiKey: ws.infra.admin } }));
    const request = (name: string, profile?: string): Spec => ({ kind: "infra.QuotaRequest", name, args: { service: "compute", limits: { vcpu: 400 }, justification: name, profile } });
    const twice = await up([request("mine"), request("theirs", "admin")]);
    expect(twice.result.ok).toBe(false);
    expect(errorsOf(twice.result)).toMatch(/QuotaRequest "(mine|theirs)" of this program also asks for vcpu of compute \(project-wide\)/);
    expect(twice.writes).toEqual([]);
  });
});
