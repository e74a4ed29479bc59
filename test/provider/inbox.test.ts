/**
 * What is the Inbox's own, against the emulator over HTTP: create (email and bin),
 * PATCHes of several fields, delete and release, expiry, reconciled creates, the plan
 * gates at preview (read once) and at apply, the functions, and no key in any
 * message. No-op, one field's update, replacement, drift and out-of-band delete are
 * the lifecycle contract's (test/lifecycle/contract.test.ts).
 */
import { afterAll, beforeEach, describe, expect, it } from "vitest";
import * as svc from "../../sdk";
import { closeSharedDispatcher, providers } from "../../provider";
import { newOperation } from "../support/operation";
import { call, control, useEmulator } from "../support/emulator";
import { configure, Driver, type Props, type Workspace } from "./support";

const provider = providers["inboxes:Inbox"]!;
// A lost create is looked for over a short reconcile window (svc:reconcileWindowSeconds): waiting out the default 15 s proves nothing more.
process.env.SVC_RECONCILE_WINDOW_SECONDS = "3";

const emu = useEmulator();
const d = () => new Driver(emu(), provider);
afterAll(() => closeSharedDispatcher());

async function useInboxes(plan: "free" | "pro" = "pro"): Promise<Workspace> {
  const ws = await control<Workspace>(emu(), "POST", "/workspaces", { plan });
  await configure(provider, { "svc:inboxesUrl": emu().inboxesUrl, "svc:inboxesApiKey": ws.inboxes.admin });
  return ws;
}
const raw = (method: string, path: string, key: string, body?: unknown) => call(emu(), method, `/inboxes${path}`, { key, body });

