/**
 * The emulator's shared behaviour (spec document 1), proven over real HTTP with a
 * small test product so these tests do not depend on any product's routes.
 */
import { mkdtempSync, readFileSync, existsSync } from "node:fs";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { startEmulator, type ProductModule } from "../../emulator";
import { authenticateApp } from "../../emulator/core/auth";
import { parse } from "../../emulator/core/validation";
import { call, control, errorOf, useEmulator } from "../support/emulator";

/** A product with one read route, one write route with a validated body, and a raw-echo route. */
const testProduct: ProductModule = {
  prefix: "/webhooks",
  routes(app, ctx) {
    const body = z.object({ name: z.string().max(5), count: z.number().int().min(1).max(10) });
    app.get("/v1/things/:id", async (req) => {
      authenticateApp(ctx, req, "webhooks", "read");
      return { id: (req.params as { id: string }).id };
    });
    app.post("/v1/things", async (req, reply) => {
      authenticateApp(ctx, req, "webhooks", "admin");
      return reply.status(201).send(parse(body, req.body));
    });
  },
};
const inboxesProduct: ProductModule = {
  prefix: "/inboxes",
  routes(app, ctx) {
    app.post("/v1/echo", async (req) => {
      authenticateApp(ctx, req, "inboxes", "admin");
      return { body: req.body };
    });
  },
};

