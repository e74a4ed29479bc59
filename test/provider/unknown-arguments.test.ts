/**
 * A misspelled argument fails check, naming it and the closest known name, for every
 * kind and inside nested objects (subscriptions, quota limits); the keys the SDK and
 * the plugin add (`__provider`, `__secretInputs`) pass; type errors name the expected
 * and the given type. Check is called as the plugin calls it (no service needed: every
 * case fails locally, or the remote checks are switched off). A JavaScript program's
 * `transprot` under the real CLI: unknown-arguments-cli.test.ts. A stack config key the
 * provider does not read, at the top level or inside a profile, is warned with the closest
 * known key by both front ends (the native plugin's under the real CLI: test/native/plugin.test.ts).
 */
import * as path from "node:path";
import * as provproto from "@pulumi/pulumi/proto/provider_pb";
import * as structproto from "google-protobuf/google/protobuf/struct_pb";
import { describe, expect, it, vi } from "vitest";
import { providers, type ResourceProviderOf } from "../../provider";
import { configure } from "./support";

const offline = {
  "svc:webhooksUrl": "http://127.0.0.1:9/webhooks",
  "svc:webhooksApiKey": "k",
  "svc:inboxesUrl": "http://127.0.0.1:9/inboxes",
  "svc:inboxesApiKey": "k",
  "svc:infraUrl": "http://127.0.0.1:9/infra",
  "svc:infraApiKey": "k",
  "svc:skipRemoteChecks": "true",
};

const kinds = Object.entries(providers) as [string, ResourceProviderOf][];

async function check(provider: ResourceProviderOf, news: Record<string, unknown>) {
  await configure(provider, offline);
  return (await provider.check!({}, news)).failures ?? [];
}

describe("unknown arguments fail check with the closest known name", () => {
  it.each(kinds)("%s: `profle` → did you mean profile?", async (_kind, provider) => {
    const failures = await check(provider, { profle: "prod" });
    expect(failures).toContainEqual({ property: "profle", reason: expect.stringMatching(/^unknown argument profle; did you mean profile\?/) });
  });

  it("inbox: transprot → transport (the issue's example), and the arguments it takes", async () => {
    const failures = await check(providers["inboxes:Inbox"]!, { transprot: "http" });
    expect(failures).toEqual([{ property: "transprot", reason: expect.stringContaining("unknown argument transprot; did you mean transport?") }]);
    expect(failures[0]!.reason).toContain("label, phrase, expiresInMinutes, transport");
  });

  it("endpoint: maxAttempt → maxAttempts; a name far from every other lists the known ones", async () => {
    const failures = await check(providers["webhooks:Endpoint"]!, { url: "https://x.example.com/in", maxAttempt: 5, zzzzzzzz: 1 });
    expect(failures.map((f) => f.property)).toEqual(["maxAttempt", "zzzzzzzz"]);
    expect(failures[0]!.reason).toContain("did you mean maxAttempts?");
    expect(failures[1]!.reason).not.toContain("did you mean");
    expect(failures[1]!.reason).toContain("url, subscriptions");
  });

  it("endpoint: a misspelled key inside a subscription", async () => {
    const failures = await check(providers["webhooks:Endpoint"]!, { url: "https://x.example.com/in", subscriptions: [{ eventType: "a.b" }, { evenType: "c.d" }] });
    expect(failures).toEqual([
      { property: "subscriptions[1].eventType", reason: "missing required argument eventType (missing)" },
      { property: "subscriptions[1].evenType", reason: "unknown argument evenType; did you mean eventType? (extra_forbidden)" },
    ]);
  });

  it("quota request: a misspelled quota name in limits", async () => {
    const failures = await check(providers["infra:QuotaRequest"]!, { service: "compute", region: "us-east-1", limits: { vcpus: 10 }, justification: "load test" });
    expect(failures).toEqual([{ property: "limits.vcpus", reason: expect.stringContaining("Unknown quota 'vcpus' for service compute; did you mean vcpu?") }]);
  });

  it("the keys the SDK and the plugin add, and output names, are no unknown arguments", async () => {
    const failures = await check(providers["inboxes:Inbox"]!, { label: "x", __provider: "shim", __secretInputs: ["label"], address: "a@b" });
    expect(failures).toEqual([]);
  });
});

