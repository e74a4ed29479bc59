/**
 * Secrets scan: every example under examples/ (gitops excepted: it verifies its
 * endpoint against a public receiver) runs under the real Pulumi CLI (up, then a
 * failing run with a wrong key, then destroy) against the emulator, and no secret
 * appears in plaintext in:
 *   - the state file as written (after up and after destroy),
 *   - anything printed (summary, diagnostics, outputs: the whole EngineResult),
 *   - the emulator's request log (GET /_emulator/requests),
 *   - any error message;
 * and `__provider` holds no credential (it is the thin shim).
 *
 * The secrets searched for: the API keys, every secret config value the example
 * reads (given distinctive values), and every secret value the state holds once
 * decrypted (signing secrets, source secrets, custom header values), except short
 * or literal values the program text itself spells out.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { EngineResult } from "../support/run-types";
import { isObject, isSecret, type Json } from "../support/values";
import { describeWithCli } from "../support/cli-suite";
import { loadCliDeployment, runCli } from "../support/pulumi-cli";
import { emulatorStack } from "../support/stack-config";
import { providers } from "../../provider";
import { control, useEmulator } from "../support/emulator";

const root = resolve(__dirname, "../..");
const EXCLUDED = new Set(["gitops"]);

/** Example directories holding a Pulumi.yaml. */
const examples = readdirSync(join(root, "examples"), { withFileTypes: true })
  .filter((d) => d.isDirectory() && !EXCLUDED.has(d.name) && existsSync(join(root, "examples", d.name, "Pulumi.yaml")))
  .map((d) => d.name);

interface WorkspaceKeys {
  workspace_id: string;
  project_id: string;
  webhooks: { admin: string };
  inboxes: { admin: string };
  infra: { admin: string };
}

