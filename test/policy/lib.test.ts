/** The pack's shared helpers: allowed hosts (which hosts are non-public: test/emulator/webhooks/non-public-hosts.test.ts), header names, stacks, token matching, property reading. */
import { describe, expect, it } from "vitest";
import { Secret, unknownCheckingProxy } from "@pulumi/policy";
import * as svc from "../../sdk";
import { RESOURCE_KINDS, TYPE_TOKENS } from "../../sdk/tokens";
import { canonicalHeaderName, DEFAULT_CREDENTIAL_NAME_FRAGMENTS, looksLikeCredential } from "../../policy/lib/headers";
import { hostAllowed } from "../../policy/lib/hosts";
import { kindOf } from "../../policy/lib/match";
import { plain, UNKNOWN } from "../../policy/lib/props";
import { isProductionStack, stackOfUrn } from "../../policy/lib/stacks";
import { lowerCaseHost } from "../../policy/policies/endpoint-url-host-lowercase";
import { UNKNOWN_STRING } from "./wire";

describe("hostAllowed", () => {
  it("allowedHosts: exact names case-insensitively, *.suffix below a name only, IPv6 with or without brackets", () => {
    expect(hostAllowed("Hooks.Corp.Internal", ["hooks.corp.internal"])).toBe(true);
    expect(hostAllowed("a.b.corp.internal", ["*.corp.internal"])).toBe(true);
    expect(hostAllowed("corp.internal", ["*.corp.internal"])).toBe(false);
    expect(hostAllowed("evilcorp.internal", ["*.corp.internal"])).toBe(false);
    expect(hostAllowed("[::1]", ["::1"])).toBe(true);
    expect(hostAllowed("[::1]", ["[::1]"])).toBe(true);
  });
});

describe("header names", () => {
  it.each([
    ["x-api-key", "X-Api-Key"],
    ["AUTHORIZATION", "Authorization"],
    ["X-API-Key", "X-Api-Key"],
    ["x--double", "X--Double"],
    ["x_underscore", "X_underscore"],
    ["bad name", "bad name"],
  ])("canonical %s -> %s", (name, canonical) => expect(canonicalHeaderName(name)).toBe(canonical));

  it.each([
    ["Authorization", true],
    ["X-Auth-Token", true],
    ["X-API-KEY", true],
    ["X-Client-Secret", true],
    ["X-Team", false],
    ["Keep-Alive-Ish", false],
  ])("credential-like %s: %s", (name, expected) => expect(looksLikeCredential(name, DEFAULT_CREDENTIAL_NAME_FRAGMENTS)).toBe(expected));
});

describe("stacks", () => {
  it("reads the stack from a URN, including parented types", () => {
    expect(stackOfUrn(`urn:pulumi:prod-eu::proj::${TYPE_TOKENS["webhooks:Endpoint"]}::ep`)).toBe("prod-eu");
    expect(stackOfUrn("urn:pulumi:dev::proj::my:component:Thing$pulumi-nodejs:dynamic/svc/webhooks:Endpoint::ep")).toBe("dev");
    expect(stackOfUrn("not-a-urn")).toBeUndefined();
  });
  it("matches production globs", () => {
    const globs = ["prod", "prod-*", "production"];
    expect(["prod", "prod-eu", "production"].map((s) => isProductionStack(s, globs))).toEqual([true, true, true]);
    expect(["dev", "preprod", "prod2", "staging-prod", undefined].map((s) => isProductionStack(s, globs))).toEqual([false, false, false, false, false]);
  });
});

describe("token matching", () => {
  it("maps every token of sdk/tokens.ts and every native token (svc:<module>:<Type>) back to its kind, and nothing else", () => {
    for (const kind of RESOURCE_KINDS) expect(kindOf(TYPE_TOKENS[kind])).toBe(kind);
    for (const kind of RESOURCE_KINDS) expect(kindOf(`svc:${kind}`)).toBe(kind);
    expect(kindOf("svc:webhooks:Nothing")).toBeUndefined();
    expect(kindOf("pulumi-nodejs:dynamic:Resource")).toBeUndefined();
    expect(kindOf("pulumi-nodejs:dynamic/other/webhooks:Endpoint")).toBeUndefined();
  });

  it("agrees with the SDK classes that exist: each one's static __pulumiType is its kind's token", () => {
    const products: Record<string, Record<string, unknown>> = { webhooks: svc.webhooks as Record<string, unknown> };
    const present = RESOURCE_KINDS.flatMap((kind) => {
      const [product, type] = kind.split(":") as [string, string];
      const cls = products[product]?.[type] as { __pulumiType?: string } | undefined;
      return cls ? [[kind, cls.__pulumiType]] : [];
    });
    expect(present.map(([kind]) => kind)).toContain("webhooks:Endpoint");
    for (const [kind, token] of present) expect(token, kind).toBe(TYPE_TOKENS[kind as keyof typeof TYPE_TOKENS]);
  });
});

describe("plain", () => {
  it("reads past the unknown-checking proxy: unknowns become UNKNOWN, secrets are revealed, nothing throws", () => {
    const props = unknownCheckingProxy({ a: UNKNOWN_STRING, b: [1, UNKNOWN_STRING], c: { d: new Secret("s") }, e: new Secret({ f: "g" }) });
    expect(() => (props as Record<string, unknown>)["a"]).toThrow(/can't be known during preview/);
    expect(plain(props)).toEqual({ a: UNKNOWN, b: [1, UNKNOWN], c: { d: "s" }, e: { f: "g" } });
  });
});

describe("lowerCaseHost", () => {
  it.each([
    ["https://A.example.com", "https://a.example.com"],
    ["https://[FE80::AB]:8443/P", "https://[fe80::ab]:8443/P"],
    ["https://u:P@X.io/Q?R=S", "https://u:P@x.io/Q?R=S"],
  ])("%s -> %s", (url, lowered) => expect(lowerCaseHost(url)).toBe(lowered));
  it.each(["https://a.example.com/UPPER", "not a url", "mailto:X@Y"])("%s: unchanged", (url) => expect(lowerCaseHost(url)).toBeUndefined());
});
