/**
 * docs/reference/ is generated (`npm run generate`, scripts/docs.ts; test/schema/generated.test.ts checks it is current): the pages
 * cover every kind.
 */
import { describe, expect, it } from "vitest";
import { DEFINITIONS } from "../../provider/registry";
import * as svc from "../../sdk";
import { pageName, renderReference } from "../../scripts/docs";
import { isArgument } from "../../scripts/schema";

const pages = renderReference();

describe("docs/reference", () => {
  it("has a page per resource kind with every argument, an example and the configuration page", () => {
    for (const [kind, def] of Object.entries(DEFINITIONS)) {
      const page = pages.get(`${pageName(kind)}.md`)!;
      for (const [name, spec] of Object.entries(def!.fields)) {
        if (isArgument(spec)) expect(page, `${kind}.${name}`).toMatch(new RegExp(`^\\| \`${name}\` \\|`, "m"));
      }
      expect(page).toContain("## Example");
      expect(page).toContain("## Adoption");
      // What `pulumi import` takes, for every kind (the settings by scope).
      expect(page, kind).toMatch(/^Its id \(for `get` and `pulumi import`\) is .*; one of a named profile \(`svc:profiles`\) is imported as `profile:<name>\/<id>`\.$/m);
    }
    expect(pages.get("configuration.md")).toContain("`svc:webhooksApiKey`");
  });

  it("says which arguments replace and which are secrets, from the definitions and the schema", () => {
    const endpoint = pages.get("webhooks-endpoint.md")!;
    expect(endpoint).toMatch(/^\| `projectId` .*\*\*replaces\*\*/m);
    expect(endpoint).toMatch(/^\| `url` .*update \(one PATCH/m);
    expect(endpoint).toMatch(/^\| `customHeaders` .*\| secret \|/m);
    expect(endpoint).toMatch(/^\| `signingSecret` .*\| secret \|/m);
    expect(pages.get("inboxes-inbox.md")!).toContain("String should have at most 200 characters");
    expect(pages.get("webhooks-event-type.md")!).toContain("a bare `<name>` names the workspace-wide entry too, and an import by it keeps that id");
    expect(pages.get("infra-quota-limits.md")!).toContain("is its scope: `<service>/<region>`");
  });

  // Issue 25, item 10: "say which [walk rule] in the reference page".
  it("has a functions page listing every data function of the SDK, each with how it reads, and the walk rule of provider/walk.ts", () => {
    const page = pages.get("functions.md")!;
    for (const [product, members] of Object.entries({ webhooks: svc.webhooks, inboxes: svc.inboxes, infra: svc.infra })) {
      const functions = Object.entries(members).filter(([name, value]) => typeof value === "function" && /^get[A-Z]/.test(name));
      expect(functions.length, product).toBeGreaterThan(0);
      for (const [name] of functions) expect(page, `svc.${product}.${name}`).toMatch(new RegExp(`^\\| \`${name}\\(`, "m"));
    }
    expect(page).toMatch(/^\| `getDeliveries\(.*\| every page, each object once, as the list stood when the call began \(rules 1 and 2\) \|/m);
    expect(page).toMatch(/^\| `getMessages\(.*\(rules 1 and 2\) \|/m);
    expect(page).toMatch(/^\| `getEndpoints\(.*\| every page, each object once \(rule 1\) \|/m);
    expect(page).toMatch(/^1\. Every walk keeps each object once/m);
    expect(page).toMatch(/^2\. A newest-first list with an inclusive `until` bound/m);
    expect(pages.get("README.md")).toContain("(functions.md)");
  });
});
