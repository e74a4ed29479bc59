/**
 * A program declaring two new QuotaRequests for the same quota, through the engine
 * stand-in (real program runtime, real dynamic-provider plugin loading dist/): the
 * preview fails naming the other request and files nothing; an up without a preview
 * (the CLI previews first unless --skip-preview) files one request, never two.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { describeWithCli } from "../support/cli-suite";
import { runCli } from "../support/pulumi-cli";
import { emulatorStack } from "../support/stack-config";
import { control, lastSeq, requestsSince, useEmulator } from "../support/emulator";
import type { Workspace } from "./support";

const emu = useEmulator();
let ws: Workspace;
let dir: string;

beforeAll(async () => {
  ws = await control<Workspace>(emu(), "POST", "/workspaces", { plan: "pro" });
  dir = mkdtempSync(join(tmpdir(), "svc-quota-twins-"));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function run(verb: "preview" | "up") {
  const since = await lastSeq(emu());
  const result = await runCli({
    verb,
    // The second test is about an up WITHOUT its preview (which would stop it first).
    skipPreview: true,
    cwd: resolve(__dirname, "fixtures/quota-twins"),
    stack: "ci",
    stateFile: join(dir, `${verb}.json`),
    ...emulatorStack(emu(), { infra: ws.infra.member }),
  });
  const errors = result.diagnostics.filter((d) => d.severity === "error").map((d) => d.message).join("\n");
  const writes = (await requestsSince(emu(), since)).filter((r) => r.method !== "GET").map((r) => `${r.method} ${r.path}`);
  return { ok: result.ok, errors, writes };
}

describeWithCli("two QuotaRequests for one quota in one program", () => {
  // Check runs concurrently: whichever request comes second names the other.
  const TWIN = /QuotaRequest "(more-vms|launch-capacity)" of this program also asks for vms of compute in us-east-1/;

  it("preview fails on the second request for vms, naming the first; nothing is filed", async () => {
    const { ok, errors, writes } = await run("preview");
    expect(ok).toBe(false);
    expect(errors).toMatch(TWIN);
    expect(writes).toEqual([]);
  });

  it("an up without a preview files one of the two, never both", async () => {
    const { ok, errors, writes } = await run("up");
    expect(ok).toBe(false);
    expect(errors).toMatch(TWIN);
    expect(writes).toEqual(["POST /infra/api/v1/quota-request/"]);
  });
});
