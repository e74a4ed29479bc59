/**
 * With `allowLoopbackTargets`, test, verify and worker deliveries really POST over
 * HTTPS to a loopback receiver (a self-signed node https server here): signed,
 * carrying the custom headers. Without it, nothing reaches the receiver.
 */
import { execFileSync } from "node:child_process";
import { createHmac } from "node:crypto";
import { mkdtempSync, readFileSync } from "node:fs";
import { createServer, type Server } from "node:https";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { IncomingHttpHeaders } from "node:http";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { control, useEmulator } from "../../support/emulator";
import type { RunningEmulator } from "../../../emulator";
import { createEndpoint, newWorkspace, publish, wh } from "./endpoints-support";

interface Received {
  headers: IncomingHttpHeaders;
  body: string;
}
type Behaviour = (r: Received) => Promise<{ status: number; body?: string } | "hang">;

let server: Server;
let port = 0;
let received: Received[] = [];
let behaviour: Behaviour;
const echo: Behaviour = async (r) => ({ status: 200, body: JSON.stringify({ challenge: JSON.parse(r.body).data?.challenge }) });

beforeAll(async () => {
  const dir = mkdtempSync(join(tmpdir(), "svc-loopback-"));
  execFileSync("openssl", ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", join(dir, "key.pem"), "-out", join(dir, "cert.pem"), "-days", "1", "-subj", "/CN=127.0.0.1"], { stdio: "ignore" });
  server = createServer({ key: readFileSync(join(dir, "key.pem")), cert: readFileSync(join(dir, "cert.pem")) }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const r = { headers: req.headers, body: Buffer.concat(chunks).toString("utf8") };
      received.push(r);
      void behaviour(r).then((out) => {
        if (out === "hang") return;
        res.writeHead(out.status, { "content-type": "application/json" }).end(out.body ?? "{}");
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as { port: number }).port;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});
beforeEach(() => {
  received = [];
  behaviour = echo;
});

const url = () => `https://127.0.0.1:${port}/hook`;

function verifySignature(r: Received, secret: string): boolean {
  const ts = r.headers["x-webhook-timestamp"];
  const expected = createHmac("sha256", secret).update(`${ts}.${r.body}`).digest("hex");
  return r.headers["x-webhook-signature"] === `sha256=${expected}`;
}

describe("loopback targets allowed", () => {
  const emu = useEmulator({ allowLoopbackTargets: true });

  async function endpoint(e: RunningEmulator, extra: Record<string, unknown> = {}) {
    const ws = await newWorkspace(e);
    const ep = await createEndpoint(e, ws.webhooks.admin, { url: url(), custom_headers: { "X-Tenant": "t-1", Authorization: "Bearer abc" }, ...extra });
    return { ws, ep };
  }

  it("test sends a signed ping with the custom headers and reports delivered", async () => {
    const { ws, ep } = await endpoint(emu());
    const res = await wh(emu(), "POST", `/v1/endpoints/${ep.id}/test`, { key: ws.webhooks.admin });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ delivered: true, failure_reason: null, error: null, status_code: 200 });
    expect(received).toHaveLength(1);
    const r = received[0]!;
    expect(r.headers["x-tenant"]).toBe("t-1");
    expect(r.headers.authorization).toBe("Bearer abc");
    expect(r.headers["content-type"]).toBe("application/json");
    expect(verifySignature(r, ep.secret)).toBe(true);
    expect(verifySignature(r, "whsec_other")).toBe(false);
    expect(JSON.parse(r.body)).toMatchObject({ type: "webhook.ping" });
  });

  it("test reports http_status with the receiver's status code", async () => {
    const { ws, ep } = await endpoint(emu());
    behaviour = async () => ({ status: 503 });
    const res = await wh(emu(), "POST", `/v1/endpoints/${ep.id}/test`, { key: ws.webhooks.admin });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ delivered: false, failure_reason: "http_status", status_code: 503 });
  });

  it("verify: the echoed challenge marks the endpoint verified", async () => {
    const { ws, ep } = await endpoint(emu());
    const res = await wh(emu(), "POST", `/v1/endpoints/${ep.id}/verify`, { key: ws.webhooks.admin });
    expect(res.body).toEqual({ verified: true, error: null, failure_reason: null });
    const sent = JSON.parse(received[0]!.body);
    expect(sent.type).toBe("webhook.verify");
    expect(typeof sent.data.challenge).toBe("string");
    expect(verifySignature(received[0]!, ep.secret)).toBe(true);
    expect((await wh(emu(), "GET", `/v1/endpoints/${ep.id}`, { key: ws.webhooks.read })).body.verified).toBe(true);
  });

  it("verify: a 2xx without the challenge is challenge_not_echoed", async () => {
    const { ws, ep } = await endpoint(emu());
    behaviour = async () => ({ status: 200, body: "{}" });
    expect((await wh(emu(), "POST", `/v1/endpoints/${ep.id}/verify`, { key: ws.webhooks.admin })).body).toMatchObject({ verified: false, failure_reason: "challenge_not_echoed" });
  });

  it("verify: the URL changing while the challenge is out is url_changed", async () => {
    const { ws, ep } = await endpoint(emu());
    behaviour = async (r) => {
      await wh(emu(), "PATCH", `/v1/endpoints/${ep.id}`, { key: ws.webhooks.admin, body: { url: `https://127.0.0.1:${port}/moved` } });
      return echo(r);
    };
    const res = await wh(emu(), "POST", `/v1/endpoints/${ep.id}/verify`, { key: ws.webhooks.admin });
    expect(res.body).toMatchObject({ verified: false, failure_reason: "url_changed" });
    expect((await wh(emu(), "GET", `/v1/endpoints/${ep.id}`, { key: ws.webhooks.read })).body.verified).toBe(false);
  });

  it("a closed port is connection_failed; a receiver that never answers is timeout", async () => {
    const ws = await newWorkspace(emu());
    const closed = await createEndpoint(emu(), ws.webhooks.admin, { url: "https://127.0.0.1:1/hook" });
    expect((await wh(emu(), "POST", `/v1/endpoints/${closed.id}/test`, { key: ws.webhooks.admin })).body).toMatchObject({ delivered: false, failure_reason: "connection_failed" });
    behaviour = async () => "hang";
    const slow = await createEndpoint(emu(), ws.webhooks.admin, { url: url(), delivery_timeout_ms: 300 });
    expect((await wh(emu(), "POST", `/v1/endpoints/${slow.id}/test`, { key: ws.webhooks.admin })).body).toMatchObject({ delivered: false, failure_reason: "timeout" });
  });

  it("the worker delivers a published event, signed, and records the attempt", async () => {
    const { ws, ep } = await endpoint(emu());
    const event = (await publish(emu(), ws.webhooks.publish, { event_type: "order.created", payload: { n: 7 } })).body;
    const run = await control(emu(), "POST", "/webhooks/worker/run", { endpoint_id: ep.id });
    expect(run.deliveries).toMatchObject([{ status: "sent", attempts: 1, last_status_code: 200 }]);
    const r = received[0]!;
    expect(verifySignature(r, ep.secret)).toBe(true);
    expect(JSON.parse(r.body)).toMatchObject({ type: "order.created", data: { n: 7 } });
    expect(r.headers["x-tenant"]).toBe("t-1");
    const dl = await wh(emu(), "GET", `/v1/events/${event.id}/deliveries`, { key: ws.webhooks.read });
    expect(dl.body.data[0].status).toBe("sent");
  });

  it("localhost is reached on 127.0.0.1 without a name lookup", async () => {
    const ws = await newWorkspace(emu());
    const ep = await createEndpoint(emu(), ws.webhooks.admin, { url: `https://localhost:${port}/hook` });
    expect((await wh(emu(), "POST", `/v1/endpoints/${ep.id}/test`, { key: ws.webhooks.admin })).body).toMatchObject({ delivered: true, status_code: 200 });
    expect(received).toHaveLength(1);
  });

  it("private addresses that are not loopback stay blocked", async () => {
    const ws = await newWorkspace(emu());
    const ep = await createEndpoint(emu(), ws.webhooks.admin, { url: "https://10.0.0.1/hook" });
    expect((await wh(emu(), "POST", `/v1/endpoints/${ep.id}/test`, { key: ws.webhooks.admin })).body).toMatchObject({ failure_reason: "blocked_address" });
  });
});

describe("loopback targets not allowed (default)", () => {
  const emu = useEmulator();

  it("test, verify and the worker never reach a loopback receiver", async () => {
    const ws = await newWorkspace(emu());
    const ep = await createEndpoint(emu(), ws.webhooks.admin, { url: url() });
    expect((await wh(emu(), "POST", `/v1/endpoints/${ep.id}/test`, { key: ws.webhooks.admin })).body).toMatchObject({ delivered: false, failure_reason: "blocked_address" });
    expect((await wh(emu(), "POST", `/v1/endpoints/${ep.id}/verify`, { key: ws.webhooks.admin })).body).toMatchObject({ verified: false, failure_reason: "blocked_address" });
    await publish(emu(), ws.webhooks.publish, { event_type: "a" });
    const run = await control(emu(), "POST", "/webhooks/worker/run", { endpoint_id: ep.id });
    expect(run.deliveries).toMatchObject([{ status: "failed", last_failure_reason: "blocked_address" }]);
    expect(received).toHaveLength(0);
  });
});
