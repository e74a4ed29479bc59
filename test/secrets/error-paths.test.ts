/**
 * Secrets in every message, the provider's side (called as the plugin calls it): check
 * failures and errors for inputs the SDK listed as secret hold no value of theirs, nor
 * the API key. The same error paths through a program: error-paths-cli.test.ts.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { providers } from "../../provider";
import { configure } from "../provider/support";
import { control, useEmulator } from "../support/emulator";

const MARK = "S3CRET-MARK";
const emu = useEmulator();

describe("the provider hides the values of inputs listed as secret (called as the plugin calls it)", () => {
  const endpoint = providers["webhooks:Endpoint"]!;

  let apiKey: string;

  beforeAll(async () => {
    apiKey = (await control<{ webhooks: { admin: string } }>(emu(), "POST", "/workspaces", { plan: "enterprise" })).webhooks.admin;
    await configure(endpoint, { "svc:webhooksUrl": emu().webhooksUrl, "svc:webhooksApiKey": apiKey });
  });

  it("check failures: a listed input's value becomes [secret]; an unlisted one is shown", async () => {
    const pattern = `order..${MARK}-unit`;
    const listed = await endpoint.check!({}, { url: "https://x.example.com/in", subscriptions: [{ eventType: pattern }], __secretInputs: ["subscriptions"] });
    expect(JSON.stringify(listed.failures)).not.toContain(MARK);
    expect(JSON.stringify(listed.failures)).toContain("[secret]");
    const unlisted = await endpoint.check!({}, { url: "https://x.example.com/in", subscriptions: [{ eventType: pattern }] });
    expect(JSON.stringify(unlisted.failures)).toContain(pattern);
  });

  it("errors: a failed verification of a listed URL hides the URL, the token alone, and the API key", async () => {
    const url = `https://127.0.0.1:1/in?token=${MARK}-unit-token`;
    const err = await endpoint.create({ url, verify: true, subscriptions: [], __secretInputs: ["url"] }).then(
      () => undefined,
      (e: Error & { reasons?: string[] }) => e,
    );
    expect(err?.message).toContain("is not verified");
    const told = `${err?.message}\n${err?.stack}\n${JSON.stringify(err?.reasons)}`;
    expect(told).not.toContain(MARK);
    expect(told).not.toContain(apiKey);
  });
});
