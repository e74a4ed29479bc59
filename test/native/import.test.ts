/**
 * `pulumi import` of every kind that has an id (and two settings, by scope), with `pulumi-resource-svc` on PATH, under
 * the real CLI: objects made with the API (an endpoint with a custom header value and a
 * signing secret, a source with its secret: values the service never returns) are imported
 * in one `pulumi import --file`, with no write; the code it generates, as the program,
 * previews with no change; no write-only value is in the generated code or the state, and
 * the import says which ones the user must set.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { createBody } from "../../provider/engine/resource-provider";
import { DEFINITIONS } from "../../provider/registry";
import type { ResourceKind } from "../../sdk/tokens";
import { FIXTURES } from "../lifecycle/fixtures";
import { call, lastSeq, requestsSince, useEmulator } from "../support/emulator";
import { NATIVE_MISSING, nativeStack, writesOf } from "./support";

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
};

if (NATIVE_MISSING) console.log(`pulumi import under the real CLI: skipped: ${NATIVE_MISSING}`);
describe.skipIf(NATIVE_MISSING !== undefined)("pulumi import of native resources under the real CLI", () => {
  it("imports every kind with an id with no write; the generated program previews with no change; write-only values stay out and are named", async () => {
    expect(IMPORTABLE.length).toBeGreaterThanOrEqual(6);
    const s = await nativeStack(emu(), "native-import", "");
    const ctx = { ws: s.ws, otherProject: s.ws.project_id };
    // The stack exists before the import (an empty program's up).
    expect((await s.run("up")).ok).toBe(true);

    const imports: { type: string; name: string; id: string }[] = [];
    for (const kind of IMPORTABLE) {
      const def = DEFINITIONS[kind]!;
      const adopt = FIXTURES[kind]!.adopt;
      if ("none" in adopt) throw new Error(`${kind}: the lifecycle fixture has no object to adopt (${adopt.none})`);
      const key = (s.ws as unknown as Record<string, Record<string, string>>)[def.product]![FIXTURES[kind]!.key ?? "admin"]!;
      const res = await call(emu(), "POST", `/${def.product}${def.paths.create}`, { key, body: createBody(def, { ...adopt.inputs(ctx), ...extra[kind] }) });
      expect(res.status, `${kind}: ${res.text}`).toBeLessThan(300);
      imports.push({ type: `svc:${kind}`, name: kind.split(":")[1]!.toLowerCase(), id: def.idOf ? def.idOf(res.body) : String(res.body[def.idField ?? "id"]) });
    }

    // Settings always exist: imported by their scope's id. (QuotaLimits too, `service/region`, but it needs
    // an admin key as the stack's infra key, and the stack's is a member's.)
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
    expect(warnings("svc:webhooks:Source")).toContain("Imported without `secret`");
    expect(warnings("svc:inboxes:Inbox")).toContain("`expiresInMinutes`: taken on create only");
    // Every imported input passed the provider's own check.
    expect(output).not.toContain("failed to validate");

    const code = fs.readFileSync(generated, "utf8");
    for (const { type } of imports) expect(code).toContain(`type: ${type}`);
    // As stored (secrets encrypted): no write-only value at all, since none was ever learnt.
    const state = (await s.pulumi(["stack", "export"])).output;
    for (const value of [HEADER_VALUE, ENDPOINT_SECRET, SOURCE_SECRET]) {
      expect(code).not.toContain(value);
      expect(state).not.toContain(value);
      expect(output).not.toContain(value);
    }

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
});
