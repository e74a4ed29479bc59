/**
 * No policy message shows a secret: `validateKinds` and `validateStackView` hand every
 * policy a `report` that hides the resource's secrets (policy/lib/redact.ts), so a
 * policy that quotes an input, ours or a user's written with this library, cannot leak
 * a custom header value, a signing secret or a URL the program marked secret.
 */
import { describe, expect, it } from "vitest";
import type { ResourceValidationPolicy, StackValidationPolicy } from "@pulumi/policy";
import { providers } from "../../provider";
import { fieldEntries } from "../../provider/engine/fields";
import { validateKinds, validateStackView } from "../../policy/lib/match";
import { ALWAYS_SECRET } from "../../policy/lib/redact";
import { RESOURCE_KINDS } from "../../sdk/tokens";
import { validateResource, validateStack } from "./harness";
import { secret } from "./wire";

const TOKEN = "tok-7f3a9c41e2";
const HEADER_VALUE = "Bearer hv-5521-bd0e";
const SIGNING = "whsec_d4c3b2a1f0e9";

/** A careless policy: it prints every input it is given, JSON and all. */
const quotesEverything: ResourceValidationPolicy = {
  name: "quotes-everything",
  description: "test",
  enforcementLevel: "mandatory",
  validateResource: validateKinds(["webhooks:Endpoint"], (inputs, _ctx, report) => {
    report(`url is ${String(inputs.url)}; inputs are ${JSON.stringify(inputs)}; token ${encodeURIComponent(TOKEN)}`);
  }),
};

describe("policy messages hide secrets", () => {
  it("a resource policy quoting a secret url, header values and the signing secret prints [secret] instead", async () => {
    const messages = await validateResource(quotesEverything, {
      kind: "webhooks:Endpoint",
      props: {
        url: secret(`https://hooks.example.com/in?token=${TOKEN}`),
        customHeaders: { Authorization: HEADER_VALUE },
        description: "orders endpoint",
        __secretInputs: ["url"],
      },
    });
    expect(messages).toHaveLength(1);
    for (const leaked of [TOKEN, HEADER_VALUE, "hooks.example.com/in"]) expect(messages[0]).not.toContain(leaked);
    expect(messages[0]).toContain("url is [secret]");
    // What is not secret still reads as written: the message stays useful.
    expect(messages[0]).toContain("orders endpoint");
  });

  it("a url the program did not mark secret is printed as it is", async () => {
    const messages = await validateResource(quotesEverything, { kind: "webhooks:Endpoint", props: { url: "https://hooks.example.com/in?v=123456" } });
    expect(messages[0]).toContain("url is https://hooks.example.com/in?v=123456");
  });

  it("a stack policy quoting outputs hides every resource's secrets", async () => {
    const quotesOutputs: StackValidationPolicy = {
      name: "quotes-outputs",
      description: "test",
      enforcementLevel: "advisory",
      validateStack: validateStackView((view, _args, report) => {
        for (const e of view.ofKind("webhooks:Endpoint")) report(`endpoint ${JSON.stringify(e.props)}`, e.urn);
      }),
    };
    const violations = await validateStack(quotesOutputs, {
      resources: [{ kind: "webhooks:Endpoint", name: "orders", props: { url: "https://hooks.example.com/a", signingSecret: secret(SIGNING), customHeaders: secret({ "X-Key": HEADER_VALUE }) } }],
    });
    expect(violations).toHaveLength(1);
    expect(violations[0]!.message).not.toContain(SIGNING);
    expect(violations[0]!.message).not.toContain(HEADER_VALUE);
    expect(violations[0]!.message).toContain("https://hooks.example.com/a");
  });

  it("the pack's always-secret fields are the provider's secret fields, kind by kind", () => {
    for (const kind of RESOURCE_KINDS) {
      const fromProvider = fieldEntries(providers[kind]!.definition)
        .filter(([, spec]) => spec.secret)
        .map(([name]) => name)
        .sort();
      expect([...(ALWAYS_SECRET[kind] ?? [])].sort(), kind).toEqual(fromProvider);
    }
  });
});
