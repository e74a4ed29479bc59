// The emulator as a remote, rate-limited service: per-key token bucket answering
// 429 `rate_limited` as spec document 1 says, latency, observed concurrency.
import { afterEach, describe, expect, it } from "vitest";
import { call, control, errorOf, useEmulator } from "../support/emulator";

describe("rate limit and latency (off by default)", () => {
  const emu = useEmulator();
  afterEach(async () => {
    await control(emu(), "POST", "/reset");
  });

  it("is off unless asked for", async () => {
    expect(await control(emu(), "GET", "/limits")).toMatchObject({ rate_limit: null, burst: null, latency_ms: 0, jitter_ms: 0 });
    for (let i = 0; i < 30; i++) expect((await call(emu(), "GET", "/webhooks/v1/endpoints", { key: emu().keys.webhooks.admin })).status).toBe(200);
  });

  it("answers 429 rate_limited with Retry-After and details.retry_after per key once the burst is spent, and refills on the emulator's clock", async () => {
    await control(emu(), "PUT", "/limits", { rate_limit: 1, burst: 2 });
    const key = emu().keys.webhooks.admin;
    expect((await call(emu(), "GET", "/webhooks/v1/endpoints", { key })).status).toBe(200);
    expect((await call(emu(), "GET", "/webhooks/v1/endpoints", { key })).status).toBe(200);
    const refused = await call(emu(), "GET", "/webhooks/v1/endpoints", { key });
    expect(refused.status).toBe(429);
    const error = errorOf(refused);
    expect(error.code).toBe("rate_limited");
    // Webhooks sends no reason: retry_after only, the same number as the header.
    expect(error.details).toEqual({ retry_after: 1 });
    expect(refused.headers.get("retry-after")).toBe("1");
    expect(refused.headers.get("x-request-id")).toBe(error.request_id);

    // Another key has its own bucket; the control plane is never limited.
    expect((await call(emu(), "GET", "/webhooks/v1/endpoints", { key: emu().keys.webhooks.read })).status).toBe(200);
    for (let i = 0; i < 5; i++) await control(emu(), "GET", "/keys");

    await control(emu(), "POST", "/clock", { advance_seconds: 1 });
    expect((await call(emu(), "GET", "/webhooks/v1/endpoints", { key })).status).toBe(200);
    expect(await control(emu(), "GET", "/limits")).toMatchObject({ rate_limit: 1, burst: 2, rate_limited: 1 });
  });

  it("limits Inboxes with the same body, without a reason (inbox_rate is the per-inbox limit's own)", async () => {
    await control(emu(), "PUT", "/limits", { rate_limit: 1, burst: 1 });
    const key = emu().keys.inboxes.admin;
    expect((await call(emu(), "GET", "/inboxes/v1/inboxes", { key })).status).toBe(200);
    const refused = await call(emu(), "GET", "/inboxes/v1/inboxes", { key });
    expect(refused.status).toBe(429);
    expect(errorOf(refused)).toMatchObject({ code: "rate_limited", details: { retry_after: 1 } });
    expect(errorOf(refused).details.reason).toBeUndefined();
  });

  it("refuses bad settings naming the field", async () => {
    const res = await call(emu(), "PUT", "/_emulator/limits", { body: { rate_limit: -1 } });
    expect(res.status).toBe(422);
    expect(errorOf(res).details.errors[0].loc).toEqual(["body", "rate_limit"]);
  });

  it("delays answers and reports the concurrency it saw (request log and max_in_flight)", async () => {
    await control(emu(), "PUT", "/limits", { latency_ms: 100 });
    const key = emu().keys.webhooks.admin;
    await Promise.all(Array.from({ length: 5 }, () => call(emu(), "GET", "/webhooks/v1/endpoints", { key })));
    const { requests } = await control(emu(), "GET", "/requests");
    // Each answer waited at least the latency; five sent at once overlapped inside the service.
    expect(Math.min(...requests.map((r: { duration_ms: number }) => r.duration_ms))).toBeGreaterThanOrEqual(99);
    const seen = Math.max(...requests.map((r: { in_flight: number }) => r.in_flight));
    expect(seen).toBeGreaterThan(1);
    expect((await control(emu(), "GET", "/limits")).max_in_flight).toBe(seen);
  });
});

describe("rate limit set at start", () => {
  const emu = useEmulator({ rateLimit: 5, burst: 1 });

  it("applies from the first request and comes back after a reset", async () => {
    await control(emu(), "PUT", "/limits", {});
    await control(emu(), "POST", "/reset");
    expect(await control(emu(), "GET", "/limits")).toMatchObject({ rate_limit: 5, burst: 1 });
    expect((await call(emu(), "GET", "/webhooks/v1/endpoints", { key: emu().keys.webhooks.admin })).status).toBe(200);
    expect((await call(emu(), "GET", "/webhooks/v1/endpoints", { key: emu().keys.webhooks.admin })).status).toBe(429);
  });
});
