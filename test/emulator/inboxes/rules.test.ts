import { describe, expect, it } from "vitest";
import { INBOX_LIMITS, inboxNeedsPhraseGate, inboxViolations } from "../../../rules/inbox";

const long = "x".repeat(INBOX_LIMITS.labelMaxLength + 1);
const atLimit = "é".repeat(INBOX_LIMITS.labelMaxLength); // characters, not bytes

describe("inboxViolations", () => {
  it.each([
    ["empty create", {}, true, []],
    ["full create", { label: "a", phrase: true, expires_in_minutes: 5, transport: "http" }, true, []],
    ["label at the limit", { label: atLimit }, true, []],
    ["label too long", { label: long }, true, [{ path: ["label"], type: "string_too_long", params: { count: 200 } }]],
    ["label too long on update", { label: long }, false, [{ path: ["label"], type: "string_too_long", params: { count: 200 } }]],
    ["label null on create", { label: null }, true, [{ path: ["label"], type: "string_type" }]],
    ["label null on update", { label: null, phrase: null, status: null }, false, []],
    ["label not a string", { label: 3 }, true, [{ path: ["label"], type: "string_type" }]],
    ["phrase not boolean", { phrase: "yes" }, true, [{ path: ["phrase"], type: "bool_type" }]],
    ["transport unknown", { transport: "sms" }, true, [{ path: ["transport"], type: "enum" }]],
    ["expires 0", { expires_in_minutes: 0 }, true, [{ path: ["expires_in_minutes"], type: "greater_than_equal", params: { limit: 1 } }]],
    ["expires fractional", { expires_in_minutes: 1.5 }, true, [{ path: ["expires_in_minutes"], type: "int_type" }]],
    ["expires null", { expires_in_minutes: null }, true, []],
    ["transport on update", { transport: "email" }, false, [{ path: ["transport"], type: "extra_forbidden" }]],
    ["expires on update", { expires_in_minutes: 3 }, false, [{ path: ["expires_in_minutes"], type: "extra_forbidden" }]],
    ["status on create", { status: "active" }, true, [{ path: ["status"], type: "extra_forbidden" }]],
    ["status unknown", { status: "gone" }, false, [{ path: ["status"], type: "enum" }]],
    ["status paused", { status: "paused" }, false, []],
    ["unknown member", { colour: "red" }, true, [{ path: ["colour"], type: "extra_forbidden" }]],
  ])("%s", (_name, body, creating, expected) => {
    const got = inboxViolations(body as Record<string, unknown>, { creating: creating as boolean });
    expect(got.map(({ msg: _m, ...rest }) => rest)).toEqual(expected);
    for (const v of got) expect(v.msg).toBeTruthy();
  });
});

describe("inboxNeedsPhraseGate", () => {
  it.each([
    [{}, false],
    [{ phrase: null }, false],
    [{ phrase: false }, true],
    [{ phrase: true }, true],
  ])("%j -> %s", (body, needs) => expect(inboxNeedsPhraseGate(body)).toBe(needs));
});
