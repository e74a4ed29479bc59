/**
 * A Go user's path beside running a program, under the real CLI and our Go language host
 * (scripts/pulumi-cli/go-host, which answers as Pulumi's host does): in a project on the
 * released SDK module (README, "Go programs"; its module proxy as in go-lifecycle.test.ts),
 * `pulumi import --out main.go` of an inbox and an event type whose JSON Schema holds arrays, with no plugin installed
 * (the CLI fetches it from the release host the module names), writes the Go program of what it imported; `pulumi install`
 * (`go mod tidy`) completes go.mod for it; and that program, built by the host, previews with
 * no change. `pulumi package add` of the schema generates the SDK into the project (a module
 * of its own) and adds a replace directive for it to go.mod; `pulumi convert` of a YAML program writes a Go project.
 */
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { pinnedCliVersion } from "../../scripts/pulumi-cli/locate";
import { SCHEMA_FILE } from "../../scripts/pulumi-cli/python";
import { call, lastSeq, requestsSince, useEmulator } from "../support/emulator";
import { pulumiAsync, runCli, stackArgs } from "../support/pulumi-cli";
import { pluginArchiveName } from "../../scripts/release";
import { releaseVersion } from "../../scripts/release-version";
import { PLATFORM, useReleaseHost } from "../release/host";
import { convert } from "./convert";
import { GOFLAGS, GO_BIN_DIR, GO_MISSING, readmeModuleFiles, releasedModuleEnv, requireGo } from "./go";
import { nativeStack, writesOf, type NativeStack, type ProgramFiles } from "./support";

const emu = useEmulator();
const host = useReleaseHost();

const EMPTY_PROGRAM = `package main

import (
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
	_ "github.com/pulumi-svc/pulumi-svc/sdk/go/svc" // the SDK required (go get), before the program uses it
)

func main() {
	pulumi.Run(func(ctx *pulumi.Context) error { return nil })
}
`;

const project: ProgramFiles = {
  project: "runtime: go\n",
  files: { "main.go": EMPTY_PROGRAM, "go.mod": `module svc-go-import\n\ngo 1.26\n\nrequire github.com/pulumi/pulumi/sdk/v3 v${pinnedCliVersion()}\n` },
  binDirs: [],
};

/** `pulumi ARGS` in the stack's directory with `go`'s environment (by default the CLI's build flags: the host's `go build` reuses its packages), which must succeed: all it printed. */
async function pulumiOk(s: NativeStack, args: string[], withStack = true, goEnv: Record<string, string> = { GOFLAGS }): Promise<string> {
  const opts = s.options("preview");
  const run = await pulumiAsync({ ...opts, env: { ...opts.env, ...goEnv } }, [...args, "--color", "never", ...(withStack ? stackArgs(opts) : [])]);
  const output = run.output + run.stderr;
  expect(run.code, output).toBe(0);
  return output;
}

