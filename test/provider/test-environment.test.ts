/**
 * examples/test-environment end to end through the engine stand-in (test/engine), the
 * real program runtime and the real dynamic-provider plugin loading dist/, against an
 * emulator that reports bins under a public https URL: preview (nothing written), up
 * (one POST each), a no-op up, refresh after an approval and an out-of-band release
 * (the next preview creates the inbox again), a changed quota once approved (replace,
 * with the provider's note), destroy (the decided request leaves the state with a
 * note); no key in the state file or any output.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import type { EngineResult } from "../support/run-types";
import { describeWithCli } from "../support/cli-suite";
import { emulatorStack } from "../support/stack-config";
import { runCli } from "../support/pulumi-cli";
import { call, control, lastSeq, requestsSince, useEmulator } from "../support/emulator";
import type { Workspace } from "./support";

const program = resolve(__dirname, "../../examples/test-environment");
const emu = useEmulator({ binPublicUrl: "https://bins.svc.test" });
let ws: Workspace;
let dir: string;

beforeAll(async () => {
  ws = await control<Workspace>(emu(), "POST", "/workspaces", { plan: "pro" });
  dir = mkdtempSync(join(tmpdir(), "svc-testenv-"));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function run(verb: "preview" | "up" | "refresh" | "destroy", config: Record<string, string> = {}) {
  return runCli({
    verb,
    cwd: program,
    stack: "ci",
    stateFile: join(dir, "ci.json"),
    ...emulatorStack(emu(), { webhooks: ws.webhooks.admin, inboxes: ws.inboxes.admin, infra: ws.infra.member }, { config }),
  });
}

const errorsOf = (r: EngineResult) => r.diagnostics.filter((d) => d.severity === "error").map((d) => d.message).join("\n");
const textOf = (r: EngineResult) => r.diagnostics.map((d) => d.message).join("\n");
const opsOf = (r: EngineResult) => Object.fromEntries(r.steps.filter((s) => /svc\/(inboxes|webhooks|infra)/.test(s.type)).map((s) => [s.name, s.op]));
const stateText = () => readFileSync(join(dir, "ci.json"), "utf8");
const resourceOf = (name: string) => JSON.parse(stateText()).checkpoint.latest.resources.find((x: any) => x.urn.endsWith(`::${name}`));

async function writesDuring<T>(fn: () => Promise<T>): Promise<{ result: T; writes: string[] }> {
  const since = await lastSeq(emu());
  const result = await fn();
  const writes = (await requestsSince(emu(), since)).filter((r) => r.method !== "GET").map((r) => `${r.method} ${r.path}`);
  return { result, writes };
}

describeWithCli("examples/test-environment end to end", () => {
  const seen: string[] = [];

  it("preview: four creates, nothing written", async () => {
    const { result: r, writes } = await writesDuring(() => run("preview"));
    expect(r.ok, errorsOf(r)).toBe(true);
    expect(opsOf(r)).toEqual({ "webhook-bin": "create", "signup-mail": "create", "orders-to-bin": "create", "more-vms": "create" });
    expect(writes).toEqual([]);
    seen.push(JSON.stringify(r));
  });

  it("up: one POST each; the endpoint delivers to the bin's https URL; outputs the addresses and the request's state", async () => {
    const { result: r, writes } = await writesDuring(() => run("up"));
    expect(r.ok, errorsOf(r)).toBe(true);
    expect(writes.sort()).toEqual(["POST /inboxes/v1/inboxes", "POST /inboxes/v1/inboxes", "POST /infra/api/v1/quota-request/", "POST /webhooks/v1/endpoints"]);
    expect(r.outputs.binUrl).toMatch(/^https:\/\/bins\.svc\.test\/bin\//);
    expect(r.outputs.signupAddress).toMatch(/@inbox\.svc\.test$/);
    expect(r.outputs.quotaRequestState).toBe("pending");
    const endpoint = await call(emu(), "GET", `/webhooks/v1/endpoints/${r.outputs.endpointId as string}`, { key: ws.webhooks.admin });
    expect(endpoint.body.url).toBe(r.outputs.binUrl);
    seen.push(JSON.stringify(r));
  });

  it("a no-op up writes nothing", async () => {
    const { result: r, writes } = await writesDuring(() => run("up"));
    expect(r.ok, errorsOf(r)).toBe(true);
    expect(writes).toEqual([]);
    expect(Object.values(opsOf(r)).every((op) => op === "same")).toBe(true);
  });

  it("refresh after an approval and an out-of-band release: state approved, the released inbox dropped; the next preview creates it", async () => {
    const requestId = resourceOf("more-vms").id as string;
    await call(emu(), "POST", "/infra/api/v1/quota-request/approve", { key: ws.infra.admin, body: { id: requestId, message: "granted for the tests" } });
    await call(emu(), "DELETE", `/inboxes/v1/inboxes/${resourceOf("signup-mail").id as string}`, { key: ws.inboxes.admin });
    const r = await run("refresh");
    expect(r.ok, errorsOf(r)).toBe(true);
    // An approval changes outputs only: no drift of the inputs (the real engine's refresh asks Diff), but the state holds it.
    expect(resourceOf("more-vms").outputs).toMatchObject({ state: "approved", adminMessage: "granted for the tests" });
    expect(resourceOf("signup-mail")).toBeUndefined();
    const preview = await run("preview");
    expect(preview.ok, errorsOf(preview)).toBe(true);
    expect(opsOf(preview)).toMatchObject({ "signup-mail": "create", "more-vms": "same", "webhook-bin": "same" });
    seen.push(JSON.stringify(r), JSON.stringify(preview));
  });

  it("a changed VM count once approved: the preview replaces the request and says why; up files a new one and drops the old with a note", async () => {
    const old = resourceOf("more-vms").id as string;
    const preview = await run("preview", { vms: "120" });
    expect(preview.ok, errorsOf(preview)).toBe(true);
    const step = preview.steps.find((s) => s.name === "more-vms")!;
    expect(step.op).toBe("replace");
    expect(step.replaces).toEqual(["limits"]);
    expect(textOf(preview)).toMatch(new RegExp(`Quota request ${old} is approved and can no longer be edited`));
    const { result: up, writes } = await writesDuring(() => run("up", { vms: "120" }));
    expect(up.ok, errorsOf(up)).toBe(true);
    expect(writes.sort()).toEqual(["DELETE /infra/api/v1/quota-request/", "POST /inboxes/v1/inboxes", "POST /infra/api/v1/quota-request/"]);
    expect(textOf(up)).toMatch(new RegExp(`Quota request ${old} is approved and cannot be withdrawn; it is dropped from the state`));
    expect(up.outputs.quotaRequestState).toBe("pending");
    expect(up.outputs.quotaRequestId).not.toBe(old);
    seen.push(JSON.stringify(preview), JSON.stringify(up));
  });

  it("destroy: inboxes released, endpoint deleted, the open request withdrawn", async () => {
    const requestId = resourceOf("more-vms").id as string;
    const { result: r, writes } = await writesDuring(() => run("destroy", { vms: "120" }));
    expect(r.ok, errorsOf(r)).toBe(true);
    expect(writes.map((w) => w.replace(/\/[a-z]+_[A-Za-z0-9]+$/, "/{id}")).sort()).toEqual(["DELETE /infra/api/v1/quota-request/", "DELETE /inboxes/v1/inboxes/{id}", "DELETE /inboxes/v1/inboxes/{id}", "DELETE /webhooks/v1/endpoints/{id}"].sort());
    expect((await call(emu(), "GET", `/infra/api/v1/quota-request/?id=${requestId}`, { key: ws.infra.member })).body.state).toBe("withdrawn");
    expect((await call(emu(), "GET", "/inboxes/v1/inboxes", { key: ws.inboxes.admin })).body.total).toBe(0);
    seen.push(JSON.stringify(r));
  });

  it("no key in the state file or any output", () => {
    const text = seen.join("\n") + stateText();
    for (const key of [ws.webhooks.admin, ws.inboxes.admin, ws.infra.member]) expect(text).not.toContain(key);
  });
});
