/** The connection settings' messages (provider/config.ts): each names the command that works as given. */
import { describe, expect, it } from "vitest";
import { MissingSettingError, resolveConnection } from "../../provider/config";

const missing = (config: Record<string, string>, profile?: string): MissingSettingError => {
  try {
    resolveConnection((key) => config[key], "webhooks", profile, {});
  } catch (err) {
    if (err instanceof MissingSettingError) return err;
    throw err;
  }
  throw new Error("no MissingSettingError");
};

describe("a missing setting", () => {
  it("stack-wide: the key, with --secret for an API key only", () => {
    expect(missing({}).message).toContain("`pulumi config set svc:webhooksUrl ...`");
    expect(missing({ webhooksUrl: "http://127.0.0.1:1" }).message).toContain("`pulumi config set --secret svc:webhooksApiKey ...`");
  });

  it("a profile's: with --path (without it the CLI makes a flat key the provider does not read)", () => {
    expect(missing({}, "staging").message).toContain("`pulumi config set --path svc:profiles.staging.webhooksUrl ...`");
    expect(missing({ profiles: JSON.stringify({ staging: { webhooksUrl: "http://127.0.0.1:1" } }) }, "staging").message).toContain("`pulumi config set --secret --path svc:profiles.staging.webhooksApiKey ...`");
    expect(missing({}, "staging").message).toContain("SVC_PROFILE_STAGING_WEBHOOKS_URL");
  });
});