requireGo();
if (GO_MISSING) console.log(`pulumi package add, import and install in a Go project: skipped: ${GO_MISSING}`);
describe.skipIf(GO_MISSING !== undefined)("pulumi package add, import and install in a Go project", () => {
  it("package add generates the SDK into sdks/svc, a module of its own, and links it with a replace in go.mod", async () => {
    const s = await nativeStack(emu(), "native-go-add", project);
    const added = await pulumiOk(s, ["package", "add", SCHEMA_FILE], false);
    expect(added).toContain("You can import the SDK in your Go code with:");
    expect(added).toContain('"github.com/pulumi-svc/pulumi-svc/sdk/go/svc"');
    expect(fs.existsSync(path.join(s.dir, "sdks", "svc", "go.mod"))).toBe(true);
    expect(fs.readFileSync(path.join(s.dir, "go.mod"), "utf8")).toMatch(/^replace \S+ => \.\/sdks\/svc$/m);
  });

  it("on the released module, import --out writes a program that, after pulumi install, previews with no change", { timeout: 900_000 }, async () => {
    const goEnv = await releasedModuleEnv(fs.mkdtempSync(path.join(os.tmpdir(), "svc-native-go-import-")));
    // A user's PATH (go, no plugin): the CLI fetches the plugin from the release host, which the module's pulumi-plugin.json names.
    const s = await nativeStack(emu(), "native-go-import", { ...project, binDirs: [GO_BIN_DIR], files: await readmeModuleFiles("svc-go-import", EMPTY_PROGRAM, goEnv) }, { env: host().env() });

    // The stack exists before the import (the empty program's up).
    const up = s.options("up");
    const made = await runCli({ ...up, env: { ...up.env, ...goEnv } });
    expect(made.ok, made.summary).toBe(true);
    // A fresh PULUMI_HOME (the stack's own, test/support/pulumi-cli.ts): no plugin installed. `pulumi import` runs no
    // program: it learns where the plugin is from the host's GetRequiredPackages (the required module's pulumi-plugin.json).
    const plugins = path.join(`${up.stateFile!}.pulumi`, "home", "plugins");
    fs.rmSync(plugins, { recursive: true, force: true });
    host().served.length = 0;
    const inbox = await call(emu(), "POST", "/inboxes/v1/inboxes", { key: s.ws.inboxes.admin, body: { label: "archive" } });
    expect(inbox.status, inbox.text).toBe(201);
    // An event type whose JSON Schema holds arrays (`required`): its payloadSchema is Any in the schema, as Pulumi's Go
    // generator writes an array in a map of Any as code that does not build (adv37d A).
    const payloadSchema = { type: "object", required: ["id"], properties: { id: { type: "string" }, tags: { type: "array", items: { type: "string" } } } };
    const eventType = await call(emu(), "POST", "/webhooks/v1/event-types", { key: s.ws.webhooks.admin, body: { name: "order.archived", payload_schema: payloadSchema } });
    expect(eventType.status, eventType.text).toBe(201);
    const importFile = path.join(s.dir, "import.json");
    fs.writeFileSync(importFile, JSON.stringify({ resources: [
      { type: "svc:inboxes:Inbox", name: "archive", id: String(inbox.body["id"]) },
      { type: "svc:webhooks:EventType", name: "archived", id: "workspace/order.archived" },
    ] }));
    let since = await lastSeq(emu());
    const imported = await pulumiOk(s, ["import", "--file", importFile, "--out", path.join(s.dir, "main.go"), "--yes"], true, goEnv);
    expect(imported).not.toContain("not supported");
    expect(host().served).toEqual([`GET /${pluginArchiveName(PLATFORM)}`]);
    expect(fs.existsSync(path.join(plugins, `resource-svc-v${releaseVersion().semver}`, "pulumi-resource-svc"))).toBe(true);
    expect(writesOf(await requestsSince(emu(), since))).toEqual([]);
    const code = fs.readFileSync(path.join(s.dir, "main.go"), "utf8");
    expect(code).toContain(`"github.com/pulumi-svc/pulumi-svc/sdk/go/svc/inboxes"`);
    expect(code).toContain(`inboxes.NewInbox(ctx, "archive", &inboxes.InboxArgs{`);
    expect(code).toContain(`webhooks.NewEventType(ctx, "archived", &webhooks.EventTypeArgs{`);

    // The program now imports the SDK: `pulumi install` completes go.mod from the released module, and the host builds the program.
    expect(await pulumiOk(s, ["install"], false, goEnv)).toContain("Finished installing dependencies");
    expect(fs.readFileSync(path.join(s.dir, "go.mod"), "utf8")).not.toContain("replace");
    since = await lastSeq(emu());
    const opts = s.options("preview");
    const preview = await runCli({ ...opts, env: { ...opts.env, ...goEnv } });
    expect(preview.ok, preview.summary).toBe(true);
    expect(preview.steps.filter((st) => st.op !== "same"), preview.summary).toEqual([]);
    expect(preview.steps.filter((st) => st.type.startsWith("svc:")).map((st) => st.type).sort()).toEqual(["svc:inboxes:Inbox", "svc:webhooks:EventType"]);
    expect(writesOf(await requestsSince(emu(), since))).toEqual([]);
  });

  it("`pulumi convert --language go` of a YAML program writes a gofmt-clean project whose program declares the resources with the SDK", async () => {
    const s = await nativeStack(emu(), "native-go-convert", project);
    const { out, output } = await convert(s, "go");
    const code = fs.readFileSync(path.join(out, "main.go"), "utf8");
    expect(code).toContain(`"github.com/pulumi-svc/pulumi-svc/sdk/go/svc/inboxes"`);
    expect(code).toMatch(/inboxes\.NewInbox\(ctx, "bin", &inboxes\.InboxArgs\{\s+Label: pulumi\.String\("first"\),/);
    expect(fs.existsSync(path.join(out, "go.mod"))).toBe(true);
    const gofmt = spawnSync(path.join(GO_BIN_DIR, "gofmt"), ["-l", out], { encoding: "utf8" });
    expect(gofmt.status, gofmt.stderr).toBe(0);
    expect(gofmt.stdout, "files gofmt would change").toBe("");
    // No local SDK was linked: no instructions with an empty `import ( )` block.
    expect(output).not.toContain("You can import");
  });

  it("a call the host does not serve says so in one line naming the command", async () => {
    const s = await nativeStack(emu(), "native-go-pack", project);
    const run = await s.pulumi(["package", "pack-sdk", "go", path.join(s.dir, "nosuchsdk"), "--color", "never"], { withStack: false });
    expect(run.code).not.toBe(0);
    expect(run.output + run.stderr).toContain("`pulumi package pack-sdk` for Go is not supported by pulumi-svc's Go language host");
  });
});
