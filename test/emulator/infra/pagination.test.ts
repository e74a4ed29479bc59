/** Cursor pagination of /v1/vms and /v1/snapshots (one implementation, tested through both). */
import { describe, expect, it } from "vitest";
import { call, control, errorOf, useEmulator, type CallResult } from "../../support/emulator";

type Page = { items: { id: string; name: string; created_at: string; state: string; region: string }[]; pagination: { next_cursor: string | null; total_count: number | null } };

describe("Infrastructure cursor lists", () => {
  const emu = useEmulator();
  const key = () => emu().keys.infra.member;
  const get = (path: string): Promise<CallResult<Page>> => call<Page>(emu(), "GET", path, { key: key() });

  /** Follow next_cursor to the end; the ids in order. */
  async function walk(path: string, limit: number): Promise<string[]> {
    const ids: string[] = [];
    let cursor: string | null = null;
    for (let pages = 0; pages < 100; pages++) {
      const sep = path.includes("?") ? "&" : "?";
      const res: CallResult<Page> = await get(`${path}${sep}limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`);
      expect(res.status).toBe(200);
      expect(res.body.pagination.total_count).toBeNull();
      expect(res.body.items.length).toBeLessThanOrEqual(limit);
      ids.push(...res.body.items.map((i) => i.id));
      cursor = res.body.pagination.next_cursor;
      if (cursor === null) return ids;
    }
    throw new Error("no end");
  }

  it("walks every VM to next_cursor null, newest first by default, no repeats", async () => {
    const first = (await control<{ items: { id: string }[] }>(emu(), "POST", "/infra/vms", { count: 30, region: "r1", name: "a" })).items;
    await control(emu(), "POST", "/clock", { advance_seconds: 10 });
    const second = (await control<{ items: { id: string }[] }>(emu(), "POST", "/infra/vms", { count: 25, region: "r2", name: "b", state: "stopped" })).items;
    const all = await walk("/infra/v1/vms", 7);
    expect(all).toHaveLength(55);
    expect(new Set(all).size).toBe(55);
    // default -created_at: the later batch first
    expect(new Set(all.slice(0, 25))).toEqual(new Set(second.map((v) => v.id)));
    expect(new Set(all.slice(25))).toEqual(new Set(first.map((v) => v.id)));
    // default limit 50
    const page = (await get("/infra/v1/vms")).body;
    expect(page.items).toHaveLength(50);
    expect(page.pagination.next_cursor).toEqual(expect.any(String));
    // the same listing with limit 200 fits one page
    const whole = (await get("/infra/v1/vms?limit=200")).body;
    expect(whole.items.map((i) => i.id)).toEqual(all);
    expect(whole.pagination.next_cursor).toBeNull();
  });

  it("filters by region, state and time; sort by name both ways", async () => {
    const r2 = await walk("/infra/v1/vms?region=r2", 10);
    expect(r2).toHaveLength(25);
    expect(await walk("/infra/v1/vms?state=stopped&region=r1", 10)).toEqual([]);
    const page = (await get("/infra/v1/vms?region=r1&limit=200")).body.items;
    const t = page[0]!.created_at;
    expect(await walk(`/infra/v1/vms?created_after=${encodeURIComponent(t)}`, 50)).toHaveLength(25);
    expect(await walk(`/infra/v1/vms?created_before=${encodeURIComponent(t)}`, 50)).toHaveLength(0);
    expect(await walk(`/infra/v1/vms?updated_before=${encodeURIComponent("2999-01-01T00:00:00+01:00")}`, 50)).toHaveLength(55);

    const byName = (await get("/infra/v1/vms?sort=name&region=r1&limit=3")).body;
    expect(byName.items.map((i) => i.name)).toEqual(["a-001", "a-002", "a-003"]);
    const next = (await get(`/infra/v1/vms?sort=name&region=r1&limit=3&cursor=${encodeURIComponent(byName.pagination.next_cursor!)}`)).body;
    expect(next.items.map((i) => i.name)).toEqual(["a-004", "a-005", "a-006"]);
    const desc = (await get("/infra/v1/vms?sort=-name&region=r1&limit=2")).body;
    expect(desc.items.map((i) => i.name)).toEqual(["a-030", "a-029"]);
  });

  it("422 for limit above 200, a bad timestamp, an unknown sort", async () => {
    const over = await get("/infra/v1/vms?limit=201");
    expect(over.status).toBe(422);
    expect(errorOf(over)).toMatchObject({ code: "validation_error" });
    expect(errorOf(over).details.errors[0]).toMatchObject({ loc: ["query", "limit"], type: "less_than_equal", params: { limit: 200 } });
    expect((await get("/infra/v1/vms?limit=200")).status).toBe(200);
    const ts = await get("/infra/v1/vms?created_after=2026-01-01");
    expect(errorOf(ts).details.errors[0]).toMatchObject({ loc: ["query", "created_after"], type: "datetime_parsing" });
    expect((await get("/infra/v1/vms?sort=ipv4")).status).toBe(422);
  });

  it("422 cursor_mismatch when a cursor is reused with other filters or sort; cursor_invalid when altered or built", async () => {
    const cursor = (await get("/infra/v1/vms?region=r1&limit=5")).body.pagination.next_cursor!;
    for (const q of ["region=r2", "region=r1&state=running", "region=r1&sort=name", "", "region=r1&created_after=2020-01-01T00:00:00Z"]) {
      const res = await get(`/infra/v1/vms?${q}&cursor=${encodeURIComponent(cursor)}`);
      expect(res.status).toBe(422);
      expect(errorOf(res).details.errors[0]).toMatchObject({ loc: ["query", "cursor"], type: "cursor_mismatch" });
    }
    // a different limit is the same listing
    expect((await get(`/infra/v1/vms?region=r1&limit=9&cursor=${encodeURIComponent(cursor)}`)).status).toBe(200);
    // the same cursor on another list
    expect(errorOf(await get(`/infra/v1/snapshots?region=r1&cursor=${encodeURIComponent(cursor)}`)).details.errors[0].type).toBe("cursor_mismatch");

    const [payload, mac] = cursor.split(".");
    const forged = Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(payload!, "base64url").toString()), k: ["2000-01-01T00:00:00.000Z", "vm_x"] })).toString("base64url");
    for (const bad of [`${forged}.${mac}`, "abc", `${payload}.AAAA`]) {
      const res = await get(`/infra/v1/vms?region=r1&cursor=${encodeURIComponent(bad)}`);
      expect(res.status).toBe(422);
      expect(errorOf(res).details.errors[0].type).toBe("cursor_invalid");
    }
  });

  it("a VM created between pages neither repeats nor shifts the walk", async () => {
    const p1 = (await get("/infra/v1/vms?region=r1&limit=10")).body;
    await control(emu(), "POST", "/infra/vms", { region: "r1", name: "late" });
    const p2 = (await get(`/infra/v1/vms?region=r1&limit=10&cursor=${encodeURIComponent(p1.pagination.next_cursor!)}`)).body;
    const seen = new Set(p1.items.map((i) => i.id));
    expect(p2.items.some((i) => seen.has(i.id))).toBe(false);
    expect(p2.items.some((i) => i.name === "late")).toBe(false);
  });

  it("snapshots page the same way and show only the caller's project", async () => {
    await control(emu(), "POST", "/infra/snapshots", { count: 12, region: "r1" });
    await control(emu(), "POST", "/infra/snapshots", { count: 3, region: "r1", state: "deleted" });
    expect(await walk("/infra/v1/snapshots", 5)).toHaveLength(15);
    expect(await walk("/infra/v1/snapshots?state=deleted", 5)).toHaveLength(3);
    const other = await control<{ infra: { member: string } }>(emu(), "POST", "/workspaces", {});
    const theirs = await call<Page>(emu(), "GET", "/infra/v1/snapshots", { key: other.infra.member });
    expect(theirs.body).toEqual({ items: [], pagination: { next_cursor: null, total_count: null } });
    expect((await call(emu(), "GET", "/infra/v1/vms", { key: other.infra.member })).body.items).toEqual([]);
  });
});
