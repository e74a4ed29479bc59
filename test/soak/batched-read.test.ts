/**
 * Batched refresh (provider/engine/list-cache.ts): a burst of reads of one kind is
 * served by one paged listing (ceil(N/200) calls) instead of N GETs, and stays
 * correct: a write through the provider invalidates the listing, an object the
 * listing does not hold is read with a GET (deleted out of band: gone), and a few
 * isolated reads are plain GETs as before.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { providers } from "../../provider";
import { WORKSPACE_KEY } from "../../provider/engine/internal-keys";
import { BURST_READS } from "../../provider/engine/list-cache";
import { call, useEmulator } from "../support/emulator";
import { Driver, useWorkspace, type Workspace } from "../provider/support";

const emu = useEmulator();
const endpoint = providers["webhooks:Endpoint"]!;
let ws: Workspace;
let driver: Driver;
const created: { id: string; outs: Record<string, unknown> }[] = [];
const N = 230;

beforeAll(async () => {
  ws = await useWorkspace(emu(), endpoint, "enterprise");
  driver = new Driver(emu(), endpoint);
  // Made with raw calls: the provider's own writes would invalidate listings anyway.
  for (let i = 0; i < N; i++) {
    const res = await call(emu(), "POST", "/webhooks/v1/endpoints", { key: ws.webhooks.admin, body: { url: `https://hooks.example.com/batch/${i}`, description: `batch ${i}` } });
    // As the provider's state holds them: with the workspace they live in (engine/reach.ts), so a 404 is gone.
    created.push({ id: res.body.id, outs: { url: res.body.url, description: res.body.description, [WORKSPACE_KEY]: ws.workspace_id } });
  }
});

const readAll = (items: typeof created, concurrency = 8) =>
  driver.calls(async () => {
    const results: Awaited<ReturnType<NonNullable<typeof endpoint.read>>>[] = [];
    for (let i = 0; i < items.length; i += concurrency) {
      results.push(...(await Promise.all(items.slice(i, i + concurrency).map((r) => endpoint.read!(r.id, r.outs)))));
    }
    return results;
  });

describe("a refresh of N endpoints", () => {
  it("uses list pages, not N reads, and returns what N GETs would", async () => {
    const { result, calls } = await readAll(created);
    const gets = calls.filter((c) => c.startsWith("GET /v1/endpoints/"));
    const pages = calls.filter((c) => c === "GET /v1/endpoints");
    expect(pages.length).toBe(Math.ceil(N / 200));
    expect(gets.length).toBeLessThan(BURST_READS + 8);
    expect(calls.length).toBeLessThanOrEqual(Math.ceil(N / 200) + BURST_READS + 8);
    for (const [i, r] of result.entries()) expect(r.props).toMatchObject({ url: `https://hooks.example.com/batch/${i}`, description: `batch ${i}` });
  });

  it("sees an out-of-band change and delete made before the refresh", async () => {
    await new Promise((r) => setTimeout(r, 1_100));
    await call(emu(), "PATCH", `/webhooks/v1/endpoints/${created[5]!.id}`, { key: ws.webhooks.admin, body: { description: "changed by hand" } });
    await call(emu(), "DELETE", `/webhooks/v1/endpoints/${created[6]!.id}`, { key: ws.webhooks.admin });
    // A listing made by the previous refresh is not reused past a write of ours...
    await endpoint.update!(created[7]!.id, created[7]!.outs, { url: created[7]!.outs.url as string, description: "updated by us" });
    const { result } = await readAll(created.slice(0, 40));
    expect(result[5]!.props).toMatchObject({ description: "changed by hand" });
    expect(result[6]).toEqual({});
    expect(result[7]!.props).toMatchObject({ description: "updated by us" });
  });

  it("isolated reads stay plain GETs", async () => {
    await new Promise((r) => setTimeout(r, 1_100));
    const { calls } = await driver.calls(async () => {
      for (const r of created.slice(10, 10 + BURST_READS - 1)) await endpoint.read!(r.id, r.outs);
    });
    expect(calls).toEqual(created.slice(10, 10 + BURST_READS - 1).map((r) => `GET /v1/endpoints/${r.id}`));
  });

  it("an object missing from the listing is read with a GET (created after it)", async () => {
    await new Promise((r) => setTimeout(r, 1_100));
    const { calls } = await driver.calls(async () => {
      for (const r of created.slice(20, 20 + BURST_READS)) await endpoint.read!(r.id, r.outs);
      const late = await call(emu(), "POST", "/webhooks/v1/endpoints", { key: ws.webhooks.admin, body: { url: "https://hooks.example.com/batch/late" } });
      const res = await endpoint.read!(late.body.id, {});
      expect(res.id).toBe(late.body.id);
      return late.body.id as string;
    });
    expect(calls.filter((c) => c.startsWith("GET")).slice(-2)).toEqual(["GET /v1/endpoints", expect.stringMatching(/^GET \/v1\/endpoints\/ep_/)]);
  });
});
