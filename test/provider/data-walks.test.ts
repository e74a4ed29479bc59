/**
 * The SDK's data functions walk newest-first offset pages while objects keep arriving
 * (provider/walk.ts): 300 ms from the service, with deliveries published and messages
 * received during the walk, every object that existed when the call began comes back
 * exactly once, and nothing comes back twice; with endpoints deleted during the walk,
 * every endpoint still there comes back.
 */
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { closeSharedDispatcher } from "../../provider";
import * as svc from "../../sdk";
import { call, control, useEmulator } from "../support/emulator";
import type { Workspace } from "./support";

const emu = useEmulator({ latencyMs: 300 });
const ENV = ["SVC_WEBHOOKS_URL", "SVC_WEBHOOKS_API_KEY", "SVC_INBOXES_URL", "SVC_INBOXES_API_KEY"];

afterEach(() => {
  for (const name of ENV) delete process.env[name];
});
afterAll(() => closeSharedDispatcher());

/** Runs `arrive` again and again, one at a time per lane, until `walk` settles; returns what the walk returned. */
async function duringArrivals<T>(lanes: number, arrive: () => Promise<unknown>, walk: () => Promise<T>): Promise<{ result: T; arrivals: number }> {
  let done = false;
  let arrivals = 0;
  const lane = async () => {
    while (!done) {
      await arrive();
      arrivals++;
    }
  };
  const running = Array.from({ length: lanes }, lane);
  try {
    return { result: await walk(), arrivals };
  } finally {
    done = true;
    await Promise.all(running);
  }
}

const ids = (items: { id: string }[]) => items.map((i) => i.id);

/** Every id of a list read page by page while nothing arrives (the reference the walks are held to). */
async function quietIds(path: string, key: string): Promise<string[]> {
  const out: string[] = [];
  for (let offset = 0; ; offset += 200) {
    const page = await call(emu(), "GET", `${path}?limit=200&offset=${offset}`, { key });
    expect(page.status).toBe(200);
    out.push(...ids(page.body.data));
    if (offset + 200 >= page.body.total) return out;
  }
}
const duplicates = (list: string[]) => list.filter((id, i) => list.indexOf(id) !== i);

/** Objects arrived during the walk; `got` holds nothing twice, everything of `before`, nothing not in `after`. */
function expectWalkedOnce(got: string[], before: string[], after: string[], arrivals: number) {
  expect(arrivals).toBeGreaterThan(0);
  expect(duplicates(got)).toEqual([]);
  expect(before.filter((id) => !got.includes(id))).toEqual([]);
  const existing = new Set(after);
  expect(got.filter((id) => !existing.has(id))).toEqual([]);
}

