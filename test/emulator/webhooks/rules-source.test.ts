import { describe, expect, it } from "vitest";
import { brokerHostNotAllowed, brokerHostPort, rotateNeedsSecret, sourceViolations, BROKER_REQUIRED_FIELDS } from "../../../rules/source";

const broker = { provider: "broker", secret: "pw", broker_identifier: "b1", broker_host: "mq.example.com", broker_user: "u", broker_exchange: "x", broker_topic: "t" };

describe("sourceViolations", () => {
  it.each([
    ["complete broker", broker, true, []],
    ["generic without secret", { provider: "generic" }, true, []],
    ["payments with secret", { provider: "payments", secret: "s" }, true, []],
    ["payments without secret", { provider: "payments" }, true, [{ path: ["secret"], type: "missing" }]],
    ["codehost with null secret", { provider: "codehost", secret: null }, true, [{ path: ["secret"], type: "missing" }]],
    ["broker without password", { ...broker, secret: undefined }, true, [{ path: ["secret"], type: "missing" }]],
    ["empty secret", { provider: "generic", secret: "" }, true, [{ path: ["secret"], type: "string_too_short", params: { count: 1 } }]],
    ["secret not needed on update", { provider: "payments" }, false, []],
    ["port 0", { provider: "generic", broker_port: 0 }, true, [{ path: ["broker_port"], type: "greater_than_equal", params: { limit: 1 } }]],
    ["port 65536", { provider: "generic", broker_port: 65536 }, true, [{ path: ["broker_port"], type: "less_than_equal", params: { limit: 65535 } }]],
    ["port bounds", { provider: "generic", broker_port: 65535 }, true, []],
    ["queue kind", { ...broker, broker_queues: "lazy" }, true, [{ path: ["broker_queues"], type: "enum" }]],
    ["header without key", { provider: "generic", event_type_source: "header" }, true, [{ path: ["event_type_key"], type: "missing" }]],
    ["path with key", { provider: "generic", event_type_source: "path", event_type_key: "data.type" }, true, []],
  ])("%s", (_name, body, creating, expected) => {
    const got = sourceViolations(body as Record<string, unknown>, { creating });
    expect(got.map(({ msg: _m, ...rest }) => rest)).toEqual(expected);
  });

  it("names every missing broker field", () => {
    const got = sourceViolations({ provider: "broker", secret: "pw", broker_host: "" }, { creating: true });
    expect(got.map((v) => [v.type, v.path[0]])).toEqual(BROKER_REQUIRED_FIELDS.map((f) => ["webhooks.broker_fields_required", f]));
  });
});

describe("rotateNeedsSecret", () => {
  it.each([["payments", true], ["codehost", true], ["broker", true], ["generic", false]])("%s -> %s", (p, want) => {
    expect(rotateNeedsSecret(p)).toBe(want);
  });
});

describe("brokerHostNotAllowed", () => {
  it.each([
    ["127.0.0.1", true], ["10.1.2.3", true], ["192.168.0.10", true], ["172.20.0.1", true], ["169.254.169.254", true], ["0.0.0.0", true],
    ["::1", true], ["[::1]", true], ["fd00::1", true], ["::ffff:127.0.0.1", true], ["localhost", true], ["mq.internal", true],
    ["mq.example.com", false], ["8.8.8.8", false], ["2606:4700::1111", false],
    // a zone names the interface, the address decides; a trailing dot or a port changes nothing
    ["fe80::1%eth0", true], ["[fe80::1%25eth0]", true], ["127.0.0.1.", true], ["0x7f.1", true], ["2606:4700::1111%eth0", false],
  ])("%s -> %s", (host, want) => {
    expect(brokerHostNotAllowed(host)).toBe(want);
  });

  it("formats host:port with the AMQP default", () => {
    expect(brokerHostPort("10.0.0.1", null)).toBe("10.0.0.1:5672");
    expect(brokerHostPort("::1", 5671)).toBe("[::1]:5671");
  });
});