describe("Inbox: lifecycle and call counts", () => {
  let ws: Workspace;
  beforeEach(async () => {
    ws = await useInboxes();
  });

  it("an email inbox: check reads plan, usage and which workspace (reach.ts) once, create is one POST; every output plain JSON", async () => {
    const checked = await d().calls(() => d().check({ label: "signup", expiresInMinutes: 60 }));
    expect(checked.calls.sort()).toEqual(["GET /v1/plan", "GET /v1/usage"]);
    // An empty audit log names no workspace: read again, not cached (the create writes its first entry).
    expect(checked.identity).toEqual(["GET /v1/audit"]);
    expect(checked.result.failures).toEqual([]);
    const { calls, result } = await d().calls(() => provider.create(checked.result.inputs));
    expect(calls).toEqual(["POST /v1/inboxes"]);
    expect(result.id).toMatch(/^inb_/);
    expect(result.outs).toMatchObject({ label: "signup", transport: "email", status: "active", phrase: false, expiresInMinutes: 60, url: null });
    expect(result.outs.address).toMatch(/@inbox\.svc\.test$/);
    expect(Date.parse(result.outs.expiresAt) - Date.parse(result.outs.createdAt)).toBe(60 * 60_000);
    for (const [k, v] of Object.entries(result.outs)) expect(v, k).not.toBeUndefined();
    // A second check in the same process reads nothing.
    expect((await d().calls(() => d().check({ label: "other" }))).calls).toEqual([]);
  });

  it("a request bin has a slug and a URL that records requests", async () => {
    const { outs } = await d().create({ transport: "http", label: "bin" });
    expect(outs).toMatchObject({ transport: "http", address: null, expiresAt: null });
    expect(outs.url).toContain(`/bin/${outs.slug}`);
    const posted = await fetch(outs.url, { method: "POST", body: "hello" });
    expect(posted.status).toBe(200);
  });

  it("label, then label and status together: one PATCH each", async () => {
    const { id, outs } = await d().create({ label: "a" });
    const one = await d().calls(() => d().update(id, outs, { label: "b" }));
    expect(one.writes).toEqual([`PATCH /v1/inboxes/${id}`]);
    expect(one.result.diff.replaces).toEqual([]);
    const two = await d().calls(() => d().update(id, one.result.outs, { label: "c", status: "paused" }));
    expect(two.writes).toEqual([`PATCH /v1/inboxes/${id}`]);
    expect(two.result.outs).toMatchObject({ label: "c", status: "paused" });
    const cleared = await d().calls(() => d().update(id, two.result.outs, { status: "paused" }));
    expect(cleared.writes).toEqual([`PATCH /v1/inboxes/${id}`]);
    expect(cleared.result.outs.label).toBeNull();
  });

  it("delete releases it (one DELETE); again is already gone", async () => {
    const { id, outs } = await d().create({});
    const { writes } = await d().calls(() => provider.delete!(id, outs));
    expect(writes).toEqual([`DELETE /v1/inboxes/${id}`]);
    await expect(provider.delete!(id, outs)).resolves.toBeUndefined();
    expect((await raw("GET", `/v1/inboxes/${id}`, ws.inboxes.admin)).status).toBe(404);
  });

  it("an expired inbox: refresh drops it; without refresh the diff plans a replacement, saying so", async () => {
    const { id, outs } = await d().create({ label: "short", expiresInMinutes: 5 });
    await control(emu(), "POST", `/inboxes/inboxes/${id}/expire`);
    expect(await provider.read!(id, outs)).toEqual({});
    const expired = { ...outs, expiresAt: new Date(Date.now() - 1000).toISOString() };
    const stderr: string[] = [];
    const write = process.stderr.write.bind(process.stderr);
    process.stderr.write = ((chunk: string) => (stderr.push(String(chunk)), true)) as typeof process.stderr.write;
    try {
      const diff = await provider.diff!(id, expired, (await d().check({ label: "short", expiresInMinutes: 5 }, { label: "short", expiresInMinutes: 5, transport: "email" })).inputs);
      expect(diff).toMatchObject({ changes: true, replaces: ["expiresAt"], deleteBeforeReplace: false });
    } finally {
      process.stderr.write = write;
    }
    expect(stderr.join("")).toMatch(/expired at .* and is gone: a new one is created/);
    // The replacement: a new inbox, and the old one's DELETE finds it already gone.
    const created = await d().calls(() => d().create({ label: "short", expiresInMinutes: 5 }));
    expect(created.calls).toEqual(["POST /v1/inboxes"]);
    await expect(provider.delete!(id, outs)).resolves.toBeUndefined();
  });

  it("an update of an inbox that expired since the last refresh says to refresh", async () => {
    const { id, outs } = await d().create({ label: "x", expiresInMinutes: 5 });
    await control(emu(), "POST", `/inboxes/inboxes/${id}/expire`);
    const err = await provider.update!(id, outs, { label: "y", transport: "email", expiresInMinutes: 5 }).catch((e) => e);
    expect(err.message).toMatch(/is gone \(released, or expired\)\. Run `pulumi refresh`/);
  });

  it("a create whose answer was lost is reconciled by the listing: the inbox carrying its owner mark (no label declared) is adopted, never a second; the mark reads as no label", async () => {
    // Another's identical bin: never taken.
    await raw("POST", "/v1/inboxes", ws.inboxes.admin, { transport: "http" });
    await control(emu(), "POST", "/faults", { method: "POST", path: "/inboxes/v1/inboxes", drop_after_response: true, count: 1 });
    const checked = await d().check({ transport: "http" });
    const { calls, result } = await d().calls(() => provider.create(checked.inputs));
    expect(calls).toEqual(["POST /v1/inboxes", "GET /v1/inboxes"]);
    const listed = (await raw("GET", "/v1/inboxes", ws.inboxes.admin)).body.data as { id: string; label: string | null }[];
    expect(listed).toHaveLength(2);
    expect(listed.find((i) => i.id === result.id)?.label).toMatch(/^managed by pulumi-svc \(owner [a-z2-7]{26}\)$/);
    expect(result.outs).toMatchObject({ label: null, transport: "http" });
  });

  it("a label declared: the listed inbox cannot be proven the create's; named, not taken, the state keeps the question", async () => {
    await control(emu(), "POST", "/faults", { method: "POST", path: "/inboxes/v1/inboxes", drop_after_response: true, count: 1 });
    const checked = await d().check({ label: "lost answer", transport: "http" });
    const err = await provider.create(checked.inputs).catch((e) => e);
    const listed = (await raw("GET", "/v1/inboxes", ws.inboxes.admin)).body.data as { id: string }[];
    expect(listed).toHaveLength(1);
    expect(err.id).toMatch(/^unresolved-create-/);
    expect(err.message).toContain(listed[0]!.id);
  });

  it("adoptId takes an existing inbox over with a PATCH, no POST", async () => {
    const existing = await raw("POST", "/v1/inboxes", ws.inboxes.admin, { label: "old", transport: "http" });
    const id = existing.body.id as string;
    const checked = await d().check({ label: "new", transport: "http", adoptId: id });
    expect(checked.failures).toEqual([]);
    const { calls, result } = await d().calls(() => provider.create(checked.inputs));
    expect(result.id).toBe(id);
    expect(calls).toEqual([`GET /v1/inboxes/${id}`, `PATCH /v1/inboxes/${id}`]);
    expect(result.outs).toMatchObject({ label: "new", url: existing.body.url });
  });
});

