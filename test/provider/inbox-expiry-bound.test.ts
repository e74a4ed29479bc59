/**
 * Issue 16: `expiresInMinutes` past the bound of rules/inbox.ts (525,600 minutes) fails
 * at preview with the same entry the emulator answers, before any call is made.
 */
import { afterAll, describe, expect, it } from "vitest";
import { closeSharedDispatcher, providers } from "../../provider";
import { call, control, useEmulator } from "../support/emulator";
import { configure, Driver, type Workspace } from "./support";

const provider = providers["inboxes:Inbox"]!;
const emu = useEmulator();
afterAll(() => closeSharedDispatcher());

describe("Inbox expiresInMinutes bound", () => {
  it("1e15 fails at preview naming the field and the bound, as the emulator refuses it", async () => {
    const ws = await control<Workspace>(emu(), "POST", "/workspaces", { plan: "pro" });
    await configure(provider, { "svc:inboxesUrl": emu().inboxesUrl, "svc:inboxesApiKey": ws.inboxes.admin });
    const { failures } = await new Driver(emu(), provider).check({ label: "far", expiresInMinutes: 1e15 });
    expect(failures).toEqual([{ property: "expiresInMinutes", reason: expect.stringMatching(/525600.*less_than_equal/) }]);
    expect((await new Driver(emu(), provider).check({ label: "year", expiresInMinutes: 525_600 })).failures).toEqual([]);
    const api = await call(emu(), "POST", "/inboxes/v1/inboxes", { key: ws.inboxes.admin, body: { expires_in_minutes: 1e15 } });
    expect(api.body.error.details.errors[0]).toMatchObject({ type: "less_than_equal", params: { limit: 525_600 } });
  });
});