/** Secret config keys the program reads (`requireSecret("x")`, `getSecret("x")`, `getSecretObject`...). */
function secretConfigKeys(programText: string): string[] {
  const keys = new Set<string>();
  for (const m of programText.matchAll(/\.(?:require|get)Secret(?:Object|Number|Boolean)?\(\s*["'`]([^"'`]+)["'`]/g)) keys.add(m[1]!);
  return [...keys];
}

/** The string leaves of every secret value, decrypted, in a deployment's inputs and outputs. */
function secretLeaves(value: unknown, inSecret = false, out: string[] = []): string[] {
  if (isSecret(value)) return secretLeaves(value.value, true, out);
  if (typeof value === "string") {
    if (inSecret) out.push(value);
  } else if (Array.isArray(value)) value.forEach((v) => secretLeaves(v, inSecret, out));
  else if (isObject(value)) Object.values(value).forEach((v) => secretLeaves(v as Json, inSecret, out));
  return out;
}

function programText(dir: string): string {
  return readdirSync(dir)
    .filter((f) => /\.(ts|js|ya?ml)$/.test(f))
    .map((f) => readFileSync(join(dir, f), "utf8"))
    .join("\n");
}

/** Plain settings an example requires beyond the connection (what its own end-to-end test passes). */
const EXAMPLE_CONFIG: Record<string, (ws: WorkspaceKeys) => Record<string, string>> = {
  "webhooks-workspace": (ws) => ({ productionProjectId: ws.project_id }),
};

// Bins get an https URL (the test-environment example delivers to one).
const emu = useEmulator({ binPublicUrl: "https://bins.svc.test" });

describeWithCli("the examples keep every secret out of plaintext", () => {
  describe.each(examples)("example %s", (example) => {
    const cwd = join(root, "examples", example);
    const source = programText(cwd);
    let ws: WorkspaceKeys;
    let dir: string;
    const seen: { what: string; text: string }[] = [];
    const secrets = new Set<string>();
    const stateFile = () => join(dir, "scan.json");

    beforeAll(async () => {
      ws = await control<WorkspaceKeys>(emu(), "POST", "/workspaces", { plan: "enterprise" });
      dir = mkdtempSync(join(tmpdir(), `svc-secrets-${example}-`));
      for (const k of [ws.webhooks.admin, ws.inboxes.admin, ws.infra.admin]) secrets.add(k);
    });
    afterAll(() => rmSync(dir, { recursive: true, force: true }));

    const configSecrets = Object.fromEntries(secretConfigKeys(source).map((k) => [k, `scan-${k}-S3CR3T-7f41c9e2`]));
    for (const v of Object.values(configSecrets)) secrets.add(v);

    const run = (verb: "up" | "destroy", apiKey?: string, file = stateFile()) =>
      runCli({
        verb,
        cwd,
        stack: "scan",
        stateFile: file,
        // Settings only from the stack config.
        ...emulatorStack(
          emu(),
          { webhooks: apiKey ?? ws.webhooks.admin, inboxes: apiKey ?? ws.inboxes.admin, infra: apiKey ?? ws.infra.admin },
          { config: EXAMPLE_CONFIG[example]?.(ws) ?? {}, secrets: configSecrets },
        ),
      });

    const record = (what: string, r: EngineResult) => seen.push({ what, text: `${r.summary}\n${JSON.stringify(r)}` });
    const errors = (r: EngineResult) => r.diagnostics.filter((d) => d.severity === "error").map((d) => d.message).join("\n");

    it("up succeeds; the decrypted state's secret values join the search", async () => {
      const r = await run("up");
      record("up", r);
      expect(r.ok, errors(r)).toBe(true);
      const deployment = loadCliDeployment({ cwd, stack: "scan", stateFile: stateFile() });
      const managed = deployment.resources.filter((x) => x.custom && !x.type.startsWith("pulumi:providers:"));
      expect(managed.length).toBeGreaterThan(0);
      const before = secrets.size;
      for (const res of managed) {
        for (const leaf of secretLeaves({ i: res.inputs, o: res.outputs } as Json)) {
          // A literal the program spells out in plain text, or a short word, is no searchable secret.
          if (leaf.length >= 12 && !source.includes(leaf)) secrets.add(leaf);
        }
      }
      // Something secret came back from the service or was built from a secret (a signing secret, a header).
      expect(secrets.size).toBeGreaterThan(before);
      seen.push({ what: "state after up", text: readFileSync(stateFile(), "utf8") });
    });

    it("__provider is the shim: no key, no secret, no client", () => {
      const deployment = JSON.parse(readFileSync(stateFile(), "utf8")) as { checkpoint: { latest: { resources: { type: string; inputs: Record<string, unknown>; outputs: Record<string, unknown> }[] } } };
      const managed = deployment.checkpoint.latest.resources.filter((r) => r.type.startsWith("pulumi-nodejs:dynamic"));
      for (const r of managed) {
        for (const provider of [r.inputs.__provider, r.outputs.__provider]) {
          expect(typeof provider).toBe("string");
          const text = provider as string;
          expect(text).toContain("pulumi-svc/provider");
          expect(text.length).toBeLessThan(4000);
          expect(text).not.toMatch(/Bearer|apiKey\s*[:=]\s*["'`]|eyJ[A-Za-z0-9_-]{10,}|svc_test_[a-z2-7]{10,}/);
          for (const s of secrets) expect(text.includes(s), `__provider of ${r.type} holds a secret`).toBe(false);
        }
      }
    });

    it("refusals of a wrong key never echo the key (every registered kind: read, delete)", async () => {
      // Through the provider directly: the stand-in does not end a program whose create is refused.
      const wrongKey = "eyJ-scan-wrong-key-9d0e1f2a3b4c5d6e";
      secrets.add(wrongKey);
      const messages: string[] = [];
      for (const provider of Object.values(providers)) {
        const product = provider.definition.product;
        const values: Record<string, string> = { [`svc:${product}Url`]: (emu() as unknown as Record<string, string>)[`${product}Url`]!, [`svc:${product}ApiKey`]: wrongKey };
        await provider.configure!({ config: { get: (k: string) => values[k], require: (k: string) => values[k]! } } as never);
        for (const op of [() => provider.read!("scan-id", {}), () => provider.delete!("scan-id", {})]) {
          // (A singleton's delete with nothing to restore makes no call, so not every op fails.)
          const err = await op().then(() => undefined, (e: unknown) => e as Error);
          if (err) messages.push(`${err.message}\n${err.stack ?? ""}`);
        }
      }
      expect(messages.length).toBeGreaterThan(0);
      seen.push({ what: "provider error messages", text: messages.join("\n") });
    });

    it("destroy succeeds and leaves nothing behind", async () => {
      const r = await run("destroy");
      record("destroy", r);
      expect(r.ok, errors(r)).toBe(true);
      seen.push({ what: "state after destroy", text: readFileSync(stateFile(), "utf8") });
    });

    it("no secret appears in plaintext in the state, the output, the errors or the request log", async () => {
      const log = await control<{ requests: unknown[] }>(emu(), "GET", "/requests?since=0");
      seen.push({ what: "emulator request log", text: JSON.stringify(log) });
      expect(secrets.size).toBeGreaterThan(3);
      const leaks: string[] = [];
      for (const { what, text } of seen) for (const s of secrets) if (text.includes(s)) leaks.push(`${what} holds ${s.slice(0, 6)}…`);
      expect(leaks).toEqual([]);
    });
  });
});
