/**
 * The example program of every reference page (docs/examples/<page>/index.ts) is
 * applied and destroyed against the emulator through the engine stand-in, with the
 * stack config `pulumi-svc/testing` hands out. (They are type-checked with the rest
 * by test/tsconfig.json.)
 */
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { startTestEmulator, type TestEmulator } from "../../testing";
import type { EngineResult } from "../support/run-types";
import { describeWithCli } from "../support/cli-suite";
import { compiledProgram } from "../support/compiled-program";
import { runCli } from "../support/pulumi-cli";

const EXAMPLES = resolve(__dirname, "../../docs/examples");
let emu: TestEmulator;
let dir: string;

beforeAll(async () => {
  emu = await startTestEmulator();
  dir = mkdtempSync(join(tmpdir(), "svc-docs-examples-"));
});
afterAll(async () => {
  await emu?.close();
  rmSync(dir, { recursive: true, force: true });
});

function run(verb: "up" | "destroy", page: string): Promise<EngineResult> {
  const secret = (key: string) => key.endsWith("ApiKey");
  const config = Object.fromEntries(Object.entries(emu.config).filter(([k]) => !secret(k)));
  const secrets = { ...Object.fromEntries(Object.entries(emu.config).filter(([k]) => secret(k))), teamToken: "docs-example-token" };
  // The up previews first, as a user's does; the destroy's preview would show only the deletes it then makes.
  // Each page's program compiled to JavaScript once (as tsx compiles it): no TypeScript loader in each program run.
  return runCli({ verb, cwd: compiledProgram(join(EXAMPLES, page)), stack: "docs", stateFile: join(dir, `${page}.json`), config, secrets, env: { SVC_WEBHOOKS_URL: "", SVC_WEBHOOKS_API_KEY: "" }, skipPreview: verb === "destroy" });
}

const errors = (r: EngineResult) => r.diagnostics.filter((d) => d.severity === "error").map((d) => d.message).join("\n");

describeWithCli("the reference pages' examples", () => {
  it.each(readdirSync(EXAMPLES))("%s applies against the emulator and destroys cleanly", async (page) => {
    const up = await run("up", page);
    expect(errors(up)).toBe("");
    expect(up.ok).toBe(true);
    const created = up.steps.filter((s) => s.type.includes("svc/"));
    expect(created.length).toBeGreaterThan(0);
    expect(created.every((s) => s.op === "create")).toBe(true);
    const destroy = await run("destroy", page);
    expect(errors(destroy)).toBe("");
    expect(destroy.steps.filter((s) => s.type.includes("svc/")).map((s) => s.op)).toEqual(created.map(() => "delete"));
  });
});