describe("a required argument left out fails check, naming it (programs without a type checker: JavaScript, YAML)", () => {
  const required = (provider: ResourceProviderOf) => Object.entries(provider.definition.fields).filter(([, spec]) => spec.required).map(([name]) => name);

  it.each(kinds.filter(([, provider]) => required(provider).length > 0))("%s", async (_kind, provider) => {
    const failures = await check(provider, {});
    for (const name of required(provider)) expect(failures.map((f) => f.property), name).toContain(name);
  });

  it("endpoint without url: the property and what it is", async () => {
    const failures = await check(providers["webhooks:Endpoint"]!, { description: "x" });
    expect(failures).toEqual([{ property: "url", reason: expect.stringMatching(/^missing required argument url\. The receiver's address/) }]);
  });
});

describe("type errors name the expected and the given type", () => {
  it.each([
    { kind: "inboxes:Inbox", news: { label: 5 }, property: "label", expected: "expected string", given: "given number" },
    { kind: "webhooks:Endpoint", news: { url: "https://x.example.com", retrySchedule: "10,60" }, property: "retrySchedule", expected: "expected array", given: "given string" },
    { kind: "webhooks:Endpoint", news: { url: "https://x.example.com", verify: "yes" }, property: "verify", expected: "expected boolean", given: "given string" },
  ])("$kind $property", async ({ kind, news, property, expected, given }) => {
    const failures = await check(providers[kind as keyof typeof providers]!, news);
    const failure = failures.find((f) => f.property === property);
    expect(failure?.reason).toContain(expected);
    expect(failure?.reason).toContain(given);
    expect(failure?.reason).not.toContain("(missing)");
  });
});

describe("a stack config key the provider does not read is warned with the closest known one, inside a profile too", () => {
  /** What `run` wrote to stderr, where the provider's warnings go without an engine log to send them to. */
  async function warnings(run: () => Promise<unknown>): Promise<string[]> {
    const stderr = vi.spyOn(process.stderr, "write").mockImplementation(() => true);
    try {
      await run();
      return stderr.mock.calls.map(([text]) => String(text).replace(/^warning: /, "").trimEnd());
    } finally {
      stderr.mockRestore();
    }
  }
  const profiles = JSON.stringify({ other: { webhooksUrl: "http://127.0.0.1:9/webhooks", webhookUrl: "http://typo", maxConcurency: 4 }, ok: { webhooksUrl: "http://127.0.0.1:9/webhooks", zzzzzz: 1 }, third: "http://127.0.0.1:9/webhooks" });
  // adv37f F5: a misspelt key inside a profile was ignored without a word, where a top-level one was warned.
  const EXPECTED = [
    "Stack config `svc:profiles.other.webhookUrl` is not a setting of a profile and is ignored: did you mean `svc:profiles.other.webhooksUrl`? (`pulumi config rm --path svc:profiles.other.webhookUrl`)",
    "Stack config `svc:profiles.other.maxConcurency` is not a setting of a profile and is ignored: did you mean `svc:profiles.other.maxConcurrency`? (`pulumi config rm --path svc:profiles.other.maxConcurency`)",
    expect.stringMatching(/^Stack config `svc:profiles\.ok\.zzzzzz` is not a setting of a profile and is ignored: a profile's settings are `webhooksUrl`, `webhooksApiKey`, .*`requestsPerSecond`\. \(`pulumi config rm --path svc:profiles\.ok\.zzzzzz`\)$/),
    // adv37h H8: a profile that is no object of settings was ignored without a word; its value is not echoed.
    expect.stringMatching(/^Stack config `svc:profiles\.third` is not an object of settings and is ignored: set a profile's settings with `pulumi config set --path svc:profiles\.third\.webhooksUrl \.\.\.` \(a profile's settings are `webhooksUrl`, .*\)\.$/),
  ];

  it("dynamic provider (a TypeScript program): at configure, once per process whichever kinds it configures", async () => {
    // As the dynamic-provider plugin builds it: every namespace's keys in `rawConfig`.
    const rawConfig: Record<string, string> = { ...offline, "svc:profiles": profiles, "svc:webhookUrl": "http://typo", "aws:region": "eu-west-1" };
    const config = { rawConfig, get: (key: string) => rawConfig[key], require: (key: string) => rawConfig[key]! };
    const said = await warnings(async () => {
      await providers["webhooks:Endpoint"]!.configure!({ config } as never);
      await providers["inboxes:Inbox"]!.configure!({ config } as never);
    });
    expect(said).toEqual(["Stack config `svc:webhookUrl` is not a setting of this provider and is ignored: did you mean `svc:webhooksUrl`? (`pulumi config rm svc:webhookUrl`)", ...EXPECTED]);
  });

  it("native plugin (Python, Go, YAML): at CheckConfig, beside the top-level keys' warnings", async () => {
    const { providerService } = require(path.resolve(__dirname, "../../dist/native/server.js")) as typeof import("../../native/server");
    const service = providerService(undefined);
    const req = new provproto.CheckRequest().setUrn("urn:pulumi:dev::p::pulumi:providers:svc::default").setType("pulumi:providers:svc").setOlds(structproto.Struct.fromJavaScript({}));
    req.setNews(structproto.Struct.fromJavaScript({ webhooksUrl: "http://127.0.0.1:9/webhooks", profiles: JSON.parse(profiles), webhookUrl: "http://typo", version: "0.2.0" }));
    const said = await warnings(() => new Promise((resolve, reject) => service.checkConfig({ request: req } as never, (err: unknown, res: unknown) => (err ? reject(err) : resolve(res)))));
    // The config comes as a protobuf Struct, its keys in its own order.
    expect(said).toHaveLength(EXPECTED.length + 1);
    expect(said).toEqual(expect.arrayContaining(["Stack config `svc:webhookUrl` is not a setting of this provider and is ignored: did you mean `svc:webhooksUrl`? (`pulumi config rm svc:webhookUrl`)", ...EXPECTED]));
  });
});
