/**
 * One table of hosts the service never connects to (rules/addresses.ts), and the
 * three places that must agree on it: the emulator over HTTP (a test ping answers
 * `blocked_address`; a broker source is 422 `broker_not_allowed`), the provider's
 * preview check of a broker host, and the policy pack's `endpoint-public-host`.
 */
import { describe, expect, it } from "vitest";
import { nonPublicHost } from "../../../rules/addresses";
import { sourceRules } from "../../../provider/webhooks/source";
import { endpointPublicHost } from "../../../policy/policies/endpoint-public-host";
import { validateResource } from "../../policy/harness";
import { inputs } from "../../policy/cases/types";
import { useEmulator } from "../../support/emulator";
import { createEndpoint, newWorkspace, wh } from "./endpoints-support";

/** [host as written in a URL, non-public?] */
const TABLE: readonly (readonly [string, boolean])[] = [
  // IPv4, each special-purpose block
  ["0.0.0.0", true], ["10.1.2.3", true], ["100.64.0.1", true], ["100.127.255.255", true], ["127.0.0.1", true], ["169.254.169.254", true],
  ["172.16.0.1", true], ["192.0.0.8", true], ["192.0.2.1", true], ["192.88.99.1", true], ["192.168.1.1", true], ["198.18.0.1", true],
  ["198.19.255.255", true], ["198.51.100.7", true], ["203.0.113.7", true], ["224.0.0.1", true], ["239.255.255.250", true], ["240.0.0.1", true],
  ["255.255.255.255", true],
  // IPv4 just outside them, and ordinary public addresses
  ["100.63.255.255", false], ["100.128.0.0", false], ["172.32.0.1", false], ["198.20.0.1", false], ["8.8.8.8", false], ["93.184.216.34", false],
  // IPv4 in the notations a resolver also accepts
  ["0x7f.1", true], ["2130706433", true], ["0177.0.0.1", true], ["127.1", true], ["0x0a000001", true], ["0x8.0x8.0x8.0x8", false],
  // IPv6
  ["[::]", true], ["[::1]", true], ["[0:0:0:0:0:0:0:1]", true], ["[fc00::1]", true], ["[fd12:3456::1]", true], ["[fe80::1]", true],
  ["[fec0::1]", true], ["[ff02::1]", true], ["[2001:db8::1]", true], ["[3fff::1]", true], ["[100::1]", true], ["[2001:2::1]", true],
  ["[64:ff9b:1::1]", true], ["[2606:4700::1111]", false], ["[2001:4860:4860::8888]", false], ["[2001::1]", false],
  // IPv6 carrying an IPv4 address: the IPv4 address decides
  ["[::ffff:127.0.0.1]", true], ["[::ffff:a00:1]", true], ["[::ffff:8.8.8.8]", false], ["[::10.0.0.1]", true], ["[::8.8.8.8]", false],
  ["[64:ff9b::a00:1]", true], ["[64:ff9b::8.8.8.8]", false], ["[2002:c0a8:101::1]", true], ["[2002:808:808::1]", false],
  // names
  ["localhost", true], ["LocalHost.", true], ["app.localhost", true], ["nas.local", true], ["db.corp.internal", true], ["box.localdomain", true],
  // more than one trailing dot: a resolver drops them all
  ["127.0.0.1..", true], ["localhost..", true], ["app.localhost...", true], ["8.8.8.8..", false],
  ["hooks.example.com", false], ["localhost.example.com", false], ["internal.example.com", false],
];

const BLOCKED = TABLE.filter(([, blocked]) => blocked).map(([h]) => h);
const PUBLIC = TABLE.filter(([, blocked]) => !blocked).map(([h]) => h);
const bare = (host: string) => host.replace(/^\[(.*)\]$/, "$1");

describe("non-public hosts: one table for the rules, the provider, the policy pack and the emulator", () => {
  it.each(TABLE)("rules: %s non-public = %s", (host, blocked) => {
    expect(nonPublicHost(host) !== undefined).toBe(blocked);
  });

  it.each(TABLE)("provider preview: a broker at %s refused = %s", (host, blocked) => {
    const violations = sourceRules({ provider: "broker", secret: "pw", broker_identifier: "b", broker_host: bare(host), broker_user: "u", broker_exchange: "x", broker_topic: "t" });
    expect(violations.some((v) => v.type === "broker_not_allowed")).toBe(blocked);
  });

  it.each(TABLE)("policy endpoint-public-host: https://%s/h reported = %s", async (host, blocked) => {
    const messages = await validateResource(endpointPublicHost, { kind: "webhooks:Endpoint", props: inputs({ url: `https://${host}/h` }) });
    expect(messages.length > 0).toBe(blocked);
  });

  describe("emulator over HTTP", () => {
    const emu = useEmulator();

    it("a test ping to every non-public host answers blocked_address; to every public one it is delivered", async () => {
      // A workspace per host: test pings draw on the workspace's redeliver bucket.
      const outcome = async (host: string) => {
        const ws = await newWorkspace(emu());
        const ep = await createEndpoint(emu(), ws.webhooks.admin, { url: `https://${host}/h` });
        const t = await wh(emu(), "POST", `/v1/endpoints/${ep.id}/test`, { key: ws.webhooks.admin });
        expect(t.status).toBe(200);
        return t.body.failure_reason === "blocked_address";
      };
      const got: Record<string, boolean> = {};
      for (const [host] of TABLE) got[host] = await outcome(host);
      expect(got).toEqual(Object.fromEntries(TABLE));
    });

    it("a broker source at every non-public host is 422 broker_not_allowed; at every public one it is created", async () => {
      const ws = await newWorkspace(emu(), "pro");
      const got: Record<string, boolean> = {};
      for (const host of [...BLOCKED, ...PUBLIC]) {
        const res = await wh(emu(), "POST", "/v1/sources", {
          key: ws.webhooks.admin,
          body: { provider: "broker", secret: "pw", broker_identifier: "b", broker_host: bare(host), broker_user: "u", broker_exchange: "x", broker_topic: "t" },
        });
        got[host] = res.status === 422 && (res.body as { error?: { code?: string } }).error?.code === "broker_not_allowed";
        if (!got[host]) expect(res.status).toBe(201);
      }
      expect(got).toEqual(Object.fromEntries(TABLE));
    });
  });
});
