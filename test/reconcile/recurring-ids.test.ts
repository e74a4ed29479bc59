/**
 * Event types are found by name, so two things about them are tested here.
 *
 * Ids made of a name recur: an event type's id is `workspace/<name>`, the same in every
 * workspace and again after a delete. The create journal remembers the ids earlier
 * creates got, so that an object held by another resource is never adopted; it must
 * not take a later object with the same id for that one. Found by the model-based test
 * (seed 20261130): an event type, destroyed, created again with its answer lost, failed
 * with `event_type_exists` and left an entry the state did not hold.
 *
 * A run killed while the entry's create was in flight: the rerun's preview must not
 * refuse the name as taken by someone else (the journal says this create's own
 * interrupted attempt may have made it), and its create adopts the entry. Found by the
 * model-based test (seed 20261131).
 *
 * Replaced: a description change replaces the entry, deleting it first (the new one has
 * the same name, so the same id). The old id was held by the resource until its delete;
 * the replacement's create, its answer lost, must find the new entry under that id.
 * Found by the model-based test (seed 20261132).
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runEngine } from "../engine/engine";
import { call, control, lastSeq, requestsSince, useEmulator } from "../support/emulator";
import type { Workspace } from "../provider/support";
import { errorsOf, RUNS_TIMEOUT_MS } from "./support";

const emu = useEmulator();
const dir = mkdtempSync(join(tmpdir(), "svc-recurring-ids-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const SPEC = [{ kind: "webhooks:EventType", name: "order-created", args: { name: "order.created", description: "an order was placed" }, aliases: [] }];

/** The model's program (it declares the spec it is given) in one workspace; every stack shares one create journal. */
function stackIn(ws: Workspace, name: string) {
  let spec = SPEC;
  const run = (verb: "up" | "destroy") =>
    runEngine({
      verb,
      cwd: resolve(__dirname, "../model/program"),
      stack: name,
      stateFile: join(dir, `${name}.json`),
      config: { "svc:webhooksUrl": emu().webhooksUrl, "svc-model:spec": JSON.stringify(spec) },
      secrets: { "svc:webhooksApiKey": ws.webhooks.admin, "svc-model:marker": "marker-not-used" },
      env: { SVC_JOURNAL_DIR: join(dir, "journal"), SVC_WEBHOOKS_URL: "", SVC_WEBHOOKS_API_KEY: "" },
    });
  /** `up` in its own process group, killed (CLI, program and plugin) once the service logged its create. */
  const killedUp = async () => {
    const since = await lastSeq(emu());
    const args = [require.resolve("tsx/cli"), resolve(__dirname, "../engine/cli.ts"), "up", "--cwd", resolve(__dirname, "../model/program"), "--stack", name, "--state", join(dir, `${name}.json`)];
    args.push("--config", `svc:webhooksUrl=${emu().webhooksUrl}`, "--config", `svc-model:spec=${JSON.stringify(SPEC)}`);
    args.push("--secret", `svc:webhooksApiKey=${ws.webhooks.admin}`, "--secret", "svc-model:marker=marker-not-used");
    const child = spawn(process.execPath, args, { detached: true, stdio: "ignore", env: { ...process.env, SVC_JOURNAL_DIR: join(dir, "journal"), SVC_WEBHOOKS_URL: "", SVC_WEBHOOKS_API_KEY: "" } });
    const exited = new Promise((r) => child.once("exit", r));
    try {
      while (!(await requestsSince(emu(), since)).some((r) => r.method === "POST")) await new Promise((r) => setTimeout(r, 50));
    } finally {
      process.kill(-child.pid!, "SIGKILL");
    }
    await exited;
  };
  const entries = async () => ((await call(emu(), "GET", "/webhooks/v1/event-types?limit=200", { key: ws.webhooks.admin })).body.data as { name: string }[]).map((e) => e.name);
  const declare = (description: string) => void (spec = [{ ...SPEC[0]!, args: { ...SPEC[0]!.args, description } }]);
  return { run, killedUp, entries, declare };
}

const loseNextCreateAnswer = () => control(emu(), "POST", "/faults", { method: "POST", path: "/webhooks/v1/event-types", count: 1, drop_after_response: true });

describe("an event type whose id an earlier create got", () => {
  it("destroyed, then created again with its answer lost: the new entry is adopted; in another workspace too", async () => {
    const ws = await control<Workspace>(emu(), "POST", "/workspaces", { plan: "enterprise" });
    const first = stackIn(ws, "first");
    expect((await first.run("up")).ok).toBe(true);
    expect((await first.run("destroy")).ok).toBe(true);

    await loseNextCreateAnswer();
    const again = await first.run("up");
    expect(again.ok, errorsOf(again)).toBe(true);
    expect(await first.entries()).toEqual(["order.created"]);

    // Another workspace, the same journal (one machine): workspace/order.created there is another object.
    const other = stackIn(await control<Workspace>(emu(), "POST", "/workspaces", { plan: "enterprise" }), "other");
    await loseNextCreateAnswer();
    const up = await other.run("up");
    expect(up.ok, errorsOf(up)).toBe(true);
    expect(await other.entries()).toEqual(["order.created"]);
  }, RUNS_TIMEOUT_MS);
});

describe("an event type replaced (its description changed) whose create loses its answer", () => {
  it("the new entry, under the old entry's id, is adopted: one entry, with the new description", async () => {
    const ws = await control<Workspace>(emu(), "POST", "/workspaces", { plan: "enterprise" });
    const s = stackIn(ws, "replaced");
    expect((await s.run("up")).ok).toBe(true);
    s.declare("an order was placed by a customer");
    await loseNextCreateAnswer();
    const up = await s.run("up");
    expect(up.ok, errorsOf(up)).toBe(true);
    expect(up.steps.map((st) => st.op)).toContain("replace");
    const listed = (await call(emu(), "GET", "/webhooks/v1/event-types?limit=200", { key: ws.webhooks.admin })).body.data as { name: string; description: string }[];
    expect(listed.map((e) => [e.name, e.description])).toEqual([["order.created", "an order was placed by a customer"]]);
  }, RUNS_TIMEOUT_MS);
});

describe("an event type whose create was in flight when the run was killed", () => {
  it("the rerun's preview does not refuse the name, and its up adopts the entry: one entry, held", async () => {
    const ws = await control<Workspace>(emu(), "POST", "/workspaces", { plan: "enterprise" });
    const s = stackIn(ws, "killed");
    // The service registers it 1.5 s after the connection dropped; the run is killed meanwhile.
    await control(emu(), "POST", "/faults", { method: "POST", path: "/webhooks/v1/event-types", count: 1, drop_then_act_ms: 1_500 });
    await s.killedUp();
    await new Promise((r) => setTimeout(r, 2_000));
    expect(await s.entries()).toEqual(["order.created"]);
    const up = await s.run("up");
    expect(up.ok, errorsOf(up)).toBe(true);
    expect(await s.entries()).toEqual(["order.created"]);
    expect(up.steps.find((st) => st.op === "create")?.failed).toBeFalsy();
  }, RUNS_TIMEOUT_MS);
});