describe("emulator core", () => {
  const emu = useEmulator({ modules: [testProduct, inboxesProduct], bodyLimit: 1000 });
  const admin = () => emu().keys.webhooks.admin;

  it("serves the default keys on the control plane, in the documented shape", async () => {
    const keys = await control(emu(), "GET", "/keys");
    expect(keys.workspace_id).toMatch(/^ws_/);
    expect(keys.project_id).toMatch(/^proj_/);
    expect(keys.webhooks.admin).toMatch(/^eyJ/);
    expect(Object.keys(keys.webhooks).sort()).toEqual(["admin", "publish", "read"]);
    expect(Object.keys(keys.inboxes).sort()).toEqual(["admin", "read"]);
    expect(keys.infra.admin).toMatch(/^svc_test_[a-z2-7]{32,48}$/);
    expect(keys.infra.member).toMatch(/^svc_test_[a-z2-7]{32,48}$/);
  });

  it("echoes a valid X-Request-ID in the header and the error body", async () => {
    const res = await call(emu(), "GET", "/webhooks/v1/nope", { headers: { "x-request-id": "trace-1.a_b" } });
    expect(res.headers.get("x-request-id")).toBe("trace-1.a_b");
    expect(errorOf(res).request_id).toBe("trace-1.a_b");
  });

  it("generates a request id when the given one is invalid or too long", async () => {
    for (const given of ["has space", "x".repeat(129), "semi;colon"]) {
      const res = await call(emu(), "GET", "/webhooks/v1/nope", { headers: { "x-request-id": given } });
      const id = res.headers.get("x-request-id");
      expect(id).not.toBe(given);
      expect(id).toMatch(/^[A-Za-z0-9._-]{1,128}$/);
      expect(errorOf(res).request_id).toBe(id);
    }
  });

  it("answers 404 not_found with no details on an unknown path", async () => {
    const res = await call(emu(), "GET", "/webhooks/v1/does-not-exist", { key: admin() });
    expect(res.status).toBe(404);
    const error = errorOf(res);
    expect(error.code).toBe("not_found");
    expect(error.details).toBeUndefined();
  });

  it("answers 405 method_not_allowed on a known path with a wrong method", async () => {
    const res = await call(emu(), "DELETE", "/webhooks/v1/things", { key: admin() });
    expect(res.status).toBe(405);
    expect(errorOf(res).code).toBe("method_not_allowed");
    const withParam = await call(emu(), "PUT", "/webhooks/v1/things/abc", { key: admin() });
    expect(withParam.status).toBe(405);
  });

  it("answers 413 payload_too_large with details.limit (and size on Inboxes)", async () => {
    const big = JSON.stringify({ name: "x".repeat(2000) });
    const res = await call(emu(), "POST", "/webhooks/v1/things", { key: admin(), raw: big });
    expect(res.status).toBe(413);
    expect(errorOf(res)).toMatchObject({ code: "payload_too_large", details: { limit: 1000 } });
    expect(errorOf(res).details.size).toBeUndefined();
    const inbox = await call(emu(), "POST", "/inboxes/v1/echo", { key: emu().keys.inboxes.admin, raw: big });
    expect(inbox.status).toBe(413);
    expect(errorOf(inbox).details).toEqual({ limit: 1000, size: Buffer.byteLength(big) });
  });

  it("answers 422 json_invalid for a body that is not JSON", async () => {
    const res = await call(emu(), "POST", "/webhooks/v1/things", { key: admin(), raw: "{not json" });
    expect(res.status).toBe(422);
    const error = errorOf(res);
    expect(error.code).toBe("validation_error");
    expect(error.details.errors[0]).toMatchObject({ loc: ["body", 0], type: "json_invalid" });
  });

  it("answers 400 bad_request on Inboxes for a body that is not UTF-8, but accepts UTF-8", async () => {
    const res = await call(emu(), "POST", "/inboxes/v1/echo", { key: emu().keys.inboxes.admin, raw: Buffer.from([0x22, 0xff, 0xfe, 0x22]) });
    expect(res.status).toBe(400);
    expect(errorOf(res).code).toBe("bad_request");
    const ok = await call(emu(), "POST", "/inboxes/v1/echo", { key: emu().keys.inboxes.admin, body: "grüße" });
    expect(ok.status).toBe(200);
    expect(ok.body.body).toBe("grüße");
  });

  it("maps body validation onto entries with loc, type, msg and params", async () => {
    const res = await call(emu(), "POST", "/webhooks/v1/things", { key: admin(), body: { name: "toolong", count: 11 } });
    expect(res.status).toBe(422);
    expect(errorOf(res).details.errors).toEqual([
      { loc: ["body", "name"], type: "string_too_long", msg: expect.any(String), params: { count: 5 } },
      { loc: ["body", "count"], type: "less_than_equal", msg: expect.any(String), params: { limit: 10 } },
    ]);
    const missing = await call(emu(), "POST", "/webhooks/v1/things", { key: admin(), body: {} });
    expect(errorOf(missing).details.errors.map((e: { type: string }) => e.type)).toEqual(["missing", "missing"]);
  });

  it("accepts X-API-Key on the app APIs and refuses a key lacking the scope, naming the required one", async () => {
    const viaHeader = await call(emu(), "GET", "/webhooks/v1/things/1", { headers: { "x-api-key": emu().keys.webhooks.read } });
    expect(viaHeader.status).toBe(200);
    const res = await call(emu(), "POST", "/webhooks/v1/things", { key: emu().keys.webhooks.read, body: { name: "a", count: 1 } });
    expect(res.status).toBe(403);
    expect(errorOf(res)).toMatchObject({ code: "forbidden", details: { reason: "scope", required: "admin" } });
  });

  describe("fault injection", () => {
    it("answers the next N matching requests with 429 and Retry-After, then recovers", async () => {
      await control(emu(), "POST", "/faults", { method: "GET", path: "/webhooks/v1/things/*", count: 2, status: 429, retry_after: 3 });
      for (let i = 0; i < 2; i++) {
        const res = await call(emu(), "GET", "/webhooks/v1/things/1", { key: admin() });
        expect(res.status).toBe(429);
        expect(res.headers.get("retry-after")).toBe("3");
        expect(errorOf(res)).toMatchObject({ code: "rate_limited", details: { retry_after: 3 } });
      }
      expect((await call(emu(), "GET", "/webhooks/v1/things/1", { key: admin() })).status).toBe(200);
    });

    it("drops the connection without answering", async () => {
      await control(emu(), "POST", "/faults", { path: "/webhooks/v1/things/*", drop: true });
      await expect(call(emu(), "GET", "/webhooks/v1/things/1", { key: admin() })).rejects.toThrow();
      expect((await call(emu(), "GET", "/webhooks/v1/things/1", { key: admin() })).status).toBe(200);
    });

    it("acts, then drops the connection (the request is logged as handled)", async () => {
      const before = (await control(emu(), "GET", "/requests")).last_seq;
      await control(emu(), "POST", "/faults", { method: "POST", path: "/webhooks/v1/things", drop_after_response: true });
      await expect(call(emu(), "POST", "/webhooks/v1/things", { key: admin(), body: { name: "a", count: 1 } })).rejects.toThrow();
      const { requests } = await control(emu(), "GET", `/requests?since=${before}`);
      expect(requests.map((r: { method: string; status: number }) => [r.method, r.status])).toEqual([["POST", 201]]);
    });

    it("drops the connection at once and acts later (a request still in flight inside the service)", async () => {
      const before = (await control(emu(), "GET", "/requests")).last_seq;
      await control(emu(), "POST", "/faults", { method: "POST", path: "/webhooks/v1/things", drop_then_act_ms: 300 });
      await expect(call(emu(), "POST", "/webhooks/v1/things", { key: admin(), body: { name: "a", count: 1 } })).rejects.toThrow();
      // The client has lost the connection; the service has not acted yet.
      expect((await control(emu(), "GET", `/requests?since=${before}`)).requests).toEqual([]);
      await new Promise((r) => setTimeout(r, 500));
      const { requests } = await control(emu(), "GET", `/requests?since=${before}`);
      expect(requests.map((r: { method: string; status: number }) => [r.method, r.status])).toEqual([["POST", 201]]);
    });

    it("keeps a drop_then_act fault listed until the request's body is read: a client gone after its headers never made the request", async () => {
      await control(emu(), "POST", "/faults", { method: "POST", path: "/webhooks/v1/things", drop_then_act_ms: 100 });
      const listed = async () => (await control(emu(), "GET", "/faults")).faults as { remaining: number }[];
      const { hostname: host, port } = new URL(emu().url);
      const body = JSON.stringify({ name: "a", count: 1 });
      /** A connection that has sent a create's headers, and not its body. */
      const headersOnly = async () => {
        const socket = connect(Number(port), host);
        await new Promise((r) => socket.once("connect", r));
        const closed = new Promise((r) => socket.once("close", r));
        socket.write(`POST /webhooks/v1/things HTTP/1.1\r\nhost: ${host}\r\nauthorization: Bearer ${admin()}\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\r\n\r\n`);
        return { socket, closed };
      };
      const { socket, closed } = await headersOnly();
      // The headers matched the fault; the body is not there yet.
      await new Promise((r) => setTimeout(r, 200));
      expect(await listed()).toMatchObject([{ remaining: 0 }]);
      socket.write(body);
      await closed;
      expect(await listed()).toEqual([]);

      // Two requests under one fault: the first read (and answered) leaves it listed while the second's body is unsent.
      await control(emu(), "POST", "/faults", { method: "POST", path: "/webhooks/v1/things", drop_then_act_ms: 100, count: 2 });
      const [first, second] = [await headersOnly(), await headersOnly()];
      await new Promise((r) => setTimeout(r, 200));
      first.socket.write(body);
      await first.closed;
      await new Promise((r) => setTimeout(r, 200));
      expect(await listed()).toMatchObject([{ remaining: 0 }]);
      // A client gone before its body: it never made the request, and the fault stays listed.
      second.socket.destroy();
      await second.closed;
      await new Promise((r) => setTimeout(r, 200));
      expect(await listed()).toMatchObject([{ remaining: 0 }]);
      await control(emu(), "DELETE", "/faults");

      // A body the service refuses (not JSON): the request ends there (its answer lost with the connection), and the
      // fault leaves the list too.
      await control(emu(), "POST", "/faults", { method: "POST", path: "/webhooks/v1/things", drop_then_act_ms: 100 });
      const refused = fetch(`${emu().url}/webhooks/v1/things`, { method: "POST", headers: { authorization: `Bearer ${admin()}`, "content-type": "application/json" }, body: "{bad" });
      await expect(refused).rejects.toThrow();
      expect(await listed()).toEqual([]);
    });

    it("answers an edge 502 with neither error body nor X-Request-ID", async () => {
      await control(emu(), "POST", "/faults", { path: "/webhooks/**", status: 502 });
      const res = await call(emu(), "GET", "/webhooks/v1/things/1", { key: admin() });
      expect(res.status).toBe(502);
      expect(res.headers.get("x-request-id")).toBeNull();
      expect(res.body).toBeUndefined();
    });
  });

  it("logs API requests (method, path, status) but not control-plane calls or headers", async () => {
    const before = (await control(emu(), "GET", "/requests")).last_seq;
    await call(emu(), "GET", "/webhooks/v1/things/42?x=1", { key: admin() });
    await control(emu(), "GET", "/keys");
    const { requests } = await control(emu(), "GET", `/requests?since=${before}`);
    expect(requests).toHaveLength(1);
    expect(requests[0]).toMatchObject({ method: "GET", path: "/webhooks/v1/things/42", query: "x=1", status: 200 });
    expect(JSON.stringify(requests)).not.toContain(admin());
  });

  it("reset keeps the default keys but forgets created workspaces", async () => {
    const ws = await control(emu(), "POST", "/workspaces", { plan: "pro" });
    expect((await call(emu(), "GET", "/webhooks/v1/things/1", { key: ws.webhooks.admin })).status).toBe(200);
    await control(emu(), "POST", "/reset");
    expect((await call(emu(), "GET", "/webhooks/v1/things/1", { key: ws.webhooks.admin })).status).toBe(403);
    expect((await call(emu(), "GET", "/webhooks/v1/things/1", { key: admin() })).status).toBe(200);
  });

  it("refuses writes of a frozen workspace and everything of a suspended one with 402", async () => {
    const ws = await control(emu(), "POST", "/workspaces", {});
    await control(emu(), "PATCH", `/workspaces/${ws.workspace_id}`, { frozen: true });
    expect((await call(emu(), "GET", "/webhooks/v1/things/1", { key: ws.webhooks.admin })).status).toBe(200);
    const write = await call(emu(), "POST", "/webhooks/v1/things", { key: ws.webhooks.admin, body: { name: "a", count: 1 } });
    expect(write.status).toBe(402);
    expect(errorOf(write).code).toBe("workspace_frozen");
    await control(emu(), "PATCH", `/workspaces/${ws.workspace_id}`, { frozen: false, suspended: true });
    const read = await call(emu(), "GET", "/webhooks/v1/things/1", { key: ws.webhooks.admin });
    expect(read.status).toBe(402);
    expect(errorOf(read).code).toBe("workspace_suspended");
  });
});

describe("emulator persistence", () => {
  it("keeps state across restarts with --state-file", async () => {
    const dir = mkdtempSync(join(tmpdir(), "svc-emu-"));
    const stateFile = join(dir, "state.json");
    const first = await startEmulator({ stateFile, modules: [testProduct] });
    const ws = await control(first, "POST", "/workspaces", { plan: "pro" });
    await first.close();
    expect(existsSync(stateFile)).toBe(true);
    expect(JSON.parse(readFileSync(stateFile, "utf8")).workspaces[ws.workspace_id].plan).toBe("pro");

    const second = await startEmulator({ stateFile, modules: [testProduct] });
    try {
      expect(second.keys).toEqual(first.keys);
      expect((await call(second, "GET", "/webhooks/v1/things/1", { key: ws.webhooks.admin })).status).toBe(200);
    } finally {
      await second.close();
    }
  });
});
