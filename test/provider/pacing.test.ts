/**
 * The client's traffic controller per connection (provider/client/pacing.ts)
 * against the emulator's rate limit, latency and observed concurrency, over HTTP.
 * Call order and concurrency come from the emulator (request log, GET /_emulator/limits).
 */
import { afterAll, afterEach, beforeEach, describe, expect, it } from "vitest";
import { providers } from "../../provider";
import { SvcClient, closeSharedDispatcher } from "../../provider/client";
import { resetPacers, setPacingNote } from "../../provider/client/pacing";
import { InvalidSettingError, resolveConnection } from "../../provider/config";
import { control, lastSeq, requestsSince, useEmulator } from "../support/emulator";
import { configure } from "./support";

const emu = useEmulator();
const key = () => emu().keys.webhooks.admin;
const client = (pacing?: ConstructorParameters<typeof SvcClient>[0]["pacing"]) => new SvcClient({ baseUrl: emu().webhooksUrl, apiKey: key(), pacing });
const many = (c: SvcClient, n: number, path = "/v1/endpoints") => Promise.all(Array.from({ length: n }, () => c.request({ method: "GET", path })));

afterAll(() => closeSharedDispatcher());
beforeEach(() => resetPacers());
afterEach(async () => {
  await control(emu(), "POST", "/reset");
  setPacingNote((m) => void process.stdout.write(`${m}\n`));
});

describe("pacing per connection", () => {
  it("a Retry-After on one request holds back the others on its connection until it has passed", async () => {
    await control(emu(), "POST", "/faults", { method: "GET", path: "/webhooks/v1/auth/me", status: 429, retry_after: 1, count: 1 });
    const since = await lastSeq(emu());
    const c = client();
    const first = c.request({ method: "GET", path: "/v1/auth/me" });
    // Wait until the service has refused it, then ask for something else on the same connection.
    while (!(await requestsSince(emu(), since)).some((r) => r.status === 429)) await new Promise((r) => setTimeout(r, 10));
    await Promise.all([first, c.request({ method: "GET", path: "/v1/endpoints" })]);

    const log = (await requestsSince(emu(), since)) as unknown as { path: string; status: number; time: string; duration_ms: number }[];
    expect(log.map((r) => `${r.status} ${r.path}`)).toEqual(["429 /webhooks/v1/auth/me", "200 /webhooks/v1/auth/me", "200 /webhooks/v1/endpoints"]);
    const refusedAt = Date.parse(log[0]!.time);
    const otherArrived = Date.parse(log[2]!.time) - log[2]!.duration_ms;
    // The other request reached the service only once the second had passed (not at once).
    expect(otherArrived - refusedAt).toBeGreaterThanOrEqual(950);
  });

  it("svc:maxConcurrency bounds the requests in flight the service sees; without it the controller sends more", async () => {
    await control(emu(), "PUT", "/limits", { latency_ms: 50 });
    await many(client({ maxConcurrency: 3 }), 30);
    const bounded = await control(emu(), "GET", "/limits");
    expect(bounded.max_in_flight).toBeGreaterThan(0);
    expect(bounded.max_in_flight).toBeLessThanOrEqual(3);

    resetPacers();
    await control(emu(), "DELETE", "/limits/counters");
    await many(client(), 30);
    expect((await control(emu(), "GET", "/limits")).max_in_flight).toBeGreaterThan(3);
  });

  it("svc:requestsPerSecond under the service's rate draws no 429", async () => {
    await control(emu(), "PUT", "/limits", { rate_limit: 10, burst: 2 });
    const since = await lastSeq(emu());
    await many(client({ requestsPerSecond: 5 }), 12);
    const log = await requestsSince(emu(), since);
    expect(log.map((r) => r.status)).toEqual(Array(12).fill(200));
  });

  it("a rate-limited burst settles: every request succeeds, few 429s, and the pacing note comes once, without the key", async () => {
    const notes: string[] = [];
    setPacingNote((m) => notes.push(m));
    await control(emu(), "PUT", "/limits", { rate_limit: 10, burst: 10, latency_ms: 10 });
    const since = await lastSeq(emu());
    await many(client(), 60);
    const log = await requestsSince(emu(), since);
    expect(log.filter((r) => r.status === 200)).toHaveLength(60);
    // Most 429s come in the first round trips, before any answer told the client of the limit (the
    // emulator shares this process, so its answers also wait behind the client's own work).
    expect(log.filter((r) => r.status === 429).length).toBeLessThanOrEqual(20);
    expect(notes).toHaveLength(1);
    expect(notes[0]).toMatch(/^svc 127\.0\.0\.1:\d+: rate limited by the service; pacing to about \d+ requests\/s$/);
    expect(notes[0]).not.toContain(key());
  });
});

