/**
 * The native plugin and the create journal (provider/engine/create-journal.ts): the engine
 * closes `pulumi-resource-svc` once it saved every step, and the plugin records that, so
 * its answers are held. Found by an adversarial trial: the native plugin never recorded
 * the close, every answer stayed "unsaved", and another stack's identical create (same
 * workspace, same machine) adopted this stack's object instead of making its own; that
 * stack's destroy then deleted it.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { call, control, lastSeq, requestsSince, useEmulator } from "../support/emulator";
import type { Workspace } from "../provider/support";
import { NATIVE_MISSING, nativeStack } from "./support";

const emu = useEmulator();

const PROGRAM = `
resources:
  orders:
    type: svc:webhooks:Endpoint
    properties:
      url: https://hooks.example.com/journal
outputs:
  id: \${orders.id}
`;

if (NATIVE_MISSING) console.log(`native plugin and the create journal: skipped: ${NATIVE_MISSING}`);
describe.skipIf(NATIVE_MISSING !== undefined)("the native plugin and the create journal", () => {
  it("two stacks of one program in one workspace, one journal: each makes its own endpoint; destroying one leaves the other's", async () => {
    const ws = await control<Workspace>(emu(), "POST", "/workspaces", { plan: "enterprise" });
    const journal = fs.mkdtempSync(path.join(os.tmpdir(), "svc-native-journal-"));
    const a = await nativeStack(emu(), "journal-a", PROGRAM, { ws, journal });
    const b = await nativeStack(emu(), "journal-b", PROGRAM, { ws, journal });
    const posts = async (since: number) => (await requestsSince(emu(), since)).filter((r) => r.method === "POST" && r.path === "/webhooks/v1/endpoints");

    let since = await lastSeq(emu());
    const upA = await a.run("up");
    expect(upA.ok, upA.summary.slice(-2000)).toBe(true);
    expect(await posts(since)).toHaveLength(1);
    // The engine closed the plugin after saving: its journal file says so.
    const files = fs.readdirSync(journal).map((f) => fs.readFileSync(path.join(journal, f), "utf8"));
    expect(files.some((text) => text.includes('"closed":1'))).toBe(true);

    since = await lastSeq(emu());
    const upB = await b.run("up");
    expect(upB.ok, upB.summary.slice(-2000)).toBe(true);
    expect(await posts(since)).toHaveLength(1);
    expect(upB.outputs.id).not.toBe(upA.outputs.id);

    expect((await b.run("destroy")).ok).toBe(true);
    expect((await call(emu(), "GET", `/webhooks/v1/endpoints/${String(upA.outputs.id)}`, { key: ws.webhooks.admin })).status).toBe(200);
    expect((await a.run("destroy")).ok).toBe(true);
  }, 600_000);
});
