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
    // Stored twice per resource (inputs and outputs) and written at every checkpoint: the
    // 0.1.0 shim's ~2,460 characters, twice, were most of an Inbox's 6.6 KB.
    expect(text.length).toBeLessThan(1000);
  });

  it("the plugin's way of loading it resolves the package from a program directory inside the repo", async () => {
    const file = await shimFile();
    // As cmd/dynamic-provider does: requireFromString(text).handler(), configure, then check.
    const script = `${pluginLoad(file)}
      (async () => {
        await provider.configure({ config: { get: () => undefined } });
        const r = await provider.check({}, { url: "https://example.com/h" });
        console.log(JSON.stringify(r.failures));
      })().catch((e) => { console.error(e.stack); process.exit(1); });`;
    const out = runPlugin(script, join(root, "examples", "quickstart"));
    expect(out.stderr).toBe("");
    const failures = JSON.parse(out.stdout.trim());
    expect(failures[0]).toMatchObject({ property: "" });
    expect(failures[0].reason).toMatch(/svc:webhooksUrl.*SVC_WEBHOOKS_URL/);
  });

  it("a call the plugin makes on the cached object while configure is still pending reaches the provider", async () => {
    const file = await shimFile();
    // cmd/dynamic-provider caches the object before awaiting configure, so a concurrent
    // check may run before that promise settles: it must not meet a placeholder.
    const script = `${pluginLoad(file)}
      (async () => {
        const configuring = provider.configure({ config: { get: () => undefined } });
        const r = await provider.check({}, { url: "https://example.com/h" });
        await configuring;
        console.log(JSON.stringify(r.failures));
      })().catch((e) => { console.error(e.message); process.exit(1); });`;
    const out = runPlugin(script, join(root, "examples", "quickstart"));
    expect(out.stderr).toBe("");
    expect(JSON.parse(out.stdout.trim())[0].reason).toMatch(/svc:webhooksUrl.*SVC_WEBHOOKS_URL/);
  });

  it("where pulumi-svc cannot be loaded, configure fails naming the module and every later call fails too, never skipping the checks", async () => {
    const file = await shimFile();
    const script = `${pluginLoad(file)}
      (async () => {
        const outcome = (call) => Promise.resolve().then(call).then(() => "ok", (e) => e.message.split("\\n")[0]);
        console.log(JSON.stringify([await outcome(() => provider.configure({ config: { get: () => undefined } })), await outcome(() => provider.check({}, {}))]));
      })();`;
    const out = runPlugin(script, mkdtempSync(join(tmpdir(), "svc-shim-nopkg-")));
    const [configure, check] = JSON.parse(out.stdout.trim());
    expect(configure).toMatch(/Cannot find module 'pulumi-svc\/provider'/);
    expect(check).toBe("pulumi-svc/provider could not be loaded: see this run's first error");
  });
});

/** The serialized shim in a file, for a plugin-like process to load. */
async function shimFile(): Promise<string> {
  const file = join(mkdtempSync(join(tmpdir(), "svc-shim-")), "provider.js");
  writeFileSync(file, await serializedShim());
  return file;
}

/** As cmd/dynamic-provider does: requireFromString(text).handler(). */
const pluginLoad = (file: string) => `
      const requireFromString = require(${JSON.stringify(requireDist.resolve("require-from-string"))});
      const provider = requireFromString(require("fs").readFileSync(${JSON.stringify(file)}, "utf8")).handler();`;

/** A script run as the plugin runs, from `cwd`, with no svc setting in the environment. */
function runPlugin(script: string, cwd: string) {
  const env = { ...process.env };
  delete env.SVC_WEBHOOKS_API_KEY;
  delete env.SVC_WEBHOOKS_URL;
  return spawnSync(process.execPath, ["-e", script], { cwd, env, encoding: "utf8" });
}
