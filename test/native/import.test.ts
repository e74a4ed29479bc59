/**
 * `pulumi import` of every kind that has an id (and two settings, by scope), with `pulumi-resource-svc` on PATH, under
 * the real CLI: objects made with the API (an endpoint with a custom header value and a
 * signing secret, a source with its secret: values the service never returns) are imported
 * in one `pulumi import --file`, with no write; the code it generates, as the program,
 * previews with no change; no write-only value is in the generated code or the state, and
 * the import says which ones the user must set. Then, one object each: an import with API
 * keys set without --secret is refused (the engine would store them in plaintext); a code
 * host source, whose secret a create needs, previews clean and takes its secret later in
 * one rotate-secret; an object of a named profile imports as `profile:<name>/<id>`; quota limits
 * import as `<service>/<region>` with an admin infra key, and a destroy leaves them as they are.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { createBody } from "../../provider/engine/values";
import { DEFINITIONS } from "../../provider/registry";
import type { ResourceKind } from "../../sdk/tokens";
import { FIXTURES } from "../lifecycle/fixtures";
import type { Workspace } from "../provider/support";
import { call, control, lastSeq, requestsSince, useEmulator } from "../support/emulator";
import { backendDir, prepareStack, pulumiAsync, stackArgs } from "../support/pulumi-cli";
import { NATIVE_MISSING, nativeStack, writesOf, type NativeStack } from "./support";

const emu = useEmulator();

/** Values the service takes but never returns: none may reach the generated code or the state. */
const HEADER_VALUE = "hdr-7f3a-never-returned";
const ENDPOINT_SECRET = "whsec_aW1wb3J0LXNlY3JldC0xMjM0NTY3ODkw";
const SOURCE_SECRET = "src-secret-import-5b7e0a91";

/** Kinds whose objects have an id of their own; the settings (singletons) are imported by their scope below. */
const IMPORTABLE = (Object.keys(FIXTURES) as ResourceKind[]).filter((kind) => !DEFINITIONS[kind]!.singleton);

const extra: Partial<Record<ResourceKind, Record<string, unknown>>> = {
  "webhooks:Endpoint": { customHeaders: { "X-Token": HEADER_VALUE }, secret: ENDPOINT_SECRET },
  "webhooks:Source": { secret: SOURCE_SECRET },
  // A schema as pydantic writes one: arrays, and members whose value is null, which a YAML program cannot send.
  "webhooks:EventType": { payloadSchema: { type: "object", required: ["id"], properties: { id: { type: "string" }, note: { type: "string", default: null } } } },
};

/** An object of `kind` made with the API in `ws` (as someone did outside Pulumi): its id, as `pulumi import` takes it. */
async function made(ws: Workspace, kind: ResourceKind, inputs: Record<string, unknown>): Promise<string> {
  const def = DEFINITIONS[kind]!;
  const key = (ws as unknown as Record<string, Record<string, string>>)[def.product]![FIXTURES[kind]!.key ?? "admin"]!;
  const res = await call(emu(), "POST", `/${def.product}${def.paths.create}`, { key, body: createBody(def, inputs) });
  expect(res.status, `${kind}: ${res.text}`).toBeLessThan(300);
  return def.idOf ? def.idOf(res.body) : String(res.body[def.idField ?? "id"]);
}

/** `pulumi import` of one object: the CLI's exit code and all it printed. */
async function importOne(s: NativeStack, type: string, name: string, id: string, out?: string): Promise<{ code: number; output: string }> {
  const run = await s.pulumi(["import", type, name, id, "--yes", "--color", "never", ...(out ? ["--out", out] : [])]);
  return { code: run.code, output: run.output + run.stderr };
}

/**
 * `pulumi stack export` and every state the stack's backend keeps (the state, its backups, each update's checkpoint),
 * as stored. Not the updates' history records: they copy the stack's config as it is set, as its config file holds it.
 */
