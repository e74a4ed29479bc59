/**
 * Concurrency, with the benchmark's program (bench/program):
 *   - under the real Pulumi CLI, two `up` runs of different stacks against one workspace
 *     at once finish without interfering: each state holds its own resources, the
 *     workspace holds both;
 *   - through the engine stand-in (what the demo and `preview:ci` use on a machine
 *     without Go), an `up` killed while its creates are in flight (latency injected on
 *     the creates) leaves the state recording those operations as pending; the next run
 *     reports them by URN (and refresh clears them, saying the objects may exist)
 *     instead of passing over them in silence. What the real CLI does then:
 *     test/reconcile/interrupted-cli.test.ts.
 * Counts come from the emulator's listings and the state files, never from timing.
 */
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { stackKinds } from "../../bench/stack";
import { DEFINITIONS } from "../../provider/registry";
import { runEngine, type EngineResult } from "../engine/engine";
import type { EngineOptions } from "../support/run-types";
import { describeWithCli } from "../support/cli-suite";
import { runCli } from "../support/pulumi-cli";
import { call, control, useEmulator } from "../support/emulator";

const program = resolve(__dirname, "../../bench/program");
const emu = useEmulator();
let dir: string;
let ws: { webhooks: { admin: string }; inboxes: { admin: string }; infra: { admin: string } };

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "svc-concurrency-"));
  ws = await control(emu(), "POST", "/workspaces", { plan: "enterprise" });
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const errorsOf = (r: EngineResult) => r.diagnostics.filter((d) => d.severity === "error").map((d) => d.message).join("\n");

function settings(count: number, offset: number, kinds: string[]) {
  return {
    config: {
      "bench:count": String(count),
      "bench:offset": String(offset),
      "bench:kinds": JSON.stringify(kinds),
      "svc:webhooksUrl": emu().webhooksUrl,
      "svc:inboxesUrl": emu().inboxesUrl,
      "svc:infraUrl": emu().infraUrl,
    },
    secrets: { "svc:webhooksApiKey": ws.webhooks.admin, "svc:inboxesApiKey": ws.inboxes.admin, "svc:infraApiKey": ws.infra.admin },
  };
}

const run = (verb: "up" | "preview" | "refresh" | "destroy", stack: string, count: number, offset: number, kinds: string[], engine: (o: EngineOptions) => Promise<EngineResult> = runCli) =>
  // A refresh here is `refresh --clear-pending-creates`: the real engine keeps pending creates otherwise.
  engine({ verb, cwd: program, stack, stateFile: join(dir, `${stack}.json`), ...settings(count, offset, kinds), env: { SVC_WEBHOOKS_API_KEY: "", SVC_INBOXES_API_KEY: "", SVC_INFRA_API_KEY: "" }, clearPendingCreates: verb === "refresh" });

const stateOf = (stack: string) => JSON.parse(readFileSync(join(dir, `${stack}.json`), "utf8")).checkpoint.latest as { resources: { urn: string; id?: string; type: string }[]; pending_operations?: { type: string; resource: { urn: string } }[] };
const managed = (stack: string) => (stateOf(stack).resources ?? []).filter((r) => r.type.includes("svc/"));

async function endpointIds(): Promise<string[]> {
  const res = await call(emu(), "GET", "/webhooks/v1/endpoints?limit=200", { key: ws.webhooks.admin });
  return (res.body.data as { id: string }[]).map((e) => e.id);
}

describeWithCli("two stacks, one workspace, at once", () => {
  const kinds = stackKinds(Object.keys(DEFINITIONS));

  it("both ups succeed; each state holds its own objects; the workspace holds both; both destroy cleanly", async () => {
    const [a, b] = await Promise.all([run("up", "alpha", 8, 0, kinds), run("up", "beta", 8, 1000, kinds)]);
    expect(a.ok, errorsOf(a)).toBe(true);
    expect(b.ok, errorsOf(b)).toBe(true);
    const idsA = managed("alpha").map((r) => r.id);
    const idsB = managed("beta").map((r) => r.id);
    expect(idsA).toHaveLength(8);
    expect(idsB).toHaveLength(8);
    expect(idsA.filter((id) => idsB.includes(id))).toEqual([]);
    const held = await endpointIds();
    for (const r of [...managed("alpha"), ...managed("beta")].filter((x) => x.type.endsWith(":Endpoint"))) expect(held).toContain(r.id);

    // A no-op up of one while the other destroys: neither touches the other's objects.
    const [noop, gone] = await Promise.all([run("up", "alpha", 8, 0, kinds), run("destroy", "beta", 8, 1000, kinds)]);
    expect(noop.ok, errorsOf(noop)).toBe(true);
    expect(noop.steps.filter((s) => s.type.includes("svc/")).every((s) => s.op === "same")).toBe(true);
    expect(gone.ok, errorsOf(gone)).toBe(true);
    const after = await endpointIds();
    for (const r of managed("alpha").filter((x) => x.type.endsWith(":Endpoint"))) expect(after).toContain(r.id);
    const down = await run("destroy", "alpha", 8, 0, kinds);
    expect(down.ok, errorsOf(down)).toBe(true);
    expect(await endpointIds()).toEqual([]);
  });
});

