/**
 * docs/reference/ is generated (`npm run docs`, scripts/docs.ts): the committed pages
 * must be what the generator makes from the code today, and cover every kind.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { DEFINITIONS } from "../../provider/registry";
import { pageName, REFERENCE_DIR, renderReference } from "../../scripts/docs";
import { isArgument } from "../../scripts/schema";

const pages = renderReference();

describe("docs/reference", () => {
  it("is what `npm run docs` generates from the code (run it and commit the pages when this fails)", () => {
    const committed = Object.fromEntries(readdirSync(REFERENCE_DIR).map((f) => [f, readFileSync(join(REFERENCE_DIR, f), "utf8")]));
    expect(Object.keys(committed).sort()).toEqual([...pages.keys()].sort());
    for (const [file, content] of pages) expect(committed[file], `docs/reference/${file} is stale: run npm run docs`).toBe(content);
  });

  it("has a page per resource kind with every argument, an example and the configuration page", () => {
    for (const [kind, def] of Object.entries(DEFINITIONS)) {
      const page = pages.get(`${pageName(kind)}.md`)!;
      for (const [name, spec] of Object.entries(def!.fields)) {
        if (isArgument(spec)) expect(page, `${kind}.${name}`).toMatch(new RegExp(`^\\| \`${name}\` \\|`, "m"));
      }
      expect(page).toContain("## Example");
      expect(page).toContain("## Adoption");
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
  });
});