async function storedState(s: NativeStack): Promise<string> {
  const files = fs.readdirSync(backendDir(s.options("preview")), { recursive: true, withFileTypes: true }).filter((e) => e.isFile() && !e.name.endsWith(".history.json"));
  return [await exported(s), ...files.map((e) => fs.readFileSync(path.join(e.parentPath, e.name), "utf8"))].join("\n");
}

/** `pulumi stack export` (secrets encrypted), which must succeed: an empty output would pass every "not in the state" check. */
async function exported(s: NativeStack): Promise<string> {
  const run = await s.pulumi(["stack", "export"], { withStack: "no-config" });
  expect(run.code, run.stderr).toBe(0);
  expect(run.output).toContain('"deployment"');
  return run.output;
}

if (NATIVE_MISSING) console.log(`pulumi import under the real CLI: skipped: ${NATIVE_MISSING}`);
describe.skipIf(NATIVE_MISSING !== undefined)("pulumi import of native resources under the real CLI", () => {
  it("imports every kind with an id with no write; the generated program previews with no change; write-only values stay out and are named", async () => {
    expect(IMPORTABLE.length).toBeGreaterThanOrEqual(6);
    const s = await nativeStack(emu(), "native-import", "");
    const ctx = { ws: s.ws, otherProject: s.ws.project_id };
    // The stack exists before the import, with its config (prepareStack: `pulumi import` needs the stack, no update of it).
    prepareStack(s.options("up"));

    const imports: { type: string; name: string; id: string }[] = [];
    for (const kind of IMPORTABLE) {
      const adopt = FIXTURES[kind]!.adopt;
      if ("none" in adopt) throw new Error(`${kind}: the lifecycle fixture has no object to adopt (${adopt.none})`);
      imports.push({ type: `svc:${kind}`, name: kind.split(":")[1]!.toLowerCase(), id: await made(s.ws, kind, { ...adopt.inputs(ctx), ...extra[kind] }) });
    }
    // An endpoint without custom headers: nothing of them was missed, and no warning says so.
    const endpointInputs = (FIXTURES["webhooks:Endpoint"]!.adopt as { inputs: (c: typeof ctx) => Record<string, unknown> }).inputs(ctx);
    imports.push({ type: "svc:webhooks:Endpoint", name: "bareendpoint", id: await made(s.ws, "webhooks:Endpoint", { ...endpointInputs, secret: ENDPOINT_SECRET }) });

    // Settings always exist: imported by their scope's id. (QuotaLimits too, `service/region`, with an admin
    // key as the stack's infra key, and the stack's is a member's: see its own test below.)
    imports.push({ type: "svc:webhooks:WorkspaceSettings", name: "settings", id: "workspace" });
    imports.push({ type: "svc:webhooks:EventTypePolicy", name: "policy", id: `project/${s.ws.project_id}` });

    const file = path.join(s.dir, "import.json");
    const generated = path.join(s.dir, "generated.yaml");
    fs.writeFileSync(file, JSON.stringify({ resources: imports }));
    let since = await lastSeq(emu());
    const run = await s.pulumi(["import", "--file", file, "--out", generated, "--yes", "--color", "never"]);
    const output = run.output + run.stderr;
    expect(run.code, output).toBe(0);
    expect(writesOf(await requestsSince(emu(), since))).toEqual([]);
    for (const { name } of imports) expect(output).toMatch(new RegExp(`=\\s+svc:\\S+\\s+${name}\\s+import`));
    // Which values the user must set, by resource.
    const warnings = (type: string) => output.split("\n").filter((l) => l.includes(type) && l.includes("warning:")).join("\n");
    expect(warnings("svc:webhooks:Endpoint")).toContain("Imported without `customHeaders`");
    // The endpoint's signing secret is create-only (a change replaces): not something to set after an import.
    expect(warnings("svc:webhooks:Endpoint")).toContain("`secret`: taken on create only");
    const bare = output.split("\n").filter((l) => l.includes("bareendpoint") && l.includes("warning:")).join("\n");
    expect(bare).toContain("`secret`: taken on create only");
    expect(bare).not.toContain("customHeaders");
    expect(warnings("svc:webhooks:Source")).toContain("Imported without `secret`");
    expect(warnings("svc:inboxes:Inbox")).toContain("`expiresInMinutes`: taken on create only");
    // Every imported input passed the provider's own check.
    expect(output).not.toContain("failed to validate");

    const code = fs.readFileSync(generated, "utf8");
    for (const { type } of imports) expect(code).toContain(`type: ${type}`);
    // As stored (secrets encrypted): no write-only value at all, since none was ever learnt.
    const state = await exported(s);
    for (const value of [HEADER_VALUE, ENDPOINT_SECRET, SOURCE_SECRET]) {
      expect(code).not.toContain(value);
      expect(state).not.toContain(value);
      expect(output).not.toContain(value);
    }

    // A refresh right after the import shows no change but the one the import named: the endpoint's custom headers,
    // which the service holds and the state does not (README: set them before a refresh). Settings the service
    // holds nothing of (an endpoint's `verify`, an event type's `adoptExisting`) are their defaults, declared or not.
    // Previewed only (`--preview-only`): the state stays the import's for the preview below.
    const opts = s.options("preview");
    const refreshed = await pulumiAsync({ ...opts, env: { ...opts.env, PULUMI_SKIP_CONFIRMATIONS: "false" } }, ["refresh", "--preview-only", "--color", "never", ...stackArgs(opts)]);
    expect(refreshed.code, refreshed.output + refreshed.stderr).toBe(0);
    const drifted = [...refreshed.output.matchAll(/^\s*~\s+svc:\S+\s+(\S+)\s+update\s+\[diff: ([^\]]*)\]/gm)].map((m) => [m[1], m[2]]);
    expect(drifted, refreshed.output).toEqual([["endpoint", "+customHeaders"]]);

    // The generated code is the program now: a preview shows no change, and nothing is written.
    fs.appendFileSync(path.join(s.dir, "Pulumi.yaml"), code);
    since = await lastSeq(emu());
    const preview = await s.run("preview");
    expect(preview.ok, preview.summary).toBe(true);
    expect(preview.steps.filter((st) => st.op !== "same"), preview.summary).toEqual([]);
    const up = await s.run("up", {}, {});
    expect(up.ok, up.summary).toBe(true);
    expect(up.steps.filter((st) => st.op !== "same"), up.summary).toEqual([]);
    expect(writesOf(await requestsSince(emu(), since))).toEqual([]);
  });
  it("refuses to write an API key set without --secret into the state; set with --secret, the import stores it encrypted", async () => {
    const s = await nativeStack(emu(), "native-import-plain", "", { plaintextKeys: true });
    prepareStack(s.options("up"));
    const keys = [s.ws.webhooks.admin, s.ws.inboxes.admin, s.ws.infra.member];
    const id = await made(s.ws, "webhooks:Endpoint", { url: "https://hooks.example.com/plain" });

    const refused = await importOne(s, "svc:webhooks:Endpoint", "orders", id);
    expect(refused.code, refused.output).not.toBe(0);
    expect(refused.output).toContain("holds `svc:webhooksApiKey`, `svc:inboxesApiKey`, `svc:infraApiKey` in plaintext");
    expect(refused.output).toContain("pulumi config set --secret svc:webhooksApiKey <key>");
    let state = await storedState(s);
    for (const key of keys) {
      expect(state.includes(key), "an API key in plaintext in the stored state").toBe(false);
      expect(refused.output).not.toContain(key);
    }

    // As the message says: the keys set as secrets, the same import goes through, and no key is stored in plaintext.
    for (const [config, key] of [["svc:webhooksApiKey", keys[0]!], ["svc:inboxesApiKey", keys[1]!], ["svc:infraApiKey", keys[2]!]])
      expect((await s.pulumi(["config", "set", "--secret", config, key])).code).toBe(0);
    const imported = await importOne(s, "svc:webhooks:Endpoint", "orders", id);
    expect(imported.code, imported.output).toBe(0);
    state = await storedState(s);
    expect(state).toMatch(new RegExp(`"id":\\s*"${id}"`));
    for (const key of keys) expect(state.includes(key), "an API key in plaintext in the stored state").toBe(false);
  });

  it("imports a code host source, whose secret the service never returns: the generated program previews with no change; setting the secret is one rotate-secret", async () => {
    const s = await nativeStack(emu(), "native-import-codehost", "");
    prepareStack(s.options("up"));
    const id = await made(s.ws, "webhooks:Source", { provider: "codehost", name: "code host", secret: SOURCE_SECRET });
    const generated = path.join(s.dir, "generated.yaml");
    const run = await importOne(s, "svc:webhooks:Source", "hooks", id, generated);
    expect(run.code, run.output).toBe(0);
    expect(run.output).toContain("Imported without `secret`");
    expect(run.output).not.toContain("failed to validate");
    const code = fs.readFileSync(generated, "utf8");
    expect(code).toContain("provider: codehost");
    expect(code).not.toContain("secret:");

    fs.appendFileSync(path.join(s.dir, "Pulumi.yaml"), code);
    let since = await lastSeq(emu());
    const preview = await s.run("preview");
    expect(preview.ok, preview.summary).toBe(true);
    expect(preview.steps.filter((st) => st.op !== "same"), preview.summary).toEqual([]);
    expect(writesOf(await requestsSince(emu(), since))).toEqual([]);

    // The user sets the secret the import named: the next up rotates it to that value, and writes nothing else.
    const NEW_SECRET = "src-secret-set-after-import-8d21";
    const withSecret = code.replace("      provider: codehost\n", `      provider: codehost\n      secret:\n        fn::secret: ${NEW_SECRET}\n`);
    expect(withSecret).not.toBe(code);
    fs.writeFileSync(path.join(s.dir, "Pulumi.yaml"), fs.readFileSync(path.join(s.dir, "Pulumi.yaml"), "utf8").replace(code, withSecret));
    since = await lastSeq(emu());
    const up = await s.run("up");
    expect(up.ok, up.summary).toBe(true);
    expect(up.steps.filter((st) => st.op !== "same").map((st) => st.op), up.summary).toEqual(["update"]);
    expect(writesOf(await requestsSince(emu(), since))).toEqual([`POST /webhooks/v1/sources/${id}/rotate-secret`]);
    expect((await storedState(s)).includes(NEW_SECRET), "the source's secret in plaintext in the stored state").toBe(false);
  });

  it("imports an object reachable only through a profile, named `profile:<name>/<id>`: the generated program declares the profile and previews with no change; a profile's key set without --secret is refused as the others", async () => {
    const staging = await control<Workspace>(emu(), "POST", "/workspaces", { plan: "enterprise" });
    const s = await nativeStack(emu(), "native-import-profile", "");
    prepareStack(s.options("up"));
    // The profile as README shows it, but for the key set without --secret.
    const setProfile = (setting: string, value: string, ...flags: string[]) => s.pulumi(["config", "set", ...flags, "--path", `svc:profiles.staging.${setting}`, value]);
    expect((await setProfile("webhooksUrl", emu().webhooksUrl)).code).toBe(0);
    expect((await setProfile("webhooksApiKey", staging.webhooks.admin)).code).toBe(0);
    const id = await made(staging, "webhooks:Endpoint", { url: "https://hooks.example.com/staging" });
    const generated = path.join(s.dir, "generated.yaml");

    const refused = await importOne(s, "svc:webhooks:Endpoint", "orders", `profile:staging/${id}`, generated);
    expect(refused.code, refused.output).not.toBe(0);
    expect(refused.output).toContain("pulumi config set --secret --path svc:profiles.staging.webhooksApiKey <key>");
    expect(refused.output).not.toContain(staging.webhooks.admin);
    expect((await storedState(s)).includes(staging.webhooks.admin), "the profile's key in plaintext in the stored state").toBe(false);

    expect((await setProfile("webhooksApiKey", staging.webhooks.admin, "--secret")).code).toBe(0);
    const since = await lastSeq(emu());
    const run = await importOne(s, "svc:webhooks:Endpoint", "orders", `profile:staging/${id}`, generated);
    expect(run.code, run.output).toBe(0);
    expect(writesOf(await requestsSince(emu(), since))).toEqual([]);
    const code = fs.readFileSync(generated, "utf8");
    expect(code).toContain("profile: staging");
    expect(code).toContain("url: https://hooks.example.com/staging");
    const state = await storedState(s);
    expect(state).toMatch(new RegExp(`"id":\\s*"${id}"`));
    expect(state.includes(staging.webhooks.admin), "the profile's key in plaintext in the stored state").toBe(false);

    fs.appendFileSync(path.join(s.dir, "Pulumi.yaml"), code);
    const preview = await s.run("preview");
    expect(preview.ok, preview.summary).toBe(true);
    expect(preview.steps.filter((st) => st.op !== "same"), preview.summary).toEqual([]);

    // adv37f F4: a profile added once the stack's provider is in the state. The import reads with the provider as
    // the state holds it, without the new profile: it says so, and to run `pulumi up` first, which is the fix.
    const late = await control<Workspace>(emu(), "POST", "/workspaces", { plan: "enterprise" });
    expect((await s.pulumi(["config", "set", "--path", "svc:profiles.late.webhooksUrl", emu().webhooksUrl])).code).toBe(0);
    expect((await s.pulumi(["config", "set", "--secret", "--path", "svc:profiles.late.webhooksApiKey", late.webhooks.admin])).code).toBe(0);
    const lateId = await made(late, "webhooks:Endpoint", { url: "https://hooks.example.com/late" });
    const stale = await importOne(s, "svc:webhooks:Endpoint", "late", `profile:late/${lateId}`);
    expect(stale.code, stale.output).not.toBe(0);
    expect(stale.output).toContain("`pulumi import` uses the stack's provider as its last update stored it, not the stack's config now, so a setting added since (`svc:profiles.late.webhooksUrl`) is not seen. Run `pulumi up` first");
    expect((await s.run("up")).ok).toBe(true);
    const fixed = await importOne(s, "svc:webhooks:Endpoint", "late", `profile:late/${lateId}`);
    expect(fixed.code, fixed.output).toBe(0);
  });

  it("imports quota limits by scope with an admin infra key, two regions and the project-wide ones of one service: each generated resource declares its scope's figures, the program previews with no change; destroy leaves them as they are", async () => {
    const s = await nativeStack(emu(), "native-import-quota", "");
    // The stack's infra key is the workspace's admin key (its others as nativeStack sets them), for every run.
    const admin = { "svc:infraApiKey": s.ws.infra.admin };
    prepareStack(s.options("up", {}, admin));
    // An admin raised limits out of band: the imported values are not the defaults.
    const quota = (region: string) => call(emu(), "GET", `/infra/api/v1/quota/compute?region=${region}`, { key: s.ws.infra.admin });
    const raised = await call(emu(), "PATCH", "/infra/api/v1/quota/compute", { key: s.ws.infra.admin, body: { limits: { vms: 73, vcpu: 320 }, region: "us-east-1" } });
    expect(raised.status, raised.text).toBeLessThan(300);
    const held = (await quota("us-east-1")).body.limits as Record<string, number>;
    expect(held).toEqual({ vms: 73, vcpu: 320, ram_gb: 800 });
    expect((await call(emu(), "PATCH", "/infra/api/v1/quota/compute", { key: s.ws.infra.admin, body: { limits: { vms: 61 }, region: "eu-west-1" } })).status).toBeLessThan(300);
    const heldWest = (await quota("eu-west-1")).body.limits as Record<string, number>;

    // adv37f F3: two regions of one service, as the README says to import them, and the project-wide figures once.
    const file = path.join(s.dir, "import.json");
    fs.writeFileSync(file, JSON.stringify({ resources: [
      { type: "svc:infra:QuotaLimits", name: "east", id: "compute/us-east-1" },
      { type: "svc:infra:QuotaLimits", name: "west", id: "compute/eu-west-1" },
      { type: "svc:infra:QuotaLimits", name: "projectwide", id: "compute" },
    ] }));
    const generated = path.join(s.dir, "generated.yaml");
    let since = await lastSeq(emu());
    const imported = await s.pulumi(["import", "--file", file, "--out", generated, "--yes", "--color", "never"]);
    const output = imported.output + imported.stderr;
    expect(imported.code, output).toBe(0);
    expect(writesOf(await requestsSince(emu(), since))).toEqual([]);
    expect(output).not.toContain("failed to validate");
    const code = fs.readFileSync(generated, "utf8");
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const yaml = require("js-yaml") as { load(s: string): unknown };
    const resources = (yaml.load(code) as { resources: Record<string, { type: string; properties: Record<string, unknown> }> }).resources;
    const declared = (name: string) => ({ type: resources[name]?.type, ...resources[name]?.properties });
    // Pulumi's code generator writes a string that is another imported resource's id as a reference to it: the
    // project-wide resource's id is the service's name, so the regions' `service` is `${projectwide.id}`, "compute".
    const service = "${projectwide.id}";
    expect(declared("east")).toEqual({ type: "svc:infra:QuotaLimits", service, region: "us-east-1", projectId: s.ws.project_id, limits: { vms: 73 } });
    expect(declared("west")).toEqual({ type: "svc:infra:QuotaLimits", service, region: "eu-west-1", projectId: s.ws.project_id, limits: { vms: 61 } });
    expect(declared("projectwide")).toEqual({ type: "svc:infra:QuotaLimits", service: "compute", projectId: s.ws.project_id, limits: { vcpu: 320, ram_gb: 800 } });
    const state = await storedState(s);
    for (const key of [s.ws.infra.admin, s.ws.infra.member, s.ws.webhooks.admin, s.ws.inboxes.admin]) {
      expect(state.includes(key), "an API key in plaintext in the stored state").toBe(false);
      expect(code).not.toContain(key);
    }

    // The generated code is the program now: a preview shows no change, and `up` writes nothing.
    fs.appendFileSync(path.join(s.dir, "Pulumi.yaml"), code);
    since = await lastSeq(emu());
    const preview = await s.run("preview", {}, admin);
    expect(preview.ok, preview.summary).toBe(true);
    expect(preview.steps.filter((st) => st.op !== "same"), preview.summary).toEqual([]);
    const up = await s.run("up", {}, admin);
    expect(up.ok, up.summary).toBe(true);
    expect(up.steps.filter((st) => st.op !== "same"), up.summary).toEqual([]);
    expect(writesOf(await requestsSince(emu(), since))).toEqual([]);

    // `pulumi import` protects what it imports (the generated code says `protect: true`): unprotected as the CLI
    // says, a destroy deletes it from the stack. An imported setting has no earlier value to put back: the limits
    // are left as they are (no write).
    expect(code).toContain("protect: true");
    const unprotect = await s.pulumi(["state", "unprotect", "--all", "--yes"], { withStack: "no-config" });
    expect(unprotect.code, unprotect.output + unprotect.stderr).toBe(0);
    since = await lastSeq(emu());
    const destroy = await s.run("destroy", {}, admin);
    expect(destroy.ok, destroy.summary).toBe(true);
    expect(destroy.steps.map((st) => st.op), destroy.summary).toContain("delete");
    expect(writesOf(await requestsSince(emu(), since))).toEqual([]);
    expect((await quota("us-east-1")).body.limits).toEqual(held);
    expect((await quota("eu-west-1")).body.limits).toEqual(heldWest);
  });
});
