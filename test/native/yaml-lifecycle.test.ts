/**
 * A Pulumi YAML program of native resources (`svc:webhooks:Endpoint`, `svc:inboxes:Inbox`)
 * through the real CLI, the YAML language host and `pulumi-resource-svc` on PATH, against
 * the emulator: the lifecycle of lifecycle.ts (create, a no-op, a refresh, an update,
 * destroy, with the API calls counted, and the secrets nowhere in plaintext).
 */
import { describe, it } from "vitest";
import { useEmulator } from "../support/emulator";
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
outputs:
  endpointId: \${orders.id}
  inboxId: \${bin.id}
`;

if (NATIVE_MISSING) console.log(`native plugin under the real CLI: skipped: ${NATIVE_MISSING}`);
describe.skipIf(NATIVE_MISSING !== undefined)("a YAML program of native resources under the real CLI", () => {
  it("creates with one POST each, a rerun and a refresh write nothing, a change is one PATCH each, destroy deletes both; the secret header stays secret", async () => {
    const s = await nativeStack(emu(), "native-yaml", PROGRAM);
    await checkNativeLifecycle(emu(), s);
  });
});
