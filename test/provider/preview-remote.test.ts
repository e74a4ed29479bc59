/**
 * Preview's checks that read the service never pass silently when they could not run:
 * a key the service refuses, a service that does not answer and an address missing its
 * product path each fail the preview (through the engine stand-in, against the
 * emulator) naming the config key and the address, never the key; `svc:skipRemoteChecks`
 * (or SVC_SKIP_REMOTE_CHECKS) lets an offline preview pass with a warning naming what
 * was skipped. Errors of create and read about the connection name the address tried;
 * a wrong address never makes refresh drop a resource or delete count it as gone. The
 * missing-config message suggests `--secret` only for a key and names no `profile`
 * when none is set.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, expect, it } from "vitest";
import { providers } from "../../provider";
import * as svc from "../../sdk";
import type { EngineResult } from "../support/run-types";
import { describeWithCli } from "../support/cli-suite";
import { runCli } from "../support/pulumi-cli";
import { control, useEmulator } from "../support/emulator";
import { configure, type Workspace } from "./support";

const emu = useEmulator();
let ws: Workspace;
// A port nothing listens on. Not one bound and let go: the test's own Pulumi processes bind
// ports meanwhile, and one took it (a gRPC server answering the HTTP request: HTTPParserError).
const closedPort = 1;

beforeAll(async () => {
  ws = await control<Workspace>(emu(), "POST", "/workspaces", { plan: "free" });
});

const text = (r: EngineResult) => r.diagnostics.map((d) => d.message).join("\n");
const errors = (r: EngineResult) => r.diagnostics.filter((d) => d.severity === "error").map((d) => d.message).join("\n");

function preview(settings: { url?: string; key?: string; config?: Record<string, string>; env?: Record<string, string> }) {
  return runCli({
    verb: "preview",
    cwd: join(__dirname, "fixtures", "mistakes"),
    stack: "remote",
    stateFile: join(mkdtempSync(join(tmpdir(), "svc-remote-")), "remote.json"),
    config: { "svc:inboxesUrl": settings.url ?? emu().inboxesUrl, case: "inbox", ...settings.config },
    secrets: { "svc:inboxesApiKey": settings.key ?? ws.inboxes.admin },
    env: { SVC_INBOXES_URL: "", SVC_INBOXES_API_KEY: "", SVC_SKIP_REMOTE_CHECKS: "", ...settings.env },
  });
}

describeWithCli("preview fails when its remote checks cannot run", () => {
  const WRONG_KEY = "svc_wrong_key_2f9c0e1d7a6b";

  it("a key the service refuses: fails naming svc:inboxesApiKey and the address, never the key", async () => {
    const r = await preview({ key: WRONG_KEY });
    expect(r.ok).toBe(false);
    expect(errors(r)).toContain("refused the API key");
    expect(errors(r)).toContain("svc:inboxesApiKey");
    expect(errors(r)).toContain(emu().inboxesUrl);
    expect(errors(r)).toContain("svc:skipRemoteChecks");
    expect(JSON.stringify(r)).not.toContain(WRONG_KEY);
  });

  it("a service that does not answer: fails naming the address tried and svc:inboxesUrl", async () => {
    const url = `http://127.0.0.1:${closedPort}/inboxes`;
    const r = await preview({ url });
    expect(r.ok).toBe(false);
    expect(errors(r)).toMatch(/no answer from the inboxes service at http:\/\/127\.0\.0\.1:\d+\/inboxes \(ECONNREFUSED\)/);
    expect(errors(r)).toContain("svc:inboxesUrl");
  });

  it("an address missing its product path: the 404 says so and names the config key", async () => {
    const r = await preview({ url: emu().url });
    expect(r.ok).toBe(false);
    expect(errors(r)).toContain(`svc:inboxesUrl=${emu().url.replace(/\/+$/, "")} is probably missing the inboxes product path`);
  });

  it.each<{ how: string; config: Record<string, string>; env: Record<string, string> }>([
    { how: "svc:skipRemoteChecks", config: { "svc:skipRemoteChecks": "true" }, env: {} },
    { how: "SVC_SKIP_REMOTE_CHECKS", config: {}, env: { SVC_SKIP_REMOTE_CHECKS: "1" } },
  ])("offline preview opted into with $how passes, with a warning naming what was skipped", async ({ config, env }) => {
    const r = await preview({ key: WRONG_KEY, config, env });
    expect(r.ok, errors(r)).toBe(true);
    expect(text(r)).toMatch(/svc:skipRemoteChecks is set: preview did not read the service to check inbox resources \(plan ceilings/);
  });

  it("a skipRemoteChecks value that is not a boolean fails, naming the setting", async () => {
    const r = await preview({ config: { "svc:skipRemoteChecks": "sometimes" } });
    expect(r.ok).toBe(false);
    expect(errors(r)).toContain('svc:skipRemoteChecks (or SVC_SKIP_REMOTE_CHECKS) must be true or false, not "sometimes"');
  });
});

describeWithCli("errors about the connection name the address and the setting", () => {
  const endpoint = providers["webhooks:Endpoint"]!;

  it("create against a closed port: the address tried and svc:webhooksUrl", async () => {
    await configure(endpoint, { "svc:webhooksUrl": `http://127.0.0.1:${closedPort}/webhooks`, "svc:webhooksApiKey": "k" });
    const err = await endpoint.create({ url: "https://x.example.com/in", subscriptions: [] }).then(() => undefined, (e: Error) => e);
    expect(err?.message).toContain(`no answer from the service (ECONNREFUSED) at http://127.0.0.1:${closedPort}/webhooks/v1/endpoints`);
    expect(err?.message).toContain("Check svc:webhooksUrl (or SVC_WEBHOOKS_URL)");
  });

  it("a data function in the program process (profile ci): the address tried and that profile's setting", async () => {
    process.env.SVC_PROFILE_CI_WEBHOOKS_URL = `http://127.0.0.1:${closedPort}/webhooks`;
    process.env.SVC_PROFILE_CI_WEBHOOKS_API_KEY = "k-program-123456";
    try {
      const err = await svc.webhooks.getAuthMe({ profile: "ci" }).then(() => undefined, (e: Error) => e);
      expect(err?.message).toContain(`no answer from the service (ECONNREFUSED) at http://127.0.0.1:${closedPort}/webhooks/v1/auth/me`);
      expect(err?.message).toContain("Check svc:profiles.ci.webhooksUrl (or SVC_PROFILE_CI_WEBHOOKS_URL)");
      expect(err?.message).not.toContain("k-program-123456");
    } finally {
      delete process.env.SVC_PROFILE_CI_WEBHOOKS_URL;
      delete process.env.SVC_PROFILE_CI_WEBHOOKS_API_KEY;
    }
  });

  it("a profile the program marked secret is named by no message, not even in its environment variable's name (adv14b F8)", async () => {
    await configure(endpoint, { "svc:webhooksUrl": emu().webhooksUrl, "svc:webhooksApiKey": ws.webhooks.admin });
    const checked = await endpoint.check!({}, { url: "https://x.example.com/in", profile: "topsecret-prof", __secretInputs: ["profile"] });
    const reasons = (checked.failures ?? []).map((f) => f.reason).join("\n");
    expect(reasons).toContain("SVC_PROFILE_[secret]_WEBHOOKS_URL");
    expect(reasons.toLowerCase()).not.toContain("topsecret");
  });

  it("a URL missing its product path: read fails (the resource is not dropped), delete fails (not counted as gone)", async () => {
    await configure(endpoint, { "svc:webhooksUrl": emu().url, "svc:webhooksApiKey": ws.webhooks.admin });
    const read = await endpoint.read!("ep_1", { url: "https://x.example.com/in" }).then(() => undefined, (e: Error) => e);
    expect(read?.message).toContain("is probably missing the webhooks product path");
    const del = await endpoint.delete!("ep_1", { url: "https://x.example.com/in" }).then(() => undefined, (e: Error) => e);
    expect(del?.message).toContain("svc:webhooksUrl");
  });
});

describeWithCli("the missing-config message", () => {
  const inbox = providers["inboxes:Inbox"]!;

  it("no address: no --secret for a URL, and no `profile` named when none is set", async () => {
    await configure(inbox, {});
    const failures = (await inbox.check!({}, { label: "x" })).failures ?? [];
    expect(failures).toHaveLength(1);
    expect(failures[0]!.property).toBe("");
    expect(failures[0]!.reason).toContain("pulumi config set svc:inboxesUrl");
    expect(failures[0]!.reason).not.toContain("--secret");
  });

  it("no key: --secret suggested for the key", async () => {
    await configure(inbox, { "svc:inboxesUrl": emu().inboxesUrl });
    const failures = (await inbox.check!({}, { label: "x" })).failures ?? [];
    expect(failures[0]!.reason).toContain("pulumi config set --secret svc:inboxesApiKey");
  });

  it("a named profile is still named", async () => {
    await configure(inbox, {});
    const failures = (await inbox.check!({}, { label: "x", profile: "prod" })).failures ?? [];
    expect(failures[0]!.property).toBe("profile");
    expect(failures[0]!.reason).toContain('for profile "prod"');
    // With --path: without it the CLI makes a flat key, not the profile's setting.
    expect(failures[0]!.reason).toContain("`pulumi config set --path svc:profiles.prod.inboxesUrl ...`");
  });
});