describe("ceilings in config", () => {
  const source = (values: Record<string, string>) => (k: string) => values[k];
  const base = { webhooksUrl: "http://127.0.0.1:1/webhooks", webhooksApiKey: "k" };

  it("are read from the stack config, a profile, or the environment", () => {
    expect(resolveConnection(source({ ...base, maxConcurrency: "8", requestsPerSecond: "2.5" }), "webhooks", undefined, {}).ceilings).toEqual({ maxConcurrency: 8, requestsPerSecond: 2.5 });
    const profiles = JSON.stringify({ slow: { ...base, requestsPerSecond: 1 } });
    expect(resolveConnection(source({ profiles, maxConcurrency: "4" }), "webhooks", "slow", {}).ceilings).toEqual({ maxConcurrency: 4, requestsPerSecond: 1 });
    expect(resolveConnection(source(base), "webhooks", undefined, { SVC_MAX_CONCURRENCY: "16" }).ceilings).toEqual({ maxConcurrency: 16, requestsPerSecond: undefined });
  });

  it("a bad value is refused naming the setting, the value and the limit", () => {
    expect(() => resolveConnection(source({ ...base, maxConcurrency: "2.5" }), "webhooks", undefined, {})).toThrow(
      new InvalidSettingError('Stack config `svc:maxConcurrency` is "2.5"; it must be a whole number of requests in flight from 1 to 10000.'),
    );
    expect(() => resolveConnection(source(base), "webhooks", undefined, { SVC_REQUESTS_PER_SECOND: "0" })).toThrow(/SVC_REQUESTS_PER_SECOND is "0"; it must be a number of requests per second above 0/);
  });

  it("an address that is no http(s) URL (no scheme) is refused naming the setting and the value, not taken for a network failure", () => {
    expect(() => resolveConnection(source({ ...base, webhooksUrl: "127.0.0.1:4857/webhooks" }), "webhooks", undefined, {})).toThrow(
      new InvalidSettingError('Stack config `svc:webhooksUrl` is "127.0.0.1:4857/webhooks"; it must be an http:// or https:// URL of the webhooks service (e.g. https://api.example.com/webhooks).'),
    );
    expect(() => resolveConnection(source({ webhooksApiKey: "k" }), "webhooks", undefined, { SVC_WEBHOOKS_URL: "localhost:4857/webhooks" })).toThrow(/The environment variable SVC_WEBHOOKS_URL is "localhost:4857\/webhooks"; it must be an http:\/\/ or https:\/\/ URL/);
  });

  it("an address holding a password or a query is refused without repeating it (adv14b F11)", () => {
    for (const [webhooksUrl, what] of [["http://user:PW_secret1@127.0.0.1:4857/webhooks", "a user name or password"], ["http://127.0.0.1:4857/webhooks?token=TOKEN_secret1", "a query or fragment"], ["http://127.0.0.1:4857/webhooks?", "a query or fragment"]]) {
      let message = "";
      try {
        resolveConnection(source({ ...base, webhooksUrl }), "webhooks", undefined, {});
      } catch (err) {
        message = (err as Error).message;
      }
      expect(message).toBe(`Stack config \`svc:webhooksUrl\` holds ${what} (not shown here); it must be the webhooks service's base URL alone, e.g. http://127.0.0.1:4857/webhooks: the API key goes in the webhooksApiKey setting.`);
    }
  });

  it("fail at preview: check reports the setting", async () => {
    const provider = providers["webhooks:Endpoint"]!;
    await configure(provider, { "svc:webhooksUrl": emu().webhooksUrl, "svc:webhooksApiKey": key(), "svc:requestsPerSecond": "fast" });
    const checked = await provider.check!({}, { url: "https://example.com/hook" });
    // No profile set: the failure names no property (the default profile's settings are the stack's).
    expect(checked.failures).toEqual([{ property: "", reason: expect.stringMatching(/`svc:requestsPerSecond` is "fast"; it must be a number of requests per second/) }]);
  });
});