describe("Inbox: refusals at preview and at apply", () => {
  it("a label over 200 characters fails the preview with the rule's type and count, no call", async () => {
    await useInboxes();
    newOperation();
    const { result, calls } = await d().calls(() => d().check({ label: "x".repeat(201) }));
    expect(result.failures).toEqual([{ property: "label", reason: expect.stringMatching(/at most 200 characters \(string_too_long, count 200\)/) }]);
    expect(calls).toEqual([]);
    expect((await d().check({ label: "é".repeat(200) })).failures).toEqual([]);
  });

  it("expiresInMinutes below 1, an unknown transport and status fail the preview", async () => {
    await useInboxes();
    const { failures } = await d().check({ expiresInMinutes: 0, transport: "pigeon", status: "asleep" });
    expect(failures!.map((f) => f.property).sort()).toEqual(["status", "transport", "expiresInMinutes"].sort());
  });

  it("phrase on a plan without optional_phrase_gate: the preview fails; the apply error says the same", async () => {
    await useInboxes("free");
    const { failures } = await d().check({ phrase: true });
    expect(failures).toEqual([{ property: "phrase", reason: expect.stringMatching(/optional_phrase_gate \(not_entitled\).*free plan.*Remove phrase, or upgrade/) }]);
    const err = await provider.create({ phrase: true, transport: "email" }).catch((e) => e);
    expect(err).toMatchObject({ status: 402, code: "not_entitled" });
    expect(err.message).toMatch(/Setting phrase needs the plan feature optional_phrase_gate/);
    // Unchanged phrase on an existing inbox is not judged again.
    expect((await d().check({ phrase: true, transport: "email" }, { phrase: true, transport: "email" })).failures).toEqual([]);
  });

  it("the bin allocation: the preview fails for the fourth bin on free (limit, current), and counts bins planned in the same run", async () => {
    const ws = await useInboxes("free");
    for (let i = 0; i < 2; i++) await raw("POST", "/v1/inboxes", ws.inboxes.admin, { transport: "http" });
    expect((await d().check({ transport: "http" })).failures).toEqual([]); // the third: 2 live + this one
    const { failures } = await d().check({ transport: "http" });
    expect(failures).toEqual([{ property: "transport", reason: expect.stringMatching(/allows 3 request bins and 3 are live or planned \(quota_exceeded, reason allocation, metric http_bins\)/) }]);
    expect((await d().check({ transport: "email" })).failures).toEqual([]);
    await raw("POST", "/v1/inboxes", ws.inboxes.admin, { transport: "http" });
    const err = await provider.create({ transport: "http" }).catch((e) => e);
    expect(err).toMatchObject({ status: 402, code: "quota_exceeded" });
    expect(err.message).toMatch(/allows 3 request bins and 3 are live/);
    expect(err.message).not.toContain(ws.inboxes.admin);
  });

  it("a read-only key names the config key and never the key", async () => {
    const ws = await useInboxes();
    await configure(provider, { "svc:inboxesUrl": emu().inboxesUrl, "svc:inboxesApiKey": ws.inboxes.read });
    const err = await provider.create({ transport: "email" }).catch((e) => e);
    expect(err.message).toMatch(/svc:inboxesApiKey/);
    expect(err.message).not.toContain(ws.inboxes.read);
  });
});

describe("Inboxes functions (program process)", () => {
  let ws: Workspace;
  const set = (key: string) => {
    process.env.SVC_INBOXES_URL = emu().inboxesUrl;
    process.env.SVC_INBOXES_API_KEY = key;
  };
  afterAll(() => {
    delete process.env.SVC_INBOXES_URL;
    delete process.env.SVC_INBOXES_API_KEY;
  });

  it("getInbox, getInboxes({address}) by address, slug or URL, getPlan, getUsage", async () => {
    ws = await useInboxes("pro");
    set(ws.inboxes.read);
    const mail = await d().create({ label: "m" });
    const bin = await d().create({ transport: "http", label: "b" });
    expect(await svc.inboxes.getInbox({ id: mail.id })).toMatchObject({ id: mail.id, label: "m", address: mail.outs.address });
    expect((await svc.inboxes.getInboxes({ address: mail.outs.address.toUpperCase() })).map((i) => i.id)).toEqual([mail.id]);
    expect((await svc.inboxes.getInboxes({ address: bin.outs.url })).map((i) => i.id)).toEqual([bin.id]);
    expect((await svc.inboxes.getInboxes({ address: bin.outs.slug })).map((i) => i.id)).toEqual([bin.id]);
    expect(await svc.inboxes.getInboxes({ address: "nobody@inbox.svc.test" })).toEqual([]);
    expect((await svc.inboxes.getInboxes()).length).toBe(2);
    expect(await svc.inboxes.getPlan()).toMatchObject({ name: "pro", features: { read_api: true, optional_phrase_gate: true } });
    expect(await svc.inboxes.getUsage()).toMatchObject({ inboxes: 1, http_bins: 1 });
  });

  it("getMessages reads an inbox's messages on a paid plan", async () => {
    ws = await useInboxes("pro");
    set(ws.inboxes.read);
    const mail = await d().create({});
    await control(emu(), "POST", "/inboxes/messages", { inbox_id: mail.id, subject: "Your code", text: "Code 123456" });
    const messages = await svc.inboxes.getMessages({ inboxId: mail.id, extract: "codes" });
    expect(messages).toHaveLength(1);
    expect(messages[0]).toMatchObject({ inboxId: mail.id, subject: "Your code", extracted: { kind: "codes", matches: ["123456"] } });
  });

  it("getMessages with an API key on the free plan explains the read_api gate", async () => {
    ws = await useInboxes("free");
    set(ws.inboxes.read);
    const mail = await d().create({});
    const err = await svc.inboxes.getMessages({ inboxId: mail.id }).catch((e) => e);
    expect(err).toMatchObject({ status: 402, code: "not_entitled" });
    expect(err.message).toMatch(/needs the plan feature read_api.*browser session.*Upgrade the plan/);
    expect(err.message).toMatch(/SVC_INBOXES_API_KEY|svc:inboxesApiKey/);
    expect(err.message).not.toContain(ws.inboxes.read);
  });
});
