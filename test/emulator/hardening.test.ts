/**
 * Issue 16: the emulator as a long-lived shared service. Each test is one row of the
 * issue's table, proven over real HTTP; each failed before the fix.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { startEmulator } from "../../emulator";
import { newWorkspace, wh } from "./webhooks/endpoints-support";
import { createSource, ingest } from "./webhooks/sources-support";
import { call, control, errorOf, useEmulator } from "../support/emulator";

/**
 * POST a large body as curl does (`Expect: 100-continue`, then the body in chunks once
 * the server says continue). Like curl, the call fails if the connection breaks while
 * the body is still being sent, even if an answer came first.
 */
function postLikeCurl(url: string, key: string, bytes: number): Promise<{ status?: number; text?: string; error?: string }> {
  return new Promise((resolve) => {
    const u = new URL(url);
    let answer: { status?: number; text?: string } | undefined;
    let uploaded = false;
    let error: string | undefined;
    const settle = () => {
      if (error) resolve({ ...answer, error });
      else if (answer && uploaded) resolve(answer);
    };
    const req = request(
      { host: u.hostname, port: u.port, path: u.pathname, method: "POST", agent: false, headers: { "content-type": "application/json", "content-length": bytes, expect: "100-continue", authorization: `Bearer ${key}` } },
      (res) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (c: string) => (text += c));
        res.on("end", () => {
          answer = { status: res.statusCode, text };
          settle();
        });
      },
    );
    req.on("error", (e) => {
      error = (e as NodeJS.ErrnoException).code ?? e.message;
      settle();
    });
    // A watchdog, not a timing assertion: an upload the server stopped reading never finishes.
    req.setTimeout(10_000, () => {
      error = "upload stalled: the server stopped reading the body";
      req.destroy();
    });
    req.on("close", () => {
      if (!uploaded) error ??= "the connection closed while the body was being sent";
      settle();
    });
    req.on("finish", () => {
      uploaded = true;
      settle();
    });
    req.on("continue", () => {
      const chunk = Buffer.alloc(64 * 1024, "a");
      let sent = 0;
      const pump = () => {
        while (sent < bytes) {
          sent += chunk.length;
          if (!req.write(chunk)) return void req.once("drain", pump);
        }
        req.end();
      };
      pump();
    });
  });
}

describe("a body far over the limit", () => {
  const emu = useEmulator();

  it("5 MiB: the 413 reaches the client every time, in the contract (the body is read and discarded)", async () => {
    for (let i = 0; i < 30; i++) {
      const res = await postLikeCurl(`${emu().url}/webhooks/v1/endpoints`, emu().keys.webhooks.admin, 5 * 1024 * 1024);
      expect(res.error, `attempt ${i}`).toBeUndefined();
      expect(res.status).toBe(413);
      expect(JSON.parse(res.text!).error).toMatchObject({ code: "payload_too_large", details: { limit: 1024 * 1024 } });
    }
    const viaFetch = await call(emu(), "POST", "/webhooks/v1/endpoints", { key: emu().keys.webhooks.admin, raw: Buffer.alloc(5 * 1024 * 1024, "a"), headers: { "content-type": "application/json" } });
    expect(errorOf(viaFetch)).toMatchObject({ code: "payload_too_large" });
  });
});

describe("the router's own answers", () => {
  const emu = useEmulator();
  const key = () => emu().keys.webhooks.admin;

  it("a 300-character object id: 404 not_found naming the kind and id, in the contract", async () => {
    const id = "e".repeat(300);
    const res = await call(emu(), "GET", `/webhooks/v1/endpoints/${id}`, { key: key() });
    expect(res.status).toBe(404);
    expect(errorOf(res)).toMatchObject({ code: "not_found", details: { reason: "endpoint", id } });
    expect(res.headers.get("x-request-id")).toBe(errorOf(res).request_id);
  });

  it("400 (bad percent-encoding), 404 (an id past any length), 405 and an oversized request line: all in the contract", async () => {
    const cases: [string, string, number, string][] = [
      ["GET", "/webhooks/v1/endpoints/%zz", 400, "bad_request"],
      ["GET", `/webhooks/v1/endpoints/${"e".repeat(5000)}`, 404, "not_found"],
      ["PUT", `/webhooks/v1/endpoints/${"e".repeat(300)}`, 405, "method_not_allowed"],
      ["GET", `/webhooks/${"a".repeat(20_000)}`, 400, "bad_request"],
    ];
    for (const [method, path, status, code] of cases) {
      const res = await call(emu(), method, path, { key: key(), headers: { "x-request-id": "router-1" } });
      expect(res.status, `${method} ${path.slice(0, 40)}`).toBe(status);
      expect(errorOf(res).code).toBe(code);
    }
    const badUrl = await call(emu(), "GET", "/webhooks/v1/endpoints/%zz", { key: key(), headers: { "x-request-id": "router-2" } });
    expect(badUrl.headers.get("x-request-id")).toBe("router-2");
    expect(errorOf(badUrl).request_id).toBe("router-2");
  });
});

