/**
 * Batched refresh in a big shared workspace (provider/engine/list-cache.ts): when the
 * kind holds more than MAX_LISTED objects, a burst of reads is not served by paging
 * through all of them; one list page shows the total, and each read is a GET.
 */
import { beforeAll, expect, it } from "vitest";
import { providers } from "../../provider";
import { BURST_READS, MAX_LISTED } from "../../provider/engine/list-cache";
import { call, useEmulator } from "../support/emulator";
import { Driver, useWorkspace, type Workspace } from "../provider/support";

const emu = useEmulator();
const endpoint = providers["webhooks:Endpoint"]!;
let ws: Workspace;
let driver: Driver;
const ids: string[] = [];

beforeAll(async () => {
  ws = await useWorkspace(emu(), endpoint, "enterprise");
  driver = new Driver(emu(), endpoint);
  // Someone else's endpoints: more than the provider lists for a burst.
  const create = (i: number) => call(emu(), "POST", "/webhooks/v1/endpoints", { key: ws.webhooks.admin, body: { url: `https://hooks.example.com/shared/${i}` } });
  for (let i = 0; i < MAX_LISTED + 50; i += 50) ids.push(...(await Promise.all(Array.from({ length: 50 }, (_, k) => create(i + k)))).map((r) => r.body.id as string));
}, 120_000);

it("a burst of 20 reads in a workspace of more than MAX_LISTED endpoints: one list page, then a GET per read", async () => {
  const mine = ids.slice(100, 120);
  const { result, calls } = await driver.calls(() => Promise.all(mine.map((id) => endpoint.read!(id, {}))));
  expect(calls.filter((c) => c === "GET /v1/endpoints")).toHaveLength(1);
  expect(calls.filter((c) => c.startsWith("GET /v1/endpoints/")).sort()).toEqual(mine.map((id) => `GET /v1/endpoints/${id}`).sort());
  expect(result.map((r) => r.id)).toEqual(mine);
  expect(mine.length).toBeGreaterThanOrEqual(BURST_READS);
});
