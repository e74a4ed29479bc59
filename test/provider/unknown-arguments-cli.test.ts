/**
 * A misspelled argument in a JavaScript program (no type checker), under the real
 * Pulumi CLI: preview fails naming it and the closest known name, and creates nothing.
 * (Check's answer for every kind: unknown-arguments.test.ts, in the inner loop.)
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, expect, it } from "vitest";
import { describeWithCli } from "../support/cli-suite";
import { runCli } from "../support/pulumi-cli";
import { control, lastSeq, requestsSince, useEmulator } from "../support/emulator";
import type { Workspace } from "./support";

describeWithCli("through the engine: a misspelled argument in a JavaScript program fails preview", () => {
  const emu = useEmulator();
  let ws: Workspace;
  beforeAll(async () => {
    ws = await control<Workspace>(emu(), "POST", "/workspaces", { plan: "pro" });
  });

  it("`new Inbox(\"x\", { transprot: \"http\" })`: preview fails naming transprot and transport; nothing is created", async () => {
    const since = await lastSeq(emu());
    const r = await runCli({
      verb: "preview",
      cwd: join(__dirname, "fixtures", "mistakes"),
      stack: "typo",
      stateFile: join(mkdtempSync(join(tmpdir(), "svc-typo-")), "typo.json"),
      // A misspelt key inside a profile is warned too (adv37f F5), by the dynamic provider's configure.
      config: { "svc:inboxesUrl": emu().inboxesUrl, case: "transprot", "svc:profiles": JSON.stringify({ other: { inboxUrl: "http://127.0.0.1:1/inboxes" } }) },
      secrets: { "svc:inboxesApiKey": ws.inboxes.admin },
      env: { SVC_INBOXES_URL: "", SVC_INBOXES_API_KEY: "" },
    });
    expect(r.ok).toBe(false);
    const errors = r.diagnostics.filter((d) => d.severity === "error").map((d) => d.message).join("\n");
    expect(errors).toContain("unknown argument transprot; did you mean transport?");
    expect(r.diagnostics.map((d) => d.message).join("\n")).toContain("Stack config `svc:profiles.other.inboxUrl` is not a setting of a profile and is ignored: did you mean `svc:profiles.other.inboxesUrl`? (`pulumi config rm --path svc:profiles.other.inboxUrl`)");
    expect((await requestsSince(emu(), since)).filter((c) => c.method !== "GET")).toEqual([]);
  });
});
