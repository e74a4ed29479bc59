/**
 * The serialized provider (`__provider`) is a shim: it holds only the kind and
 * requires `pulumi-svc/provider` from the program directory when called. Tested on
 * the built package (dist/), the code the dynamic-provider plugin really loads.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";

const root = resolve(__dirname, "../..");
const requireDist = createRequire(join(root, "dist", "index.js"));
const FAKE_KEY = "eyJhbGciOiJIUzI1NiJ9.fake-key-for-shim-test";

async function serializedShim(): Promise<string> {
  const { providerShim } = requireDist("./sdk/shim.js");
  const provider = requireDist("./provider/index.js");
  // A configured provider in the same process must not leak into the shim's text.
  await provider.providers["webhooks:Endpoint"].configure({ config: { get: (k: string) => ({ "svc:webhooksApiKey": FAKE_KEY, "svc:webhooksUrl": "http://127.0.0.1:1/webhooks" })[k] } });
  const { serializeFunction } = requireDist("@pulumi/pulumi/runtime");
  const shim = providerShim("webhooks:Endpoint");
  // Exactly what dynamic.Resource does (serializeProvider).
  const sf = await serializeFunction(() => shim, { allowSecrets: true });
  return sf.text as string;
}

describe("serialized provider shim", () => {
  it("holds the kind and a require of pulumi-svc/provider, no key and nothing large", async () => {
    const text = await serializedShim();
    expect(text).toContain('"webhooks:Endpoint"');
    expect(text).toContain("pulumi-svc/provider");
    expect(text).not.toContain(FAKE_KEY);
    expect(text).not.toMatch(/eyJ|svc_(live|test)_|whsec_|Bearer/);
    expect(text).not.toMatch(/undici|zod|SvcClient|Agent/);
    expect(text.length).toBeLessThan(4000);
  });

  it("the plugin's way of loading it resolves the package from a program directory inside the repo", async () => {
    const text = await serializedShim();
    const dir = mkdtempSync(join(tmpdir(), "svc-shim-"));
    const file = join(dir, "provider.js");
    writeFileSync(file, text);
    // As cmd/dynamic-provider does: requireFromString(text).handler(), configure, then check.
    const script = `
      const requireFromString = require(${JSON.stringify(requireDist.resolve("require-from-string"))});
      const fs = require("fs");
      const provider = requireFromString(fs.readFileSync(${JSON.stringify(file)}, "utf8")).handler();
      (async () => {
        await provider.configure({ config: { get: () => undefined } });
        const r = await provider.check({}, { url: "https://example.com/h" });
        console.log(JSON.stringify(r.failures));
      })().catch((e) => { console.error(e.stack); process.exit(1); });`;
    const env = { ...process.env };
    delete env.SVC_WEBHOOKS_API_KEY;
    delete env.SVC_WEBHOOKS_URL;
    const out = spawnSync(process.execPath, ["-e", script], { cwd: join(root, "examples", "quickstart"), env, encoding: "utf8" });
    expect(out.stderr).toBe("");
    const failures = JSON.parse(out.stdout.trim());
    expect(failures[0]).toMatchObject({ property: "" });
    expect(failures[0].reason).toMatch(/svc:webhooksUrl.*SVC_WEBHOOKS_URL/);
  });
});
