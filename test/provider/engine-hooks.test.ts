/**
 * The engine's behaviour for replace-when-decided, gone-on-read, drop-on-refused-delete,
 * the id in the PATCH body and the cursor walk, as tables: a tiny resource against a
 * scripted local HTTP server that records every request. And the hooks of Inbox,
 * QuotaRequest and QuotaLimits as tables of their inputs.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { closeSharedDispatcher, SvcClient } from "../../provider";
import { makeResourceProvider } from "../../provider/engine/resource-provider";
import { newOperation } from "../support/operation";
import type { Props, ResourceDefinition } from "../../provider/engine/fields";
import { inboxDefinition } from "../../provider/inboxes/inbox";
import { quotaLimitsDefinition } from "../../provider/infra/quota-limits";
import { quotaRequestDefinition } from "../../provider/infra/quota-request";
import { configure } from "./support";

/* ---------- a scripted server ---------- */

interface Seen {
  method: string;
  url: string;
  body: unknown;
}
let server: Server;
let base = "";
const seen: Seen[] = [];
let answer: (req: Seen) => { status: number; body?: unknown } = () => ({ status: 200, body: {} });

beforeAll(async () => {
  server = createServer((req, res) => {
    let text = "";
    req.on("data", (c) => (text += c));
    req.on("end", () => {
      // The key's own project (engine/reach.ts), the one each entry below lives in.
      if (req.url!.startsWith("/api/v1/quota/")) return res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ project_id: PROJECT }));
      const entry = { method: req.method!, url: req.url!, body: text ? JSON.parse(text) : undefined };
      seen.push(entry);
      const { status, body } = answer(entry);
      res.writeHead(status, { "content-type": "application/json" });
      res.end(body === undefined ? "" : JSON.stringify(body));
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await closeSharedDispatcher();
  await new Promise((r) => server.close(r));
});
beforeEach(() => {
  seen.length = 0;
});

/** Where the entries of this file live: a state records it, so a 404 is gone (engine/reach.ts). */
const PROJECT = "proj_1";

/** A resource whose id travels in the PATCH body, with every new hook. */
const gadget: ResourceDefinition = {
  kind: "infra:QuotaRequest",
  product: "infra",
  noun: "gadget",
  paths: { create: "/gadgets", item: (id) => `/gadgets?id=${id}`, idInBody: "id" },
  adoptHint: "adopt it",
  fields: {
    size: { mode: "patch", api: "size", input: z.number() },
    state: { mode: "output", api: "state" },
  },
  hooks: {
    adjustDiff: (diff, olds) => (olds.state === "frozen" && diff.changed.length > 0 ? { ...diff, replaces: diff.changed } : diff),
    goneWhen: (remote) => remote.state === "retired",
    onDeleteRefused: async (err) => (err.details.reason === "final" ? "gone" : Promise.reject(err)),
  },
};
const gadgets = makeResourceProvider(gadget);

describe("engine: new hooks", () => {
  beforeAll(() => configure(gadgets, { "svc:infraUrl": base, "svc:infraApiKey": "svc_test_" + "a".repeat(40) }));

  it.each([
    { name: "open, changed: an update", olds: { size: 1, state: "open" }, news: { size: 2 }, expected: { changes: true, replaces: [] } },
    { name: "frozen, changed: a replacement", olds: { size: 1, state: "frozen" }, news: { size: 2 }, expected: { changes: true, replaces: ["size"] } },
    { name: "frozen, unchanged: nothing", olds: { size: 1, state: "frozen" }, news: { size: 1 }, expected: { changes: false, replaces: [] } },
  ])("adjustDiff: $name", async ({ olds, news, expected }) => {
    expect(await gadgets.diff!("g1", olds, news)).toMatchObject(expected);
  });

  it("a hook may replace with no changed field: changes is true", async () => {
    const def = { ...gadget, hooks: { adjustDiff: () => ({ changed: [], replaces: ["state"], deleteBeforeReplace: false }) } };
    expect(await makeResourceProvider(def).diff!("g1", {}, {})).toEqual({ changes: true, diffs: ["state"], replaces: ["state"], deleteBeforeReplace: false });
  });

  it.each([
    { name: "live", body: { id: "g1", size: 3, state: "open" }, gone: false },
    { name: "retired (goneWhen)", body: { id: "g1", size: 3, state: "retired" }, gone: true },
  ])("read: $name", async ({ body, gone }) => {
    answer = () => ({ status: 200, body });
    const read = await gadgets.read!("g1", { size: 1, projectId: PROJECT });
    expect(read.id === undefined).toBe(gone);
  });

  it("the PATCH carries the id in its body only; the item path's query is left out", async () => {
    answer = (req) => ({ status: 200, body: { id: "g1", size: (req.body as Props).size, state: "open" } });
    const res = await gadgets.update!("g1", { size: 1, state: "open" }, { size: 5 });
    expect(seen).toEqual([{ method: "PATCH", url: "/gadgets", body: { id: "g1", size: 5 } }]);
    expect(res.outs).toMatchObject({ size: 5 });
  });

  it.each([
    { name: "204", status: 204, reason: undefined, outcome: "resolves" },
    { name: "404: already gone", status: 404, reason: "gadget", outcome: "resolves" },
    { name: "409 the hook answers gone: dropped", status: 409, reason: "final", outcome: "resolves" },
    { name: "409 the hook rethrows", status: 409, reason: "busy", outcome: "rejects" },
  ])("delete: $name", async ({ status, reason, outcome }) => {
    answer = () => ({ status, body: status >= 400 ? { error: { code: status === 404 ? "not_found" : "conflict", message: "x", request_id: "r", details: { reason } } } : undefined });
    // Each case is an operation of its own (a plugin process): the diffs of g1 above were other operations'.
    newOperation();
    const deleting = gadgets.delete!("g1", { projectId: PROJECT });
    if (outcome === "resolves") await expect(deleting).resolves.toBeUndefined();
    else await expect(deleting).rejects.toMatchObject({ status: 409 });
    expect(seen.map((s) => s.method)).toEqual(["DELETE"]);
  });
});

describe("client: the cursor walk", () => {
  const client = () => new SvcClient({ baseUrl: base, apiKey: "k" });

  it.each([
    { name: "one page", pages: [[1, 2]], calls: 1 },
    { name: "three pages; an empty page in the middle does not end it", pages: [[1], [], [3]], calls: 3 },
  ])("$name", async ({ pages, calls }) => {
    answer = (req) => {
      const cursor = new URL(req.url, base).searchParams.get("cursor");
      const i = cursor === null ? 0 : Number(cursor.slice("opaque-".length));
      return { status: 200, body: { items: pages[i], pagination: { next_cursor: i + 1 < pages.length ? `opaque-${i + 1}` : null, total_count: null } } };
    };
    const items = await client().listAllByCursor("/v1/things", { region: "r1", sort: "name" }, 2);
    expect(items).toEqual(pages.flat());
    expect(seen).toHaveLength(calls);
    const queries = seen.map((s) => new URL(s.url, base).searchParams);
    expect(queries[0]!.has("cursor")).toBe(false);
    queries.slice(1).forEach((q, i) => expect(q.get("cursor")).toBe(`opaque-${i + 1}`));
    expect(queries.every((q) => q.get("region") === "r1" && q.get("sort") === "name" && q.get("limit") === "2")).toBe(true);
  });

  it("a cursor given twice stops the walk instead of looping", async () => {
    answer = () => ({ status: 200, body: { items: [1], pagination: { next_cursor: "same" } } });
    await expect(client().listAllByCursor("/v1/things")).rejects.toThrow(/already given/);
    expect(seen).toHaveLength(2);
  });
});

describe("resource hooks as tables", () => {
  const diff = { changed: ["label"], replaces: [] as string[], deleteBeforeReplace: false };
  const past = new Date(Date.now() - 60_000).toISOString();
  const future = new Date(Date.now() + 60_000).toISOString();

  it.each([
    { name: "no expiry", expiresAt: null, replaces: [] },
    { name: "expires later", expiresAt: future, replaces: [] },
    { name: "expired", expiresAt: past, replaces: ["expiresAt"] },
  ])("Inbox adjustDiff: $name", ({ expiresAt, replaces }) => {
    const write = process.stderr.write;
    process.stderr.write = (() => true) as typeof process.stderr.write;
    try {
      expect(inboxDefinition.hooks!.adjustDiff!(diff, { expiresAt }, {}, "inb_1", undefined).replaces).toEqual(replaces);
    } finally {
      process.stderr.write = write;
    }
  });

  it.each([
    { state: "pending", changed: ["limits"], replaces: [] },
    { state: "needs_updates", changed: ["justification"], replaces: [] },
    { state: "approved", changed: ["limits"], replaces: ["limits"] },
    { state: "rejected", changed: ["limits", "justification"], replaces: ["limits", "justification"] },
    { state: "approved", changed: ["waitForDecision"], replaces: [] },
    { state: "approved", changed: [], replaces: [] },
    { state: "rejected", changed: [], replaces: [] },
  ])("QuotaRequest adjustDiff: $state, changed $changed", ({ state, changed, replaces }) => {
    const write = process.stderr.write;
    process.stderr.write = (() => true) as typeof process.stderr.write;
    try {
      expect(quotaRequestDefinition.hooks!.adjustDiff!({ changed, replaces: [], deleteBeforeReplace: false }, { state }, {}, "qr_1", undefined).replaces).toEqual(replaces);
    } finally {
      process.stderr.write = write;
    }
  });

  it.each(["pending", "needs_updates", "approved", "rejected", "withdrawn"])("QuotaRequest goneWhen: %s", (state) => {
    expect(quotaRequestDefinition.hooks!.goneWhen!({ state })).toBe(state === "withdrawn");
  });

  it.each([
    { name: "one entry changed", olds: { limits: { vms: 50, vcpu: 200 } }, news: { limits: { vms: 80, vcpu: 200 } }, body: { limits: { vms: 80 } } },
    { name: "in a region and project", olds: { limits: { vms: 50 } }, news: { limits: { vms: 60 }, region: "eu-west-1", projectId: "p1" }, body: { limits: { vms: 60 }, region: "eu-west-1", admin_project: "p1" } },
    { name: "take-over from nothing: every declared entry", olds: {}, news: { limits: { vms: 60, vcpu: 300 } }, body: { limits: { vms: 60, vcpu: 300 } } },
  ])("QuotaLimits PATCH body: $name", ({ olds, news, body }) => {
    const calls = quotaLimitsDefinition.hooks!.adjustPlan!([{ kind: "patch", method: "PATCH", path: "", body: { limits: news.limits }, fields: ["limits"], safeToRepeat: true, label: "PATCH" }], olds, news);
    expect(calls[0]!.body).toEqual(body);
  });

  it.each([
    { declared: { vms: 80 }, current: { vms: 80, vcpu: 200 }, equal: true },
    { declared: { vms: 80 }, current: { vms: 50, vcpu: 200 }, equal: false },
    { declared: { vms: 80, gpus: 1 }, current: { vms: 80 }, equal: false },
  ])("QuotaLimits limits equality: $declared vs $current", ({ declared, current, equal }) => {
    expect(quotaLimitsDefinition.fields.limits!.equal!(declared, current)).toBe(equal);
  });
});
