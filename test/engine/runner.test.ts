// One lifecycle scenario, run by every runner that can run here: the engine
// stand-in always, the real engine (Automation API) where `pulumi` is on PATH.

import { describe, expect, test } from "vitest";
import { kvScenarios, errors, opsByName, type KvSpec } from "./kv-scenario";
import { cliRunner, type StackRunner } from "../support/runner";
import { standInRunner } from "./runner";

const scenario = kvScenarios();

const program = (value: number, withC = true): KvSpec[] => [
  { name: "a", props: { label: "a", value } },
  { name: "b", props: { label: "b", value: { $ref: "a.computed" } } },
  ...(withC ? [{ name: "c", props: { label: "c", value: 0, replaceOn: ["label"] } }] : []),
];

for (const runner of [standInRunner, cliRunner] as StackRunner[]) {
  const reason = runner.unavailable;
  if (reason) {
    // Printed so that a skipped suite says why, in the test log.
    console.log(`skipping the ${runner.name} runner: ${reason}`);
  }
  describe.skipIf(reason !== undefined)(`lifecycle via the ${runner.name} runner`, () => {
    test("preview, up, update, remove, refresh after drift, destroy", async () => {
      const s = scenario("dev", runner);
      const preview = await s.run("preview", program(1));
      expect(preview.ok, errors(preview)).toBe(true);
      expect(opsByName(preview.steps)).toEqual({ a: "create", b: "create", c: "create" });
      expect(s.objects()).toEqual({});

      const up = await s.run("up", program(1));
      expect(up.ok, errors(up)).toBe(true);
      expect(Object.keys(s.objects())).toHaveLength(3);

      const update = await s.run("up", program(2, false));
      expect(update.ok, errors(update)).toBe(true);
      expect(opsByName(update.steps)).toMatchObject({ a: "update", b: "update", c: "delete" });
      expect(Object.keys(s.objects())).toHaveLength(2);

      const [idA] = Object.entries(s.objects()).find(([, o]) => o["label"] === "a")!;
      s.writeObject(idA, { label: "a", value: 99 });
      const refresh = await s.run("refresh", program(2, false));
      expect(refresh.ok, errors(refresh)).toBe(true);
      expect(opsByName(refresh.steps)["a"]).toBe("update");

      const destroy = await s.run("destroy", program(2, false));
      expect(destroy.ok, errors(destroy)).toBe(true);
      expect(s.objects()).toEqual({});
    });
  });
}
