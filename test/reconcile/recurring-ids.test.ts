/**
 * Ids made of a name recur: an event type's id is `workspace/<name>`, the same in every
 * workspace and again after a delete. The create journal remembers the ids earlier
 * creates got, so that an object held by another resource is never adopted; it must
 * not take a later object with the same id for that one. Found by the model-based test
 * (seed 20261130): an event type, destroyed, created again with its answer lost, failed
 * with `event_type_exists` and left an entry the state did not hold.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runEngine } from "../engine/engine";
import { call, control, useEmulator } from "../support/emulator";
import type { Workspace } from "../provider/support";
import { errorsOf, RUNS_TIMEOUT_MS } from "./support";

const emu = useEmulator();
const dir = mkdtempSync(join(tmpdir(), "svc-recurring-ids-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const SPEC = [{ kind: "webhooks:EventType", name: "order-created", args: { name: "order.created", description: "an order was placed" }, aliases: [] }];

/** The model's program (it declares the spec it is given) in one workspace; every stack shares one create journal. */
function stackIn(ws: Workspace, name: string) {
  const run = (verb: "up" | "destroy") =>
    runEngine({
      verb,
      cwd: resolve(__dirname, "../model/program"),
      stack: name,
      stateFile: join(dir, `${name}.json`),
      config: { "svc:webhooksUrl": emu().webhooksUrl, "svc-model:spec": JSON.stringify(SPEC) },
      secrets: { "svc:webhooksApiKey": ws.webhooks.admin, "svc-model:marker": "marker-not-used" },
      env: { SVC_JOURNAL_DIR: join(dir, "journal"), SVC_WEBHOOKS_URL: "", SVC_WEBHOOKS_API_KEY: "" },
    });
  const entries = async () => ((await call(emu(), "GET", "/webhooks/v1/event-types?limit=200", { key: ws.webhooks.admin })).body.data as { name: string }[]).map((e) => e.name);
  return { run, entries };
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
