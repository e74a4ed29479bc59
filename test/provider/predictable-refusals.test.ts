/**
 * Refusals the provider can predict fail the preview (adv14b F2, F3), with the words the
 * apply would use:
 * - adoption: a field only a create takes and the service never shows (`secret`,
 *   `expiresInMinutes`: create-only and write-only, from the field table) given together
 *   with `adoptId`; an `adoptId` that names no object (one GET of it at the preview of a new
 *   resource), and its refusal at apply naming the code and the request id; a create-only
 *   field the object holds otherwise, named with both values (the same GET).
 * - a Webhooks key whose scope may not write (`read`, `publish`), which `GET /v1/auth/me`
 *   answers: the preview of a resource that would write fails naming the setting, the
 *   scope it has and the one it needs; one that writes nothing passes.
 */
import { afterAll, describe, expect, it } from "vitest";
import { closeSharedDispatcher, providers } from "../../provider";
import { newOperation } from "../support/operation";
import { call, control, useEmulator } from "../support/emulator";
import { configure, Driver, noted, useWorkspace, type Workspace } from "./support";

const endpoint = providers["webhooks:Endpoint"]!;
const inbox = providers["inboxes:Inbox"]!;
const eventType = providers["webhooks:EventType"]!;
const settings = providers["webhooks:WorkspaceSettings"]!;
const emu = useEmulator();
afterAll(() => closeSharedDispatcher());

const ep = () => new Driver(emu(), endpoint);
const ib = () => new Driver(emu(), inbox);

async function inboxesWorkspace(): Promise<Workspace> {
  const ws = await control<Workspace>(emu(), "POST", "/workspaces", { plan: "pro" });
  await configure(inbox, { "svc:inboxesUrl": emu().inboxesUrl, "svc:inboxesApiKey": ws.inboxes.admin });
  return ws;
}

describe("adoption: what the create would refuse fails the preview", () => {
  it("Endpoint: adoptId with secret fails the check on secret, naming both and what to do, with no call", async () => {
    const ws = await useWorkspace(emu(), endpoint);
    newOperation();
    const id = (await ep().raw("POST", "/v1/endpoints", ws.webhooks.admin, { url: "https://old.example.com/h" })).body.id as string;
    const { result, calls } = await ep().calls(() => ep().check({ url: "https://new.example.com/h", adoptId: id, secret: "whsec_given" }));
    expect(result.failures).toEqual([
      {
        property: "secret",
        reason: `adoptId ${id}: \`secret\` cannot be applied to an existing endpoint (the service takes it only when it creates one), so it cannot be given together with adoptId. Remove \`secret\` from the resource to adopt the endpoint, or remove adoptId to create a new one with it.`,
      },
    ]);
    // A local judgement: no remote check ran (they run only when the inputs pass).
    expect(calls).toEqual([]);
    // The secret's value is never in a message.
    expect(JSON.stringify(result.failures)).not.toContain("whsec_given");
  });

  it("Inbox: adoptId with expiresInMinutes fails the check on expiresInMinutes", async () => {
    const ws = await inboxesWorkspace();
    newOperation();
    const id = (await call(emu(), "POST", "/inboxes/v1/inboxes", { key: ws.inboxes.admin, body: { label: "old", transport: "http" } })).body.id as string;
    const { failures } = await ib().check({ transport: "http", adoptId: id, expiresInMinutes: 5 });
    expect(failures).toEqual([{ property: "expiresInMinutes", reason: expect.stringMatching(new RegExp(`^adoptId ${id}: \`expiresInMinutes\` cannot be applied to an existing inbox .*Remove \`expiresInMinutes\``)) }]);
  });

  it("an adoptId not known yet (an output of another resource) is not judged at preview", async () => {
    await useWorkspace(emu(), endpoint);
    newOperation();
    const { failures } = await ep().check({ url: "https://new.example.com/h", adoptId: "04da6b54-80e4-46f7-96ec-b56ff0331ba9", secret: "whsec_given" });
    expect(failures).toEqual([]);
  });

  it("Endpoint: an adoptId that names no endpoint fails the preview naming the id, the key's setting and what to do; one GET per operation", async () => {
    await useWorkspace(emu(), endpoint);
    newOperation();
    const declared = { url: "https://new.example.com/h", adoptId: "ep_doesnotexist" };
    const first = await ep().calls(() => ep().check(declared));
    expect(first.result.failures).toEqual([
      {
        property: "adoptId",
        reason: expect.stringMatching(
          /^adoptId ep_doesnotexist: no endpoint with this id is visible to the API key in svc:webhooksApiKey \(or SVC_WEBHOOKS_API_KEY\)\. Check the id .* or remove adoptId to create a new endpoint\. \(GET \/v1\/endpoints\/ep_doesnotexist → 404 not_found.*, request id [^)]+\)$/,
        ),
      },
    ]);
    expect(first.calls.filter((c) => c.includes("ep_doesnotexist"))).toEqual(["GET /v1/endpoints/ep_doesnotexist"]);
    // Cached for the operation: a second check of the same id reads nothing more.
    const second = await ep().calls(() => ep().check(declared));
    expect(second.result.failures).toHaveLength(1);
    expect(second.calls.filter((c) => c.includes("ep_doesnotexist"))).toEqual([]);
  });

  it("Endpoint: at apply, the missing endpoint's refusal names the code and the request id", async () => {
    await useWorkspace(emu(), endpoint);
    newOperation();
    const err = await endpoint.create({ url: "https://new.example.com/h", adoptId: "ep_missing" }).catch((e) => e);
    expect(err.message).toMatch(/^adoptId ep_missing: no endpoint with this id is visible to the API key in svc:webhooksApiKey .*\(GET \/v1\/endpoints\/ep_missing → 404 not_found.*, request id [^)]+\)$/);
    expect(err).toMatchObject({ status: 404, code: "not_found" });
  });

  it("Inbox: an adoptId that names no inbox fails the preview", async () => {
    await inboxesWorkspace();
    newOperation();
    const { failures } = await ib().check({ transport: "http", adoptId: "inb_doesnotexist" });
    expect(failures).toEqual([{ property: "adoptId", reason: expect.stringMatching(/^adoptId inb_doesnotexist: no inbox with this id is visible to the API key in svc:inboxesApiKey .*404 not_found/) }]);
  });

  it("Inbox: a create-only field the object holds otherwise (transport, whose default is email) fails the preview naming both values", async () => {
    const ws = await inboxesWorkspace();
    newOperation();
    const id = (await call(emu(), "POST", "/inboxes/v1/inboxes", { key: ws.inboxes.admin, body: { label: "bin", transport: "http" } })).body.id as string;
    const { failures } = await ib().check({ label: "bin", adoptId: id });
    expect(failures).toEqual([{ property: "transport", reason: `adoptId ${id}: the inbox has transport "http" but "email" is declared, and transport cannot change without replacing it. Declare "http" to adopt it.` }]);
    // Declared as it is: no failure, and no second read in the operation.
    const again = await ib().calls(() => ib().check({ label: "bin", transport: "http", adoptId: id }));
    expect(again.result.failures).toEqual([]);
    expect(again.calls.filter((c) => c.includes(id))).toEqual([]);
  });

  it("an existing resource's check does not read the adopted object again", async () => {
    const ws = await useWorkspace(emu(), endpoint);
    const id = (await ep().raw("POST", "/v1/endpoints", ws.webhooks.admin, { url: "https://old.example.com/h" })).body.id as string;
    const declared = { url: "https://old.example.com/h", adoptId: id };
    newOperation();
    const { result, calls } = await ep().calls(() => ep().check(declared, declared));
    expect(result.failures).toEqual([]);
    expect(calls.filter((c) => c.includes(id))).toEqual([]);
  });

  it("EventType adoptExisting of a name not registered creates it: no failure", async () => {
    await useWorkspace(emu(), eventType);
    newOperation();
    const { failures } = await new Driver(emu(), eventType).check({ name: "fresh.type", adoptExisting: true });
    expect(failures).toEqual([]);
  });
});

