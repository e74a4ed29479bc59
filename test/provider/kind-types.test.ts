/**
 * A kind's values are named by its field table (provider/engine/fields.ts `InputsOf`,
 * `OutputsOf`, `defineResource`; provider/registry.ts `KindInputs`): a misspelt field in
 * a hook or in a typed operation's request fails `npm run typecheck`, which compiles this
 * file (test/tsconfig.json). Each `@ts-expect-error` fails the compile when the line
 * below it compiles, so the proof is the typecheck; the runtime assertions only keep the
 * values used.
 */
import { expect, expectTypeOf, it } from "vitest";
import { defineResource } from "../../provider/engine/fields";
import { operationsFor, type CreateRequest } from "../../provider/engine/operations";
import { inboxDefinition } from "../../provider/inboxes/inbox";
import type { KindInputs, KindOutputs } from "../../provider/registry";

it("a kind's inputs are its declared fields, its outputs every field", () => {
  expectTypeOf<keyof KindInputs<"inboxes:Inbox">>().toEqualTypeOf<"label" | "phrase" | "expiresInMinutes" | "transport" | "status" | "adoptId" | "resourceName" | "profile">();
  expectTypeOf<keyof KindOutputs<"inboxes:Inbox">>().toEqualTypeOf<keyof KindInputs<"inboxes:Inbox"> | "address" | "slug" | "url" | "expiresAt" | "createdAt">();
  // @ts-expect-error `transprot` is no field of an inbox
  const misspelt: KindInputs<"inboxes:Inbox"> = { transprot: "http" };
  // @ts-expect-error an output is no input
  const output: KindInputs<"inboxes:Inbox"> = { address: "a@b.c" };
  expect([misspelt, output]).toHaveLength(2);
});

it("a hook sees its kind's fields by name: a misspelt one does not compile", () => {
  const def = defineResource({
    ...inboxDefinition,
    hooks: {
      adjustDiff(diff, olds, news) {
        const known = [olds.expiresAt, news.transport];
        // @ts-expect-error `expiresat` is no field of an inbox
        const misspelt = olds.expiresat;
        // @ts-expect-error the new inputs hold no output
        const output = news.address;
        return known.length + [misspelt, output].length > 0 ? diff : diff;
      },
    },
  });
  expect(def.fields).toBe(inboxDefinition.fields);
});

it("a typed operation's request takes the kind's field names", () => {
  const ops = operationsFor(inboxDefinition);
  const request: CreateRequest<typeof inboxDefinition.fields> = { inputs: { transport: "http", label: "bin" } };
  // @ts-expect-error `lable` is no field of an inbox
  const misspelt: Parameters<typeof ops.create>[0] = { inputs: { lable: "bin" } };
  expect(ops.definition).toBe(inboxDefinition);
  expect([request, misspelt]).toHaveLength(2);
});