describe("names an object inherits, as credentials and services", () => {
  const emu = useEmulator();

  it("a session cookie named __proto__ or constructor: 401/403 in the contract, never 500", async () => {
    for (const name of ["__proto__", "constructor"]) {
      for (const cookie of [`svc_session=${name}`, `${name}=1`]) {
        const webhooks = await call(emu(), "GET", "/webhooks/v1/endpoints", { headers: { cookie } });
        const inboxes = await call(emu(), "GET", "/inboxes/v1/inboxes", { headers: { cookie } });
        for (const res of [webhooks, inboxes]) {
          expect([401, 403], `${cookie} -> ${res.text}`).toContain(res.status);
          errorOf(res);
        }
      }
    }
  });

  it("a quota read or quota request for service constructor / __proto__: 422 naming the service, never a quota", async () => {
    const key = emu().keys.infra.admin;
    for (const service of ["constructor", "__proto__"]) {
      const read = await call(emu(), "GET", `/infra/api/v1/quota/${service}`, { key });
      expect(read.status, read.text).toBe(422);
      expect(errorOf(read).details.errors[0].loc).toEqual(["path", "service"]);
      const request = await call(emu(), "POST", "/infra/api/v1/quota-request/", { key, body: { service, limits: { vms: 5 }, justification: "more" } });
      expect(request.status, request.text).toBe(422);
      expect(errorOf(request).details.errors[0]).toMatchObject({ loc: ["body", "service"], type: "enum" });
    }
  });
});

describe("bounds on values", () => {
  const emu = useEmulator();

  it("a payload nested 6,000 levels: 422 naming the depth limit, never 500; 64 levels are accepted", async () => {
    const nested = (levels: number) => '{"a":'.repeat(levels) + "1" + "}".repeat(levels);
    const raw = `{"event_type": "deep.one", "payload": ${nested(6000)}}`;
    const res = await call(emu(), "POST", "/webhooks/v1/events", { key: emu().keys.webhooks.admin, raw, headers: { "content-type": "application/json" } });
    expect(res.status).toBe(422);
    expect(errorOf(res).details.errors[0]).toMatchObject({ loc: ["body"], type: "json_too_deep", params: { limit: 64 } });
    const ok = await call(emu(), "POST", "/webhooks/v1/events", { key: emu().keys.webhooks.admin, raw: `{"event_type": "deep.one", "payload": ${nested(63)}}`, headers: { "content-type": "application/json" } });
    expect(ok.status, ok.text).toBe(201);
  });

  it("expires_in_minutes 1e15: 422 naming the field and the bound (525,600 minutes)", async () => {
    const ws = await control(emu(), "POST", "/workspaces", { plan: "pro" });
    const res = await call(emu(), "POST", "/inboxes/v1/inboxes", { key: ws.inboxes.admin, body: { label: "far", expires_in_minutes: 1e15 } });
    expect(res.status).toBe(422);
    expect(errorOf(res).details.errors).toEqual([{ loc: ["body", "expires_in_minutes"], type: "less_than_equal", msg: expect.stringContaining("525600"), params: { limit: 525_600 } }]);
    expect((await call(emu(), "POST", "/inboxes/v1/inboxes", { key: ws.inboxes.admin, body: { expires_in_minutes: 525_600 } })).status).toBe(201);
  });

  it("the clock: advancing 9e12 s is a 422 naming the bound and changes nothing; reset undoes an accepted change", async () => {
    const res = await call(emu(), "POST", "/_emulator/clock", { body: { advance_seconds: 9e12 } });
    expect(res.status).toBe(422);
    expect(errorOf(res).details.errors[0]).toMatchObject({ loc: ["body", "advance_seconds"], type: "less_than_equal", params: { limit: 100 * 365 * 24 * 3600 } });
    expect((await control(emu(), "GET", "/clock")).offset_seconds).toBe(0);
    expect((await call(emu(), "GET", "/webhooks/v1/endpoints", { key: emu().keys.webhooks.admin })).status).toBe(200);

    await control(emu(), "POST", "/clock", { advance_seconds: 50 * 365 * 24 * 3600 });
    // The bound is on the total offset: another 60 years is refused.
    expect((await call(emu(), "POST", "/_emulator/clock", { body: { advance_seconds: 60 * 365 * 24 * 3600 } })).status).toBe(422);
    await control(emu(), "POST", "/reset");
    expect((await control(emu(), "GET", "/clock")).offset_seconds).toBe(0);
    const endpoint = await call(emu(), "POST", "/webhooks/v1/endpoints", { key: emu().keys.webhooks.admin, body: { url: "https://a.example.com/h" } });
    expect(endpoint.status).toBe(201);
    // Stamped with today's date, not the date the clock was moved to.
    expect(new Date(endpoint.body.created_at).getUTCFullYear()).toBe(new Date().getUTCFullYear());
  });
});

