/**
 * Secrets in every message: error paths of several kinds run under the real Pulumi CLI
 * against the emulator with secret inputs carrying a recognisable marker (a
 * secret `url` with a token, a header value, a source's password and broker host, an
 * event type's name, the API key), and no diagnostic, provider log line, error
 * message, output or state file holds the marker:
 *   - a verification failure (the endpoint's secret URL; the known bug);
 *   - check failures: a rule quoting a secret subscription pattern, a broker host the
 *     API refuses, a remote check naming a secret event type name;
 *   - a 409 from the service naming the secret name (remote checks skipped);
 *   - 5xx from the service on a create.
 * The provider's side, called as the plugin calls it: error-paths.test.ts, in the inner
 * loop.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { EngineResult } from "../support/run-types";
import { describeWithCli } from "../support/cli-suite";
import { runCli } from "../support/pulumi-cli";
import { emulatorStack } from "../support/stack-config";
import { call, control, useEmulator } from "../support/emulator";

const MARK = "S3CRET-MARK";
const program = join(__dirname, "fixtures", "error-paths");

interface WorkspaceKeys {
  webhooks: { admin: string };
}

const emu = useEmulator();
let ws: WorkspaceKeys;
let dir: string;

beforeAll(async () => {
  ws = await control<WorkspaceKeys>(emu(), "POST", "/workspaces", { plan: "enterprise" });
  dir = mkdtempSync(join(tmpdir(), "svc-secret-errors-"));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const SECRETS = {
  // Nothing listens on port 1: the challenge is refused, verification fails.
  hookUrl: `https://127.0.0.1:1/in?token=${MARK}-url-5d2e`,
  otherHookUrl: `https://hooks.example.com/in?token=${MARK}-other-9b3a`,
  headerValue: `Bearer ${MARK}-header-77a1`,
  pattern: `order..${MARK}-pattern`,
  eventName: `orders.${MARK}-name`,
  brokerPassword: `${MARK}-password-0c4b`,
  brokerHost: `${MARK}-host.localhost`,
};

async function run(verb: "preview" | "up", kase: string, config: Record<string, string> = {}): Promise<{ r: EngineResult; everything: string }> {
  const stateFile = join(dir, `${kase}-${verb}.json`);
  const r = await runCli({
    verb,
    cwd: program,
    stack: kase,
    stateFile,
    ...emulatorStack(emu(), { webhooks: ws.webhooks.admin }, { config: { case: kase, ...config }, secrets: SECRETS, env: { SVC_SKIP_REMOTE_CHECKS: "" } }),
  });
  let state = "";
  try {
    state = readFileSync(stateFile, "utf8");
  } catch {
    // A preview writes no state.
  }
  return { r, everything: `${r.summary}\n${JSON.stringify(r)}\n${state}` };
}

const errorsOf = (r: EngineResult) => r.diagnostics.filter((d) => d.severity === "error").map((d) => d.message).join("\n");

function expectNoSecret(everything: string) {
  expect(everything).not.toContain(MARK);
  expect(everything).not.toContain(ws.webhooks.admin);
}

describeWithCli("error paths never print a secret input", () => {
  it("a failed verification of an endpoint whose URL is a secret: the failure is reported, the URL and token are not", async () => {
    const { r, everything } = await run("up", "verify");
    expect(r.ok).toBe(false);
    expect(errorsOf(r)).toContain("is not verified");
    expect(errorsOf(r)).toContain("[secret]");
    expectNoSecret(everything);
  });

  it("check: a rule quoting a secret subscription pattern", async () => {
    const { r, everything } = await run("preview", "check");
    expect(r.ok).toBe(false);
    expect(errorsOf(r)).toContain("has an empty segment");
    expectNoSecret(everything);
  });

  it("check: a broker host the API refuses, given as a secret (with a secret password)", async () => {
    const { r, everything } = await run("preview", "broker");
    expect(r.ok).toBe(false);
    expect(errorsOf(r)).toContain("broker_not_allowed");
    expectNoSecret(everything);
  });

  describe("a secret event type name already registered", () => {
    beforeAll(async () => {
      const res = await call(emu(), "POST", "/webhooks/v1/event-types", { key: ws.webhooks.admin, body: { name: SECRETS.eventName } });
      expect(res.status).toBe(201);
    });

    it("the remote check at preview names the clash, not the name", async () => {
      const { r, everything } = await run("preview", "conflict");
      expect(r.ok).toBe(false);
      expect(errorsOf(r)).toContain("is already registered");
      expectNoSecret(everything);
    });

    it("the service's 409 at up (remote checks skipped) names the clash, not the name", async () => {
      const { r, everything } = await run("up", "conflict", { "svc:skipRemoteChecks": "true" });
      expect(r.ok).toBe(false);
      expect(errorsOf(r)).toContain("event_type_exists");
      expectNoSecret(everything);
    });
  });

  it("5xx from the service on the create of an endpoint with a secret URL and header", async () => {
    await control(emu(), "POST", "/faults", { method: "POST", path: "/webhooks/v1/endpoints", status: 500, count: 20 });
    try {
      // Each 5xx'd create is looked for until the window has passed: kept short.
      const { r, everything } = await run("up", "server-error", { "svc:reconcileWindowSeconds": "1" });
      expect(r.ok).toBe(false);
      expect(errorsOf(r)).toMatch(/500|outcome is unknown/);
      expectNoSecret(everything);
    } finally {
      await control(emu(), "DELETE", "/faults");
    }
  });
});
