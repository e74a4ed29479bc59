/**
 * Native Diff under the real CLI: the provider names the fields that changed (a detailed
 * diff), so `pulumi preview --diff` of a one-field change shows that field alone (not the
 * outputs the program never declares), and `replaceOnChanges` on a field turns its change
 * into a replacement.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { call, useEmulator } from "../support/emulator";
import { NATIVE_MISSING, nativeStack } from "./support";

const emu = useEmulator();

/** An endpoint with several fields (a secret header among them); `options` as YAML resource options. */
const program = (description: string, options = "", maxAttempts = 5) => `
resources:
  orders:
    type: svc:webhooks:Endpoint
    properties:
      description: ${description}
      url: https://hooks.example.com/orders
      customHeaders: { Authorization: "\${token}" }
      subscriptions: [{ eventType: order.* }]
      maxAttempts: ${maxAttempts}
${options}
config:
  token: { type: string, secret: true }
`;

/** The property names a `pulumi preview --diff` shows as added, deleted or changed (`~ description: ...`). */
const shownProperties = (output: string) => [...output.matchAll(/^\s+[-+~]{1,2}\s*([A-Za-z][\w]*): /gm)].map((m) => m[1]!);

if (NATIVE_MISSING) console.log(`native diff under the real CLI: skipped: ${NATIVE_MISSING}`);
describe.skipIf(NATIVE_MISSING !== undefined)("native Diff under the real CLI", () => {
  it("pulumi preview --diff of a one-field change names that field only; replaceOnChanges on it replaces", async () => {
    const s = await nativeStack(emu(), "native-diff", program("v1"));
    const up = await s.run("up", {}, { token: "Bearer tok-diff-5e2a" });
    expect(up.ok, up.summary).toBe(true);

    fs.writeFileSync(path.join(s.dir, "Pulumi.yaml"), `name: native-diff\nruntime: yaml\n${program("v2")}`);
    const preview = await s.pulumi(["preview", "--diff", "--color", "never"]);
    expect(preview.code, preview.output + preview.stderr).toBe(0);
    expect(shownProperties(preview.output), preview.output).toEqual(["description"]);
    expect(preview.output).toMatch(/~\s+description: "v1" => "v2"/);

    const replacing = program("v3", "    options:\n      replaceOnChanges:\n        - description\n");
    fs.writeFileSync(path.join(s.dir, "Pulumi.yaml"), `name: native-diff\nruntime: yaml\n${replacing}`);
    const replaced = await s.run("preview", {}, { token: "Bearer tok-diff-5e2a" });
    expect(replaced.ok, replaced.summary).toBe(true);
    expect(replaced.steps.filter((st) => st.type === "svc:webhooks:Endpoint").map((st) => [st.op, st.replaces])).toEqual([["replace", ["description"]]]);
  });

  it("a value the service's answer to another change brought in (drift) shows as the service holds it: --diff says what up will change", async () => {
    const s = await nativeStack(emu(), "native-diff", program("v1"));
    const secrets = { token: "Bearer tok-diff-5e2a" };
    const up = await s.run("up", {}, secrets);
    expect(up.ok, up.summary).toBe(true);
    const id = String((await call(emu(), "GET", "/webhooks/v1/endpoints", { key: s.ws.webhooks.admin })).body.data[0].id);
    await call(emu(), "PATCH", `/webhooks/v1/endpoints/${id}`, { key: s.ws.webhooks.admin, body: { description: "drifted" } });
    // Another field's change: its PATCH answers with the drifted description, which the outputs take.
    fs.writeFileSync(path.join(s.dir, "Pulumi.yaml"), `name: native-diff\nruntime: yaml\n${program("v1", "", 6)}`);
    expect((await s.run("up", {}, secrets)).ok).toBe(true);
    const preview = await s.pulumi(["preview", "--diff", "--color", "never"]);
    expect(preview.code, preview.output + preview.stderr).toBe(0);
    expect(preview.output).toMatch(/~\s+description: "drifted" => "v1"/);
  });
});
