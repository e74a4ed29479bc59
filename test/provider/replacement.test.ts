/**
 * Every kind that can be replaced goes through a replacement under the real CLI, which
 * (as pulumi/pulumi's step generator, continueStepsFromDiff, "recompute the default
 * values") calls Check a second time with NO old inputs once Diff says replace. A check
 * that recognises its own object only through the old inputs (an event type's name
 * conflict, an inbox's allocation count, a quota request's duplicate) must not fail there.
 * One stack holds one resource of each case; one up makes them, the next changes a field
 * that forces each one's replacement, all in that one run: the run succeeds, each step is
 * a replacement, and the service holds the new object only, kind by kind.
 *
 * A new event type whose name is taken still fails the preview: the provider's Check
 * (test/provider/event-type.test.ts, in-process) and the CLI's display of it
 * (test/provider/webhooks-workspace-e2e.test.ts) hold that.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import type { EngineResult } from "../support/run-types";
import { describeWithCli } from "../support/cli-suite";
import { runCli } from "../support/pulumi-cli";
import { emulatorStack } from "../support/stack-config";
import { call, control, useEmulator } from "../support/emulator";
import type { Workspace } from "./support";

const PROGRAM = resolve(__dirname, "fixtures/replacements");
const emu = useEmulator();
let dir: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "svc-replacements-"));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Spec {
  kind: string;
  name: string;
  args: Record<string, unknown>;
}

const errorsOf = (r: EngineResult) => r.diagnostics.filter((d) => d.severity === "error").map((d) => d.message).join("\n");
const list = async (path: string, key: string) => (await call<{ data: Record<string, unknown>[] }>(emu(), "GET", path, { key })).body.data;

// Two runs of the program; under load (8 helpers on 2 cores) eight such stacks took up to 5 minutes.
describeWithCli("replacement under the engine's second Check (no old inputs)", () => {
  it("every case replaced in one up: each step is a replacement and the service holds only the new object", async () => {
    // Free plan: 3 request bins. With 2 live, the inbox's replacement bin is the third: allowed.
    const ws = await control<Workspace>(emu(), "POST", "/workspaces", { plan: "free" });
    const other = await control<{ id: string }>(emu(), "POST", "/projects", { workspace_id: ws.workspace_id, name: "other" });
    for (let i = 0; i < 2; i++) await call(emu(), "POST", "/inboxes/v1/inboxes", { key: ws.inboxes.admin, body: { transport: "http" } });
    const schema = { type: "object", properties: { id: { type: "string" } } };
    const quota = (region: string) => ({ service: "compute", region, limits: { vms: 80 }, justification: "load tests" });
    /** Each case: its resource before and after, the change forcing its replacement. */
    const cases: [Spec, Spec["args"]][] = [
      // A description edit replaces the entry (delete first) instead of failing with event_type_exists.
      [{ kind: "webhooks.EventType", name: "order", args: { name: "order.created", description: "v1", payloadSchema: schema } }, { description: "v2" }],
      [{ kind: "webhooks.EventType", name: "paid", args: { name: "invoice.paid", payloadSchema: { type: "object" } } }, { payloadSchema: { type: "object", required: ["id"] } }],
      [{ kind: "webhooks.Source", name: "src", args: { provider: "generic", name: "in" } }, { provider: "payments", secret: "whsec_test_payments_1" }],
      [{ kind: "webhooks.Endpoint", name: "ep", args: { url: "https://ep.example.com/in", projectId: ws.project_id } }, { projectId: other.id }],
      [{ kind: "webhooks.OperationalEndpoint", name: "ops", args: { url: "https://ops.example.com/a", eventTypes: ["delivery.dead"] } }, { url: "https://ops.example.com/b" }],
      // Its new bin is counted once against the plan's allocation.
      [{ kind: "inboxes.Inbox", name: "box", args: { transport: "email" } }, { transport: "http" }],
      // Its own open request is no duplicate.
      [{ kind: "infra.QuotaRequest", name: "qr", args: quota("us-east-1") }, { region: "eu-west-1" }],
    ];
    const run = (resources: Spec[], skipPreview: boolean) =>
      runCli({
        verb: "up",
        skipPreview,
        cwd: PROGRAM,
        stack: "dev",
        stateFile: join(dir, `${ws.workspace_id}.json`),
        ...emulatorStack(emu(), { webhooks: ws.webhooks.admin, inboxes: ws.inboxes.admin, infra: ws.infra.admin }, { config: { "svc-replacements:resources": JSON.stringify(resources) } }),
      });

    // The first up only makes the objects: its preview proves nothing here.
    const first = await run(cases.map(([before]) => before), true);
    expect(first.ok, errorsOf(first)).toBe(true);
    // The second previews first, as a user's up does.
    const second = await run(cases.map(([before, change]) => ({ ...before, args: { ...before.args, ...change } })), false);
    expect(second.ok, errorsOf(second)).toBe(true);
    for (const [{ name }] of cases) expect(second.steps.find((s) => s.name === name)?.op, name).toBe("replace");

    const eventTypes = await list("/webhooks/v1/event-types", ws.webhooks.admin);
    expect(eventTypes.filter((e) => e.name === "order.created").map((e) => e.description)).toEqual(["v2"]);
    expect(eventTypes.filter((e) => e.name === "invoice.paid").map((e) => e.payload_schema)).toEqual([{ type: "object", required: ["id"] }]);
    expect((await list("/webhooks/v1/sources", ws.webhooks.admin)).map((s) => s.provider)).toEqual(["payments"]);
    expect((await list("/webhooks/v1/endpoints", ws.webhooks.admin)).map((e) => e.project_id)).toEqual([other.id]);
    expect((await list("/webhooks/v1/operational-endpoints", ws.webhooks.admin)).map((e) => e.url)).toEqual(["https://ops.example.com/b"]);
    expect((await list("/inboxes/v1/inboxes", ws.inboxes.admin)).map((i) => i.transport)).toEqual(["http", "http", "http"]);
    const open = (await call<{ items: { region: string }[] }>(emu(), "GET", "/infra/api/v1/quota-request/list?states=pending,needs_updates", { key: ws.infra.admin })).body.items;
    expect(open.map((r) => r.region)).toEqual(["eu-west-1"]);
  });
}, { timeout: 600_000 });