describe("the request log over a long run", () => {
  const emu = useEmulator({ requestLogSize: 100 });

  it("is a ring of the configured size: the newest entries kept, seqs continuous across the wrap, since still works", async () => {
    const key = emu().keys.webhooks.admin;
    for (let i = 0; i < 250; i++) await call(emu(), "GET", `/webhooks/v1/endpoints?n=${i}`, { key });
    const all = await control(emu(), "GET", "/requests");
    expect(all.requests).toHaveLength(100);
    expect(all).toMatchObject({ last_seq: 250, first_seq: 151, capacity: 100 });
    expect(all.requests.map((r: { seq: number }) => r.seq)).toEqual(Array.from({ length: 100 }, (_, i) => 151 + i));
    expect(all.requests[99].query).toBe("n=249");
    const recent = await control(emu(), "GET", "/requests?since=245");
    expect(recent.requests.map((r: { query: string }) => r.query)).toEqual(["n=245", "n=246", "n=247", "n=248", "n=249"]);
    await control(emu(), "DELETE", "/requests");
    await call(emu(), "GET", "/webhooks/v1/endpoints?n=after", { key });
    const afterClear = await control(emu(), "GET", "/requests");
    expect(afterClear.requests.map((r: { seq: number; query: string }) => [r.seq, r.query])).toEqual([[251, "n=after"]]);
  });
});

describe("--state-file", () => {
  it("is written behind: 200 creates do not rewrite the file 200 times; close writes everything, atomically", async () => {
    const dir = mkdtempSync(join(tmpdir(), "svc-state-"));
    const stateFile = join(dir, "state.json");
    // A long delay makes "behind" observable without timing: nothing is written until close.
    const first = await startEmulator({ stateFile, stateWriteDelayMs: 600_000 });
    const key = first.keys.webhooks.admin;
    const ids: string[] = [];
    for (let i = 0; i < 200; i++) {
      const res = await call(first, "POST", "/webhooks/v1/event-types", { key, body: { name: `kept.${i}` } });
      expect(res.status).toBe(201);
      ids.push(res.body.name);
    }
    expect(existsSync(stateFile)).toBe(false);
    await first.close();
    expect(readdirSync(dir)).toEqual(["state.json"]);

    const second = await startEmulator({ stateFile });
    const listed = await call(second, "GET", "/webhooks/v1/event-types?limit=200", { key });
    expect(listed.body.total).toBe(200);
    expect(new Set(listed.body.data.map((e: { name: string }) => e.name))).toEqual(new Set(ids));
    await second.close();
    expect(JSON.parse(readFileSync(stateFile, "utf8")).keys[key].product).toBe("webhooks");
  });
});

describe("unsigned ingest captures under a flood", () => {
  const emu = useEmulator();
  const listAll = async (key: string, sourceId: string) => {
    const rows: { id: string; seen_count: number; size: number }[] = [];
    for (let offset = 0; ; offset += 200) {
      const page = await wh(emu(), "GET", `/v1/captures?source_id=${sourceId}&limit=200&offset=${offset}`, { key });
      rows.push(...page.body.data);
      if (offset + 200 >= page.body.total) return { rows, total: page.body.total as number };
    }
  };

  it("large bodies: stored cut at 64 KiB, and at most 8 MiB per source, the oldest dropped first", async () => {
    const ws = await newWorkspace(emu());
    const s = await createSource(emu(), ws.webhooks.admin, { capture_enabled: true });
    for (let i = 0; i < 200; i++) {
      const res = await ingest(emu(), s.id, Buffer.alloc(100 * 1024, 97 + (i % 26)).fill(`${i}:`, 0, 8), { headers: { "content-type": "application/octet-stream" } });
      expect(res.status).toBe(401);
    }
    const { rows, total } = await listAll(ws.webhooks.read, s.id);
    // 8 MiB over 64 KiB bodies (as base64) leaves about 96 rows.
    expect(total).toBeLessThan(100);
    expect(total).toBeGreaterThan(80);
    expect(rows.every((r) => r.size === 100 * 1024)).toBe(true);
    const newest = await wh(emu(), "GET", `/v1/captures/${rows[0]!.id}`, { key: ws.webhooks.read });
    expect(newest.body.body_truncated).toBe(true);
    const stored = Buffer.from(newest.body.body, "base64");
    expect(stored.length).toBe(64 * 1024);
    expect(stored.subarray(0, 4).toString()).toBe("199:");
  });

  it("many small requests: at most 1,000 rows per source; a retained request keeps its seen_count", async () => {
    const ws = await newWorkspace(emu());
    const s = await createSource(emu(), ws.webhooks.admin, { capture_enabled: true });
    await ingest(emu(), s.id, "first");
    for (let i = 0; i < 1_050; i++) {
      if (i === 100) await ingest(emu(), s.id, "kept");
      await ingest(emu(), s.id, `flood ${i}`);
    }
    await ingest(emu(), s.id, "kept");
    const { rows, total } = await listAll(ws.webhooks.read, s.id);
    expect(total).toBe(1_000);
    const kept = rows.filter((r) => r.seen_count === 2);
    expect(kept).toHaveLength(1);
    expect(rows[0]).toEqual(kept[0]);
    // "first" and the oldest floods are gone.
    expect(rows.filter((r) => r.size === "first".length)).toHaveLength(0);
  });
});
