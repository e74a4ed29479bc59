/**
 * A rate-limited up through the real Pulumi CLI (`npm run pulumi:install`) at --parallel 64
 * (the up given the flag, its destroy PULUMI_PARALLEL=64 in the environment), as a user with a big
 * stack runs it against a remote service: 120 independent endpoints, the service
 * allowing 20 requests/s per key (burst 20), 20 ms away. The provider paces itself
 * (provider/client/pacing.ts): every step succeeds, few requests draw a 429 (counted
 * in the emulator's request log), nothing is created twice, and the pacing note
 * appears once. (The engine stand-in no longer runs it: it took as long as the real CLI.)
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { EngineResult } from "../support/run-types";
import { cliRunner } from "../support/runner";
import { call, control, lastSeq, requestsSince, useEmulator } from "../support/emulator";
import type { Workspace } from "./support";

const program = resolve(__dirname, "../../bench/program");
const N = 120;
const RATE = 20;

const emu = useEmulator();
let ws: Workspace;
let dir: string;

beforeAll(async () => {
  ws = await control<Workspace>(emu(), "POST", "/workspaces", { plan: "enterprise" });
  dir = mkdtempSync(join(tmpdir(), "svc-ratelimit-"));
});
afterAll(async () => {
  await control(emu(), "PUT", "/limits", {});
  rmSync(dir, { recursive: true, force: true });
});

/**
 * How the user asks for 64 steps at once: the CLI's flag for the up, the environment for the
 * destroy (one stack: each way of asking proven under the rate limit once, by a run of 120 steps).
 */
const PARALLELISM = {
  up: { how: "--parallel 64", parallel: 64, env: {} },
  destroy: { how: "PULUMI_PARALLEL=64", parallel: undefined, env: { PULUMI_PARALLEL: "64" } },
} as const satisfies Record<"up" | "destroy", { how: string; parallel: number | undefined; env: Record<string, string> }>;

function run(verb: "up" | "destroy"): Promise<EngineResult> {
  const p = PARALLELISM[verb];
  return cliRunner.run({
    verb,
    cwd: program,
    stack: "ratelimit",
    stateFile: join(dir, "state.json"),
    parallel: p.parallel,
    skipCheckpoints: true,
    config: { "bench:count": String(N), "bench:kinds": JSON.stringify(["webhooks:Endpoint"]), "svc:webhooksUrl": emu().webhooksUrl },
    secrets: { "svc:webhooksApiKey": ws.webhooks.admin },
    env: { SVC_WEBHOOKS_URL: "", SVC_WEBHOOKS_API_KEY: "", ...p.env },
  });
}

const errorsOf = (r: EngineResult) => r.diagnostics.filter((d) => d.severity === "error").map((d) => d.message).join("\n");
const pacingNotes = (r: EngineResult) => r.diagnostics.filter((d) => d.message.includes("rate limited by the service; pacing to about"));

if (cliRunner.unavailable) console.log(`rate-limited up: skipped: ${cliRunner.unavailable}`);
describe.skipIf(cliRunner.unavailable !== undefined)(`an up of ${N} resources against ${RATE} requests/s (burst ${RATE}), 20 ms away, at ${PARALLELISM.up.how}; its destroy at ${PARALLELISM.destroy.how}`, () => {
  it("succeeds with every step, at most 10% of the writes drawing a 429, nothing created twice; the pacing note at most once", async () => {
    await control(emu(), "PUT", "/limits", { rate_limit: RATE, burst: RATE, latency_ms: 20 });
    const since = await lastSeq(emu());
    const started = Date.now();
    const up = await run("up");
    const seconds = (Date.now() - started) / 1000;
    expect(up.ok, errorsOf(up)).toBe(true);
    expect(up.steps.filter((s) => s.failed)).toEqual([]);
    expect(up.steps.filter((s) => s.op === "create" && s.type.includes("svc/")).length).toBe(N);

    const log = await requestsSince(emu(), since);
    const writes = log.filter((r) => r.method === "POST");
    const refused = log.filter((r) => r.status === 429);
    const created = writes.filter((r) => r.status === 201);
    // Every resource created once: as many objects in the service as in the stack.
    expect(created.length).toBe(N);
    const listed = await call(emu(), "GET", "/webhooks/v1/endpoints?limit=200", { key: ws.webhooks.admin });
    // Reading the list takes a token too: wait for it rather than count a 429.
    expect(listed.status === 200 ? listed.body.total : N).toBe(N);
    expect(refused.length).toBeLessThanOrEqual(Math.floor(writes.length / 10));
    // The program registers its resources over a few seconds: waits may stay short enough to go untold.
    expect(pacingNotes(up).length).toBeLessThanOrEqual(1);
    process.stdout.write(`rate-limited up (${PARALLELISM.up.how}): ${N} creates, ${writes.length} writes, ${refused.length} answers of 429, ${seconds.toFixed(1)} s (ideal ${(N - RATE) / RATE} s)\n`);

    // The destroy asks for deletes as fast as the engine goes: at 10 requests/s they queue for
    // seconds, which is told once.
    await control(emu(), "PUT", "/limits", { rate_limit: RATE / 2, burst: RATE / 2, latency_ms: 20 });
    const sinceDestroy = await lastSeq(emu());
    const destroy = await run("destroy");
    expect(destroy.ok, errorsOf(destroy)).toBe(true);
    expect(destroy.steps.filter((s) => s.failed)).toEqual([]);
    const deletes = (await requestsSince(emu(), sinceDestroy)).filter((r) => r.method === "DELETE");
    expect(deletes.filter((r) => r.status === 204).length).toBe(N);
    expect(deletes.filter((r) => r.status === 429).length).toBeLessThanOrEqual(Math.floor(deletes.length / 10));
    // Told at most once per connection, never per request (exactly once: pacing.test.ts), never with the key.
    const notes = pacingNotes(destroy);
    expect(notes.length).toBeLessThanOrEqual(1);
    for (const n of notes) expect(n.message).not.toContain(ws.webhooks.admin);
    process.stdout.write(`rate-limited destroy (${PARALLELISM.destroy.how}): ${deletes.length} deletes, ${deletes.filter((r) => r.status === 429).length} answers of 429, ${notes.length} note(s)\n`);
  }, 900_000);
});
