/**
 * A Pulumi YAML program of native resources (`svc:webhooks:Endpoint`, `svc:inboxes:Inbox`)
 * through the real CLI, the YAML language host and `pulumi-resource-svc` on PATH, against
 * the emulator: the lifecycle of lifecycle.ts (create, a no-op, a refresh, an update,
 * destroy, with the API calls counted, and the secrets nowhere in plaintext), calling each
 * read function with `fn::invoke`.
 */
import { describe, expect, it } from "vitest";
import { call, useEmulator } from "../support/emulator";
import { checkNativeLifecycle } from "./lifecycle";
import { NATIVE_MISSING, nativeStack } from "./support";

const emu = useEmulator();

const PROGRAM = `
config:
  description:
    type: string
  label:
    type: string
  token:
    type: string
    secret: true
resources:
  orders:
    type: svc:webhooks:Endpoint
    properties:
      url: https://hooks.example.com/orders
      description: \${description}
      maxAttempts: 5
      customHeaders:
        X-Team: fulfilment
        Authorization: \${token}
  bin:
    type: svc:inboxes:Inbox
    properties:
      label: \${label}
variables:
  one:
    fn::invoke:
      function: svc:webhooks:getEndpoint
      arguments:
        id: \${orders.id}
  endpoints:
    fn::invoke:
      function: svc:webhooks:getEndpoints
      arguments:
        projectId: \${orders.projectId}
  sources:
    fn::invoke:
      function: svc:webhooks:getSources
      arguments: {}
  source:
    fn::invoke:
      function: svc:webhooks:getSource
      arguments:
        id: \${sources.items[0].id}
  box:
    fn::invoke:
      function: svc:inboxes:getInbox
      arguments:
        id: \${bin.id}
  boxes:
    fn::invoke:
      function: svc:inboxes:getInboxes
      arguments:
        address: \${bin.address}
outputs:
  endpointId: \${orders.id}
  inboxId: \${bin.id}
  lookedUpUrl: \${one.url}
  listedUrl: \${endpoints.items[0].url}
  sourceName: \${source.name}
  listedSources: \${sources.items[0].name}
  boxLabel: \${box.label}
  listedBoxes: \${boxes.items[0].label}
`;

if (NATIVE_MISSING) console.log(`native plugin under the real CLI: skipped: ${NATIVE_MISSING}`);
describe.skipIf(NATIVE_MISSING !== undefined)("a YAML program of native resources under the real CLI", () => {
  it("creates with one POST each, a rerun and a refresh write nothing, a change is one PATCH each, destroy deletes both; the secret header stays secret", async () => {
    const s = await nativeStack(emu(), "native-yaml", PROGRAM);
    // A source made outside the program, for the source functions to find.
    const made = await call(emu(), "POST", "/webhooks/v1/sources", { key: s.ws.webhooks.admin, body: { provider: "generic", name: "from-outside" } });
    expect(made.status, made.text).toBe(201);
    // Every read function, by fn::invoke, with a property of its answer read (each answer an object, as the schema says);
    // the lists filtered by a value of the program's objects, so that they are read once those exist.
    await checkNativeLifecycle(emu(), s, {
      lookedUpUrl: "https://hooks.example.com/orders",
      listedUrl: "https://hooks.example.com/orders",
      sourceName: "from-outside",
      listedSources: "from-outside",
      boxLabel: "first",
      listedBoxes: "first",
    });
  });
});
