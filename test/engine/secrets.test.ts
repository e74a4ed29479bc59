// Secrets: config and inputs are encrypted in the state file, never printed, and
// the provider still receives plaintext (configure, and old values on diff).

import { expect, test } from "vitest";
import { runEngine } from "./engine";
import { kvScenarios, errors, stepOf, type KvSpec } from "./kv-scenario";
import { SIG_KEY, SECRET_SIG } from "../support/values";

const API_KEY = "sekrit-api-key-1234";
const SECRET_INPUT = "s3cr3t-input-5678";

const scenario = kvScenarios();

const spec = (value: number): KvSpec[] => [
  { name: "s", props: { label: "s", value, secretValue: { $config: "secretInput" }, token: { $config: "apiKey" } }, additionalSecretOutputs: ["computed"] },
];

test("secret config and secret inputs: encrypted at rest, hidden in output, plaintext for the provider", async () => {
  const s = scenario();
  // The secret input comes from secret config: a literal in the (plain) program spec
  // config would itself sit in plaintext in the stack config.
  const secrets = { "kvstore:apiKey": API_KEY, "kvstore:secretInput": SECRET_INPUT };

  const r1 = await s.run("up", spec(1), { secrets });
  expect(r1.ok, errors(r1)).toBe(true);

  // The provider got the whole config, namespaced, with the secret in plaintext.
  expect(s.calls().find((c) => c.op === "configure")?.apiKey).toBe(API_KEY);
  // ...and plaintext inputs.
  expect(s.calls().find((c) => c.op === "create")?.inputs).toMatchObject({ secretValue: SECRET_INPUT, token: API_KEY });

  // Nothing printed shows them.
  const printed = r1.summary + JSON.stringify({ ...r1, summary: undefined });
  expect(printed).not.toContain(API_KEY);
  expect(printed).not.toContain(SECRET_INPUT);
  expect(r1.outputs["apiKey"]).toBe("[secret]");
  expect(r1.summary).toMatch(/apiKey: \[secret\]/);

  // The state file holds ciphertext objects, never the plaintext.
  const text = s.stateText();
  expect(text).not.toContain(API_KEY);
  expect(text).not.toContain(SECRET_INPUT);
  const res = s.checkpoint().checkpoint.latest.resources.find((x) => x.urn.endsWith("::s"))!;
  for (const v of [res.inputs["secretValue"], res.inputs["token"], res.outputs["secretValue"], res.outputs["token"], res.outputs["computed"]]) {
    expect(v).toMatchObject({ [SIG_KEY]: SECRET_SIG, ciphertext: expect.stringMatching(/^v1:/) });
  }
  // A plain input stays readable.
  expect(res.inputs["value"]).toBe(1);

  // Next run: the provider's diff and update get the *old* secret values in plaintext.
  s.clearCalls();
  const r2 = await s.run("up", spec(2), { secrets });
  expect(r2.ok, errors(r2)).toBe(true);
  expect(stepOf(r2.steps, "s")).toMatchObject({ op: "update", diffs: ["value"] });
  const diff = s.calls().find((c) => c.op === "diff")!;
  expect(diff.olds).toMatchObject({ secretValue: SECRET_INPUT, token: API_KEY, value: 1 });
  expect(s.calls().find((c) => c.op === "update")?.olds).toMatchObject({ secretValue: SECRET_INPUT });
  expect(s.stateText()).not.toContain(SECRET_INPUT);

  // Refresh and destroy configure the plugin from the (decrypted) provider state.
  s.clearCalls();
  const d = await s.run("destroy");
  expect(d.ok, errors(d)).toBe(true);
  expect(s.calls().find((c) => c.op === "configure")?.apiKey).toBe(API_KEY);
});

test("a wrong passphrase is refused with a clear error", async () => {
  const s = scenario();
  await s.run("up", spec(1), { secrets: { "kvstore:apiKey": API_KEY, "kvstore:secretInput": SECRET_INPUT } });
  await expect(runEngine({ ...s.options("preview", spec(1)), passphrase: "not the passphrase" })).rejects.toThrow(/passphrase/);
});
