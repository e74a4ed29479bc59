/**
 * State written by earlier releases (test/fixtures/state/<version>/), moved into a stack of
 * the real Pulumi CLI with `pulumi stack import` and managed by today's code: preview shows no change, refresh no
 * drift, a no-op up writes nothing, one field change is one call, destroy leaves
 * nothing; and a state whose shape is newer than this package knows fails the
 * preview naming both shapes, with nothing written.
 */
import { copyFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { startEmulator, type RunningEmulator } from "../../emulator";
import { DEFINITIONS } from "../../provider/registry";
import { whereRecorded } from "../../provider/engine/reach";
import { SHAPE_KEY } from "../../provider/engine/upgrade";
import { RESOURCE_KINDS, TYPE_TOKENS } from "../../sdk/tokens";
import { DEFAULT_TEST_PASSPHRASE } from "../support/crypter";
import type { EngineResult } from "../support/run-types";
import { StateFile, type Deployment } from "../support/state";
import { importCliState, loadCliState, runCli } from "../support/pulumi-cli";
import { describeWithCli } from "../support/cli-suite";
import type { Workspace } from "../provider/support";
import { errorsOf, stackOptions, writesDuring, type Declared } from "./stack";

const STATES = join(__dirname, "../fixtures/state");
/** One run of a 9-resource stack: seconds on a quiet machine, about a minute on a loaded one. */
const RUN_TIMEOUT = 300_000;

interface Meta {
  version: string;
  emulatorUrl: string;
  workspace: Workspace;
  resources: Declared[];
}

const kindSteps = (r: EngineResult) => r.steps.filter((s) => s.type.startsWith("pulumi-nodejs:dynamic/svc/"));

for (const version of readdirSync(STATES).filter((d) => existsSync(join(STATES, d, "stack.json")))) {
  describeWithCli(`state written by ${version}`, () => {
    const meta = JSON.parse(readFileSync(join(STATES, version, "stack-meta.json"), "utf8")) as Meta;
    let emu: RunningEmulator;
    let dir: string;
    const stateFile = () => join(dir, "stack.json");
    let resources = meta.resources;
    const released = (from: string, to: string): Deployment => JSON.parse(JSON.stringify(new StateFile(join(STATES, version, "stack.json"), DEFAULT_TEST_PASSPHRASE).load()).replaceAll(from, to)) as Deployment;

    beforeAll(async () => {
      dir = mkdtempSync(join(tmpdir(), `svc-state-${version}-`));
      copyFileSync(join(STATES, version, "service.json"), join(dir, "service.json"));
      emu = await startEmulator({ stateFile: join(dir, "service.json") });
      // The fixture is the stand-in's state file (its own encryption): decrypted, its stored
      // provider config (secret profiles included) pointed at this emulator, then imported.
      importCliState(options("preview"), released(meta.emulatorUrl, emu.url));
    }, RUN_TIMEOUT);
    afterAll(async () => {
      await emu?.close();
      rmSync(dir, { recursive: true, force: true });
    }, RUN_TIMEOUT);

    const options = (verb: "preview" | "up" | "refresh" | "destroy", file = stateFile()) => stackOptions(emu, meta.workspace, verb, "release", file, resources);
    const run = (verb: "preview" | "up" | "refresh" | "destroy", file = stateFile()) => runCli(options(verb, file));
    const callsDuring = (fn: () => Promise<EngineResult>) => writesDuring(emu, fn);

    it("holds every registered kind", () => {
      const types = JSON.parse(readFileSync(stateFile(), "utf8")).checkpoint.latest.resources.map((r: { type: string }) => r.type);
      for (const kind of RESOURCE_KINDS) if (DEFINITIONS[kind]) expect(types, kind).toContain(TYPE_TOKENS[kind]);
    }, RUN_TIMEOUT);

    it("a state whose shape is newer than this package knows fails the preview naming both shapes; nothing written", async () => {
      const newer = join(dir, "newer.json");
      const state = released(meta.emulatorUrl, emu.url);
      const inbox = state.resources.find((r) => r.type === TYPE_TOKENS["inboxes:Inbox"])!;
      inbox.outputs[SHAPE_KEY] = 99;
      importCliState(options("preview", newer), state);
      const { result: r, writes } = await callsDuring(() => run("preview", newer));
      expect(r.ok).toBe(false);
      expect(errorsOf(r)).toMatch(/state shape 99.*knows shapes up to 1.*Upgrade the pulumi-svc package/);
      expect(writes).toEqual([]);
    }, RUN_TIMEOUT);

    it("preview shows no change", async () => {
      const { result: r, writes } = await callsDuring(() => run("preview"));
      expect(r.ok, errorsOf(r)).toBe(true);
      expect(kindSteps(r).filter((s) => s.op !== "same")).toEqual([]);
      expect(kindSteps(r)).toHaveLength(meta.resources.length);
      expect(writes).toEqual([]);
    });

    it("refresh shows no drift and writes nothing; every entry but the workspace's event type policy then knows where it lives (provider/engine/reach.ts)", async () => {
      const { result: r, writes } = await callsDuring(() => run("refresh"));
      expect(r.ok, errorsOf(r)).toBe(true);
      expect(kindSteps(r).filter((s) => s.op !== "same")).toEqual([]);
      expect(writes).toEqual([]);
      const entries = loadCliState(options("refresh")).filter((x) => x.custom && x.type.startsWith("pulumi-nodejs:dynamic/svc/"));
      expect(entries).toHaveLength(meta.resources.length);
      // A setting answers for whatever workspace the key reaches: its read proves nothing, and the policy's outputs name no workspace.
      for (const res of entries) {
        const kind = RESOURCE_KINDS.find((k) => TYPE_TOKENS[k] === res.type)!;
        expect(whereRecorded(DEFINITIONS[kind]!, res.outputs) === undefined, res.urn).toBe(kind === "webhooks:EventTypePolicy");
      }
    }, RUN_TIMEOUT);

    it("a no-op up writes nothing, and leaves the state's outputs as they were (no __shape added)", async () => {
      const load = () => loadCliState(options("up"));
      const before = load();
      const { result: r, writes } = await callsDuring(() => run("up"));
      expect(r.ok, errorsOf(r)).toBe(true);
      expect(kindSteps(r).filter((s) => s.op !== "same")).toEqual([]);
      expect(writes).toEqual([]);
      for (const res of load().filter((x) => x.custom && x.type.startsWith("pulumi-nodejs:dynamic/"))) {
        const old = before.find((b) => b.urn === res.urn)!;
        expect(res.outputs, res.urn).toEqual(old.outputs);
        // The release's serialized provider is not today's: the inputs now hold today's
        // (shorter) text and the outputs keep the release's, which refresh and delete load.
        expect(String(res.inputs["__provider"]).length, res.urn).toBeLessThan(String(old.outputs["__provider"]).length);
      }
    });

    it("one field change is one call; the updated resource then records its shape", async () => {
      resources = meta.resources.map((d) => (d.kind === "webhooks:Endpoint" ? { ...d, inputs: { ...d.inputs, description: "changed by today's code" } } : d));
      const { result: r, writes } = await callsDuring(() => run("up"));
      expect(r.ok, errorsOf(r)).toBe(true);
      expect(kindSteps(r).filter((s) => s.op !== "same").map((s) => [s.name, s.op, s.diffs])).toEqual([["endpoint", "update", ["description"]]]);
      const endpoint = JSON.parse(readFileSync(stateFile(), "utf8")).checkpoint.latest.resources.find((x: { type: string }) => x.type === TYPE_TOKENS["webhooks:Endpoint"]);
      expect(writes).toEqual([`PATCH /v1/endpoints/${endpoint.id}`]);
      expect(endpoint.outputs[SHAPE_KEY]).toBe(1);
    });

    it("destroy leaves nothing of the stack in the service", async () => {
      const ids = JSON.parse(readFileSync(stateFile(), "utf8")).checkpoint.latest.resources.filter((x: { custom: boolean }) => x.custom).map((x: { id: string }) => x.id);
      const r = await run("destroy");
      expect(r.ok, errorsOf(r)).toBe(true);
      expect(JSON.parse(readFileSync(stateFile(), "utf8")).checkpoint.latest.resources ?? []).toEqual([]);
      const ws = meta.workspace;
      const get = (product: "webhooks" | "inboxes" | "infra", path: string, key: string) => fetch(`${emu.url}/${product}${path}`, { headers: { authorization: `Bearer ${key}` } });
      const endpoints = (await (await get("webhooks", "/v1/endpoints", ws.webhooks.admin)).json()) as { total: number };
      expect(endpoints.total).toBe(0);
      const inbox = ids.find((id: string) => id.startsWith("inb_"));
      expect((await get("inboxes", `/v1/inboxes/${inbox}`, ws.inboxes.admin)).status).toBe(404);
      const request = (await (await get("infra", `/api/v1/quota-request/?id=${ids.find((id: string) => id.startsWith("qr_"))}`, ws.infra.member)).json()) as { state: string };
      expect(request.state).toBe("withdrawn");
    }, RUN_TIMEOUT);
  });
}
