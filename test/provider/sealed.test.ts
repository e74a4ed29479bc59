/**
 * Write-only secrets are kept in the outputs as seals (provider/engine/sealed.ts), against
 * the emulator over HTTP: no header value, declared signing secret or source secret in any
 * output; diff still tells a changed value from the applied one; refresh still sees a header
 * changed outside Pulumi; today's (plaintext) state is understood and sealed by the next
 * read with no change shown; a new API key rewrites a rewritable value once and never
 * replaces on a create-only one.
 */
import { afterAll, beforeEach, describe, expect, it } from "vitest";
import { closeSharedDispatcher, providers } from "../../provider";
import { newOperation } from "../support/operation";
import { isSeal, seal, sealKeyOf, sealMatches } from "../../provider/engine/sealed";
import { control, useEmulator } from "../support/emulator";
import { configure, Driver, useWorkspace, type Props, type Workspace } from "./support";

const endpoint = providers["webhooks:Endpoint"]!;
const source = providers["webhooks:Source"]!;
const emu = useEmulator();
afterAll(() => closeSharedDispatcher());

let n = 0;
const url = () => `https://sealed-${++n}.example.com/in`;
const HEADER = "Bearer header-value-91c2";
const SIGNING = "whsec_declared_signing_secret_5d1e";
const SOURCE_SECRET = "src-secret-value-0a7f";

describe("seals", () => {
  it("a seal depends on the key; without it a guess cannot be tested; a map keeps its names", () => {
    const a = sealKeyOf("key-a");
    const b = sealKeyOf("key-b");
    const sealed = seal(a, "v") as string;
    expect(isSeal(sealed)).toBe(true);
    expect(sealed).not.toContain("v:");
    expect(seal(b, "v")).not.toEqual(sealed);
    expect(sealMatches(a, sealed, "v")).toBe(true);
    expect(sealMatches(a, sealed, "w")).toBe(false);
    expect(sealMatches(b, sealed, "v")).toBe("other key");
    const map = seal(a, { "X-A": "1", "X-B": "2" }) as Props;
    expect(Object.keys(map)).toEqual(["X-A", "X-B"]);
    expect(sealMatches(a, map, { "X-A": "1", "X-B": "2" })).toBe(true);
    expect(sealMatches(a, map, { "X-A": "1", "X-B": "3" })).toBe(false);
    expect(sealMatches(a, map, { "X-A": "1" })).toBe(false);
  });
});

describe("write-only secrets in the outputs", () => {
  let ws: Workspace;
  beforeEach(async () => {
    newOperation();
    ws = await useWorkspace(emu(), endpoint);
    await configure(source, { "svc:webhooksUrl": emu().webhooksUrl, "svc:webhooksApiKey": ws.webhooks.admin });
  });

  const noValueIn = (props: Props) => {
    const text = JSON.stringify(props);
    for (const value of [HEADER, SIGNING, SOURCE_SECRET]) expect(text).not.toContain(value);
  };

  it("an endpoint's header values and declared secret: sealed in create's outputs; the same declared values show no change", async () => {
    const d = new Driver(emu(), endpoint);
    const declared = { url: url(), secret: SIGNING, customHeaders: { "X-Team": HEADER } };
    const { id, outs } = await d.create(declared);
    noValueIn({ ...outs, signingSecret: null });
    expect(outs.customHeaders).toEqual({ "X-Team": expect.stringMatching(/^hmac-sha256:/) });
    expect(outs.secret).toMatch(/^hmac-sha256:/);
    const same = await d.calls(() => d.update(id, outs, declared));
    expect(same.result.diff.changes).toBe(false);
    expect(same.writes).toEqual([]);
    const changed = await d.calls(() => d.update(id, outs, { ...declared, customHeaders: { "X-Team": HEADER + "2" } }));
    expect(changed.result.diff).toMatchObject({ changes: true, replaces: [] });
    expect(changed.writes).toEqual([`PATCH /v1/endpoints/${id}`]);
    noValueIn(changed.result.outs);
    const replaced = await endpoint.diff!(id, outs, await d.checked({ ...declared, secret: SIGNING + "x" }));
    expect(replaced).toMatchObject({ changes: true, replaces: ["secret"] });
  });

  it("refresh sees a header removed outside Pulumi, and the next diff restores it", async () => {
    const d = new Driver(emu(), endpoint);
    const declared = { url: url(), customHeaders: { "X-Team": HEADER } };
    const { id, outs } = await d.create(declared);
    await d.raw("PATCH", `/v1/endpoints/${id}`, ws.webhooks.admin, { custom_headers: {} });
    newOperation();
    const read = await endpoint.read!(id, outs);
    expect(read.props!.customHeaders).toBeNull();
    expect((await endpoint.diff!(id, read.props!, await d.checked(declared))).changes).toBe(true);
  });

  it("today's state (plaintext write-only outputs): no change shown, no write; the next read seals them", async () => {
    const d = new Driver(emu(), endpoint);
    const declared = { url: url(), secret: SIGNING, customHeaders: { "X-Team": HEADER } };
    const { id, outs } = await d.create(declared);
    const today = { ...outs, secret: SIGNING, customHeaders: { "X-Team": HEADER } };
    const { result, writes } = await d.calls(() => d.update(id, today, declared));
    expect(result.diff.changes).toBe(false);
    expect(writes).toEqual([]);
    newOperation();
    const read = await endpoint.read!(id, today);
    noValueIn({ ...read.props, signingSecret: null });
    noValueIn(read.inputs!);
    expect(read.props!.customHeaders).toEqual(outs.customHeaders);
    expect(read.props!.secret).toEqual(outs.secret);
    expect((await endpoint.diff!(id, read.props!, await d.checked(declared))).changes).toBe(false);
  });

  it("a source's secret: sealed, no change for the same value, one rotate-secret for another", async () => {
    const d = new Driver(emu(), source);
    const declared = { provider: "payments", secret: SOURCE_SECRET };
    const { id, outs } = await d.create(declared);
    noValueIn(outs);
    expect(outs.secret).toMatch(/^hmac-sha256:/);
    expect((await d.update(id, outs, declared)).diff.changes).toBe(false);
    newOperation();
    const read = await source.read!(id, outs);
    expect(read.props!.secret).toEqual(outs.secret);
    const rotated = await d.calls(() => d.update(id, read.props!, { ...declared, secret: SOURCE_SECRET + "2" }));
    expect(rotated.writes).toEqual([`POST /v1/sources/${id}/rotate-secret`]);
    noValueIn(rotated.result.outs);
  });

  it("a new API key of the same workspace: the headers are written again once, the declared signing secret never replaces", async () => {
    const d = new Driver(emu(), endpoint);
    const declared = { url: url(), secret: SIGNING, customHeaders: { "X-Team": HEADER } };
    const { id, outs } = await d.create(declared);
    const key = await control<{ key: string }>(emu(), "POST", "/keys", { product: "webhooks", scope: "admin", workspace_id: ws.workspace_id });
    await configure(endpoint, { "svc:webhooksUrl": emu().webhooksUrl, "svc:webhooksApiKey": key.key });
    const { result, writes } = await d.calls(() => d.update(id, outs, declared));
    expect(result.diff).toMatchObject({ changes: true, replaces: [] });
    expect(writes).toEqual([`PATCH /v1/endpoints/${id}`]);
    expect((await endpoint.diff!(id, result.outs, await d.checked(declared))).changes).toBe(false);
  });
});
