/**
 * The client against the emulator over HTTP, with the emulator's fault injection
 * (faults apply to any path). Call counts come from the request log.
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeEach, describe, expect, it } from "vitest";
import { SvcApiError, SvcClient, SvcConnectionError, SvcUnknownOutcomeError, closeSharedDispatcher } from "../../provider/client";
import { PACKAGE_VERSION } from "../../provider/version";
import { control, lastSeq, requestsSince, useEmulator } from "../support/emulator";

const emu = useEmulator();
const client = () => new SvcClient({ baseUrl: emu().webhooksUrl, apiKey: emu().keys.webhooks.admin, retry: { baseDelayMs: 20 } });
const ME = "/v1/auth/me";

afterAll(() => closeSharedDispatcher());

async function fault(spec: Record<string, unknown>) {
  await control(emu(), "POST", "/faults", spec);
}

describe("client against the emulator", () => {
  let since = 0;
  beforeEach(async () => {
    await control(emu(), "DELETE", "/faults");
    since = await lastSeq(emu());
  });
  const calls = async (path = `/webhooks${ME}`) => (await requestsSince(emu(), since)).filter((r) => r.path === path);

  it("sends User-Agent pulumi-svc/<version> and a fresh X-Request-ID per call", async () => {
    await client().request({ method: "GET", path: ME });
    await client().request({ method: "GET", path: ME });
    const log = await calls();
    expect(log.map((r: any) => r.user_agent)).toEqual([`pulumi-svc/${PACKAGE_VERSION}`, `pulumi-svc/${PACKAGE_VERSION}`]);
    const ids = log.map((r: any) => r.request_id);
    expect(new Set(ids).size).toBe(2);
    expect(ids[0]).toMatch(/^pulumi-svc-/);
  });

  it("429 then success: waits Retry-After and retries", async () => {
    await fault({ method: "GET", path: `/webhooks${ME}`, status: 429, retry_after: 1, count: 1 });
    const started = Date.now();
    const res = await client().request({ method: "GET", path: ME });
    expect(res.status).toBe(200);
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);
    expect((await calls()).map((r) => r.status)).toEqual([429, 200]);
  });

  it("429 on a create is retried too (the service did not act)", async () => {
    await fault({ method: "POST", path: "/webhooks/v1/nothing-here", status: 429, retry_after: 0, count: 1 });
    await expect(client().request({ method: "POST", path: "/v1/nothing-here", body: {}, adoptHint: "adopt" })).rejects.toMatchObject({ status: 404 });
    expect((await calls("/webhooks/v1/nothing-here")).map((r) => r.status)).toEqual([429, 404]);
  });

  it("429 asking to wait beyond the budget fails at once", async () => {
    await fault({ method: "GET", path: `/webhooks${ME}`, status: 429, retry_after: 120, count: 1 });
    const err = await client().request({ method: "GET", path: ME }).catch((e) => e);
    expect(err).toBeInstanceOf(SvcApiError);
    expect(err.code).toBe("rate_limited");
    expect((await calls()).length).toBe(1);
  });

  it("500 on a GET is retried", async () => {
    await fault({ method: "GET", path: `/webhooks${ME}`, status: 500, count: 2 });
    const res = await client().request({ method: "GET", path: ME });
    expect(res.status).toBe(200);
    expect((await calls()).map((r) => r.status)).toEqual([500, 500, 200]);
  });

  it("500 on a create is NOT retried and says the object may exist and how to adopt it", async () => {
    await fault({ method: "POST", path: "/webhooks/v1/endpoints", status: 500, count: 1 });
    const err = await client()
      .request({ method: "POST", path: "/v1/endpoints", body: { url: "https://example.com" }, adoptHint: "Set adoptId to adopt it." })
      .catch((e) => e);
    expect(err).toBeInstanceOf(SvcUnknownOutcomeError);
    expect(err.message).toMatch(/may have been created/);
    expect(err.message).toMatch(/adoptId/);
    expect((await calls("/webhooks/v1/endpoints")).length).toBe(1);
  });

  it("a dropped connection on a GET is retried", async () => {
    await fault({ method: "GET", path: `/webhooks${ME}`, drop: true, count: 1 });
    const res = await client().request({ method: "GET", path: ME });
    expect(res.status).toBe(200);
  });

  it("a create dropped after the service acted is not retried: unknown outcome", async () => {
    await fault({ method: "POST", path: "/webhooks/v1/endpoints", drop_after_response: true, count: 1 });
    const err = await client()
      .request({ method: "POST", path: "/v1/endpoints", body: { url: "https://example.com/dropped" }, adoptHint: "Set adoptId." })
      .catch((e) => e);
    expect(err).toBeInstanceOf(SvcUnknownOutcomeError);
    expect((await calls("/webhooks/v1/endpoints")).length).toBe(1);
  });

  it("4xx other than 429 is never retried; the error carries code, reason, details, request id, method and path", async () => {
    const err = await new SvcClient({ baseUrl: emu().webhooksUrl, apiKey: emu().keys.webhooks.read })
      .request({ method: "POST", path: "/v1/endpoints", body: { url: "https://example.com" } })
      .catch((e) => e);
    expect(err).toBeInstanceOf(SvcApiError);
    expect(err).toMatchObject({ status: 403, code: "forbidden", reason: "scope", method: "POST", path: "/v1/endpoints" });
    expect(err.requestId).toMatch(/^pulumi-svc-/);
    expect(err.message).toContain("forbidden");
    expect(err.message).toContain(err.requestId);
    expect(err.message).not.toContain(emu().keys.webhooks.read);
    expect((await calls("/webhooks/v1/endpoints")).length).toBe(1);
  });

  it("an edge 502 without a body is retried for a GET", async () => {
    await fault({ method: "GET", path: `/webhooks${ME}`, status: 502, count: 1 });
    expect((await client().request({ method: "GET", path: ME })).status).toBe(200);
  });

  it("listAll walks every page", async () => {
    const items = await client().listAll("/v1/endpoints", {}, 1);
    expect(Array.isArray(items)).toBe(true);
  });
});

describe("client against a raw server", () => {
  it("an infrastructure quota 429 (empty Retry-After) is not retried", async () => {
    let hits = 0;
    const server = createServer((_req, res) => {
      hits++;
      res.writeHead(429, { "retry-after": "", "content-type": "application/json" });
      res.end(JSON.stringify({ error: { code: "quota_exceeded", message: "Quota reached.", request_id: "r1" } }));
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    const port = (server.address() as AddressInfo).port;
    const err = await new SvcClient({ baseUrl: `http://127.0.0.1:${port}`, apiKey: "svc_test_x" }).request({ method: "GET", path: "/api/v1/quota/compute" }).catch((e) => e);
    server.close();
    expect(err).toBeInstanceOf(SvcApiError);
    expect(hits).toBe(1);
  });

  it("a refused connection is an SvcConnectionError naming the call", async () => {
    const server = createServer();
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    const port = (server.address() as AddressInfo).port;
    await new Promise((r) => server.close(r));
    const err = await new SvcClient({ baseUrl: `http://127.0.0.1:${port}`, apiKey: "k", retry: { maxRetries: 1, baseDelayMs: 5 } }).request({ method: "GET", path: "/v1/x" }).catch((e) => e);
    expect(err).toBeInstanceOf(SvcConnectionError);
    expect(err.message).toMatch(/GET \/v1\/x/);
  });
});
