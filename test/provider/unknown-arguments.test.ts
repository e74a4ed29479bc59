/**
 * A misspelled argument fails check, naming it and the closest known name, for every
 * kind and inside nested objects (subscriptions, quota limits); the keys the SDK and
 * the plugin add (`__provider`, `__secretInputs`) pass; type errors name the expected
 * and the given type. Check is called as the plugin calls it (no service needed: every
 * case fails locally, or the remote checks are switched off). A JavaScript program's
 * `transprot` under the real CLI: unknown-arguments-cli.test.ts.
 */
import { describe, expect, it } from "vitest";
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