describe("data functions while objects arrive, 300 ms from the service", () => {
  it("getDeliveries: every delivery that existed once, none twice, while events are published", async () => {
    const ws = await control<Workspace>(emu(), "POST", "/workspaces", { plan: "pro" });
    const wh = (method: string, path: string, body?: unknown) => call(emu(), method, `/webhooks${path}`, { key: ws.webhooks.admin, body });
    // 20 endpoints and 25 events: 500 deliveries, three pages of 200.
    await Promise.all(Array.from({ length: 20 }, (_, i) => wh("POST", "/v1/endpoints", { url: `https://r${i}.example.com/in`, subscriptions: [{ event_type: "**" }] })));
    await Promise.all(Array.from({ length: 25 }, () => wh("POST", "/v1/events", { event_type: "order.created", payload: {} })));
    const listed = () => quietIds("/webhooks/v1/deliveries", ws.webhooks.read);
    const before = await listed();
    expect(before).toHaveLength(500);

    process.env.SVC_WEBHOOKS_URL = emu().webhooksUrl;
    process.env.SVC_WEBHOOKS_API_KEY = ws.webhooks.admin;
    const { result, arrivals } = await duringArrivals(2, () => wh("POST", "/v1/events", { event_type: "order.created", payload: {} }), () => svc.webhooks.getDeliveries());
    expectWalkedOnce(ids(result), before, await listed(), arrivals);
  });

  it("getMessages: every message that existed once, none twice, while messages arrive", async () => {
    const ws = await control<Workspace>(emu(), "POST", "/workspaces", { plan: "pro" });
    const inbox = await call(emu(), "POST", "/inboxes/v1/inboxes", { key: ws.inboxes.admin, body: { label: "walk" } });
    expect(inbox.status).toBe(201);
    await control(emu(), "POST", "/inboxes/rate-limit", { rate_per_min: 100_000 });
    const receive = () => control(emu(), "POST", "/inboxes/messages", { inbox_id: inbox.body.id, subject: "hello", text: "body" });
    for (let i = 0; i < 450; i++) await receive();
    const listed = () => quietIds(`/inboxes/v1/inboxes/${inbox.body.id}/messages`, ws.inboxes.admin);
    const before = await listed();
    expect(before).toHaveLength(450);

    process.env.SVC_INBOXES_URL = emu().inboxesUrl;
    process.env.SVC_INBOXES_API_KEY = ws.inboxes.admin;
    // The control plane answers at once: pace the arrivals so that a walk can end.
    const paced = async () => {
      await receive();
      await new Promise((r) => setTimeout(r, 40));
    };
    const { result, arrivals } = await duringArrivals(1, paced, () => svc.inboxes.getMessages({ inboxId: inbox.body.id }));
    expectWalkedOnce(ids(result), before, await listed(), arrivals);
  });

  it("getEventTypes (sorted by name, so arrivals land mid-list): every type that existed once, none twice, while types are registered", async () => {
    const ws = await control<Workspace>(emu(), "POST", "/workspaces", { plan: "pro" });
    const register = (name: string) => call(emu(), "POST", "/webhooks/v1/event-types", { key: ws.webhooks.admin, body: { name } });
    await Promise.all(Array.from({ length: 450 }, (_, i) => register(`m.${String(i).padStart(3, "0")}`)));
    expect((await call(emu(), "GET", "/webhooks/v1/event-types?limit=1", { key: ws.webhooks.read })).body.total).toBe(450);

    process.env.SVC_WEBHOOKS_URL = emu().webhooksUrl;
    process.env.SVC_WEBHOOKS_API_KEY = ws.webhooks.admin;
    let n = 0;
    // Names before every existing one: each arrival pushes the whole list down.
    const { result, arrivals } = await duringArrivals(2, () => register(`a.${String(n++).padStart(4, "0")}`), () => svc.webhooks.getEventTypes());
    const got = result.map((t) => t.name);

    expect(arrivals).toBeGreaterThan(0);
    expect(duplicates(got)).toEqual([]);
    expect(Array.from({ length: 450 }, (_, i) => `m.${String(i).padStart(3, "0")}`).filter((name) => !got.includes(name))).toEqual([]);
  });

  it("getEndpoints: no endpoint still there is missed while endpoints of the first page are deleted", async () => {
    const ws = await control<Workspace>(emu(), "POST", "/workspaces", { plan: "enterprise" });
    const wh = (method: string, path: string, body?: unknown) => call(emu(), method, `/webhooks${path}`, { key: ws.webhooks.admin, body });
    await Promise.all(Array.from({ length: 450 }, (_, i) => wh("POST", "/v1/endpoints", { url: `https://r${i}.example.com/in` })));
    const listed = () => quietIds("/webhooks/v1/endpoints", ws.webhooks.read);
    const before = await listed();
    expect(before).toHaveLength(450);

    process.env.SVC_WEBHOOKS_URL = emu().webhooksUrl;
    process.env.SVC_WEBHOOKS_API_KEY = ws.webhooks.admin;
    // Each deletion moves every endpoint after it up one place, across the page boundaries.
    const doomed = before.slice(10, 150);
    const { result, arrivals: deletions } = await duringArrivals(2, async () => expect((await wh("DELETE", `/v1/endpoints/${doomed.shift()}`)).status).toBe(204), () => svc.webhooks.getEndpoints());
    const after = await listed();
    expect(deletions).toBeGreaterThan(0);
    expect(after).toHaveLength(before.length - (140 - doomed.length));
    const got = ids(result);
    expect(duplicates(got)).toEqual([]);
    expect(after.filter((id) => !got.includes(id))).toEqual([]);
    expect(got.filter((id) => !before.includes(id))).toEqual([]);
  });
});
