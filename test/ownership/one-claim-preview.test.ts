/**
 * Issue 34, scene 7, under the real CLI with a fresh runner per command (a new HOME,
 * PULUMI_HOME and TMPDIR each; only the backend carries over): the preview knows what
 * the whole operation declares and what the service decided.
 * - Two EventTypes of one name fail `pulumi preview` with no write (they used to pass it
 *   and half-apply: POST 201, POST 409).
 * - A QuotaRequest decided on the service since the last refresh previews as the
 *   replacement it will be, and `up` files the new request (it used to preview as an
 *   update and fail with 409 quota_request_decided).
 */
import { describe, expect, it } from "vitest";
import { call, useEmulator } from "../support/emulator";
import { CLI_MISSING, errorsOf, fresh, RUNS_TIMEOUT_MS, useOwnershipStacks, type Declared } from "./support";

const emu = useEmulator();
const stack = useOwnershipStacks(emu);

describe.skipIf(CLI_MISSING !== undefined)("scene 7: the preview of the whole operation, on fresh runners", () => {
  it("two EventTypes of one name fail the preview, with no write", async () => {
    const s = await stack("two-event-types");
    const program: Declared[] = ["first", "second"].map((name) => ({ kind: "webhooks:EventType", name, inputs: { name: "order.twice" } }));
    const { result, writes } = await s.writes("preview", program, fresh());
    expect(result.ok).toBe(false);
    expect(errorsOf(result)).toMatch(/EventType "(first|second)" of this program also declares event type "order\.twice" workspace-wide/);
    expect(writes).toEqual([]);
    const types = (await call<{ data: { name: string }[] }>(emu(), "GET", "/webhooks/v1/event-types", { key: s.ws.webhooks.admin })).body.data;
    expect(types.map((t) => t.name)).not.toContain("order.twice");
  }, RUNS_TIMEOUT_MS);

  it("a QuotaRequest approved on the service since the last refresh previews as a replacement, and up files the new request", async () => {
    const s = await stack("decided-quota-request");
    const request = (vms: number): Declared[] => [{ kind: "infra:QuotaRequest", name: "launch", inputs: { service: "compute", region: "us-east-1", limits: { vms }, justification: "launch week load tests" } }];
    const filed = await s.run("up", request(80), fresh());
    expect(filed.ok, errorsOf(filed)).toBe(true);
    const first = s.id("launch")!;
    const approved = await call(emu(), "POST", "/infra/api/v1/quota-request/approve", { key: s.ws.infra.admin, body: { id: first } });
    expect(approved.status).toBe(200);

    const preview = await s.writes("preview", request(99), fresh());
    expect(preview.result.ok, errorsOf(preview.result)).toBe(true);
    expect(preview.result.steps.find((st) => st.name === "launch")?.op).toBe("replace");
    expect(preview.writes).toEqual([]);

    const up = await s.run("up", request(99), fresh());
    expect(up.ok, errorsOf(up)).toBe(true);
    expect(up.steps.find((st) => st.name === "launch")?.op).toBe("replace");
    const second = s.id("launch")!;
    expect(second).not.toBe(first);
    const now = await call<{ limits: Record<string, number>; state: string }>(emu(), "GET", `/infra/api/v1/quota-request/?id=${second}`, { key: s.ws.infra.member });
    expect(now.body).toMatchObject({ limits: { vms: 99 }, state: "pending" });
  }, RUNS_TIMEOUT_MS);
});