describe("a Webhooks key whose scope may not write: the preview of a resource that would write warns once, and passes (a pipeline's preview job may hold a read key on purpose)", () => {
  const readKeyWorkspace = async (scope: "read" | "publish") => {
    const ws = await useWorkspace(emu(), endpoint);
    await configure(endpoint, { "svc:webhooksUrl": emu().webhooksUrl, "svc:webhooksApiKey": ws.webhooks[scope] });
    return ws;
  };

  it("new endpoints with a read key: one warning naming the setting, the scope it has and the one an up needs; no failure", async () => {
    await readKeyWorkspace("read");
    newOperation();
    const failures: unknown[] = [];
    const warnings = await noted(async () => {
      failures.push(...((await ep().check({ url: "https://new.example.com/h" })).failures ?? []));
      failures.push(...((await ep().check({ url: "https://new.example.com/i" })).failures ?? []));
    });
    expect(failures).toEqual([]);
    expect(warnings).toEqual([
      "The webhooks API key in svc:webhooksApiKey (or SVC_WEBHOOKS_API_KEY) has the read scope, which may only read: this preview can read, but a `pulumi up` with it would be refused (403 forbidden, reason scope) for the changes shown. Apply with a key of the admin scope in svc:webhooksApiKey (or SVC_WEBHOOKS_API_KEY).",
    ]);
  });

  it("a publish key too; an existing endpoint declared as before writes nothing: no warning", async () => {
    await readKeyWorkspace("publish");
    newOperation();
    const olds = { url: "https://old.example.com/h", description: "a" };
    expect(await noted(() => ep().check(olds, olds))).toEqual([]);
    expect(await noted(() => ep().check({ ...olds, description: "b" }, olds))).toEqual([expect.stringMatching(/has the publish scope, which may only publish events: this preview can read/)]);
  });

  it("an admin key: no warning", async () => {
    await useWorkspace(emu(), endpoint);
    newOperation();
    expect(await noted(() => ep().check({ url: "https://new.example.com/h" }))).toEqual([]);
  });
});