describe("an up killed while its creates are in flight (the engine stand-in)", () => {
  const kinds = ["webhooks:Endpoint"];
  const LATENCY_MS = 6_000;

  it("leaves the in-flight creates recorded as pending; the next run reports them by URN; refresh clears them, warning", async () => {
    const before = await endpointIds();
    await control(emu(), "POST", "/faults", { method: "POST", path: "/webhooks/v1/endpoints", latency_ms: LATENCY_MS, count: 10 });
    const s = settings(3, 500, kinds);
    const args = [require.resolve("tsx/cli"), resolve(__dirname, "../engine/cli.ts"), "up", "--cwd", program, "--stack", "killed", "--state", join(dir, "killed.json")];
    for (const [k, v] of Object.entries(s.config)) args.push("--config", `${k}=${v}`);
    for (const [k, v] of Object.entries(s.secrets)) args.push("--secret", `${k}=${v}`);
    // Its own process group: the CLI, the program and the plugin are killed together.
    const child = spawn(process.execPath, args, { detached: true, stdio: "ignore", env: { ...process.env, SVC_WEBHOOKS_API_KEY: "" } });
    try {
      await waitFor(() => existsSync(join(dir, "killed.json")) && (stateOf("killed").pending_operations ?? []).length === 3);
      // ...and the three creates reached the service (each took one of the latency fault's matches).
      await waitForAsync(async () => (await control<{ faults: { remaining: number }[] }>(emu(), "GET", "/faults")).faults[0]?.remaining === 7);
    } finally {
      process.kill(-child.pid!, "SIGKILL");
    }
    await new Promise((r) => child.once("exit", r));

    const pending = stateOf("killed").pending_operations ?? [];
    expect(pending.map((p) => p.type)).toEqual(["creating", "creating", "creating"]);
    const urns = pending.map((p) => p.resource.urn).sort();
    expect(managed("killed")).toEqual([]);

    // Let the service finish (or drop) the creates it received.
    await new Promise((r) => setTimeout(r, LATENCY_MS + 500));
    await control(emu(), "DELETE", "/faults");
    const orphans = (await endpointIds()).filter((id) => !before.includes(id));
    // Whether the service acted on a create whose connection died depends on when it
    // died: up to three objects no state holds, which only the pending operations point at.
    expect(orphans.length).toBeLessThanOrEqual(3);

    const preview = await run("preview", "killed", 3, 500, kinds, runEngine);
    expect(preview.pendingOperations.map((p) => p.urn).sort()).toEqual(urns);
    const warning = preview.diagnostics.find((d) => d.severity === "warning" && d.message.includes("pending operation"));
    expect(warning?.message).toMatch(/interrupted while creating/);
    expect(warning?.message).toMatch(/refresh/);

    const refresh = await run("refresh", "killed", 3, 500, kinds, runEngine);
    expect(refresh.ok, errorsOf(refresh)).toBe(true);
    const cleared = refresh.diagnostics.filter((d) => d.severity === "warning" && /may exist in the service/.test(d.message));
    expect(cleared.map((d) => d.urn).sort()).toEqual(urns);
    expect(stateOf("killed").pending_operations ?? []).toEqual([]);

    // Clean up what the interrupted creates made.
    for (const id of orphans) await call(emu(), "DELETE", `/webhooks/v1/endpoints/${id}`, { key: ws.webhooks.admin });
  });
});

async function waitForAsync(cond: () => Promise<boolean>, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await cond())) {
    if (Date.now() > deadline) throw new Error("timed out waiting");
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function waitFor(cond: () => boolean, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      if (cond()) return;
    } catch {
      // the state file is being replaced
    }
    if (Date.now() > deadline) throw new Error("timed out waiting");
    await new Promise((r) => setTimeout(r, 100));
  }
}
