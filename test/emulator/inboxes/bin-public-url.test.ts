/**
 * `binPublicUrl`: bins reported under a public https base (as the real service reports
 * them, so a Webhooks endpoint accepts the URL), still received locally and found by
 * `?address=` with the reported URL.
 */
import { describe, expect, it } from "vitest";
import { call, useEmulator } from "../../support/emulator";

describe("request bins under a public URL", () => {
  const emu = useEmulator({ binPublicUrl: "https://bins.svc.test/" });

  it("reports https://bins.svc.test/bin/<slug>; the local bin path receives; lookup by the reported URL", async () => {
    const key = emu().keys.inboxes.admin;
    const created = await call(emu(), "POST", "/inboxes/v1/inboxes", { key, body: { transport: "http" } });
    expect(created.status).toBe(201);
    const { slug, url, id } = created.body;
    expect(url).toBe(`https://bins.svc.test/bin/${slug}`);
    expect((await call(emu(), "POST", `/inboxes/bin/${slug}/hook`, { raw: "x" })).status).toBe(200);
    const found = await call(emu(), "GET", `/inboxes/v1/inboxes?address=${encodeURIComponent(url)}`, { key });
    expect(found.body.data.map((i: { id: string }) => i.id)).toEqual([id]);
    const email = await call(emu(), "POST", "/inboxes/v1/inboxes", { key, body: {} });
    expect(email.body.url).toBeNull();
  });
});
