/**
 * Refused previews of a Python program under the real CLI: the provider refuses a value at
 * preview (Check), the engine stops the run without waiting for the program and the CLI
 * interrupts the language host's process group while the program is still unwinding its
 * RPCs. What the user reads is the provider's diagnostic alone: before the runner
 * (scripts/pulumi-cli/python-exec.py) exited quietly on that interrupt, 2 to 4 of 11 such
 * previews printed Python's KeyboardInterrupt traceback (`_InactiveRpcError ... resource
 * monitor shut down`) above it. Several runs, because it depends on timing.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { releasePart } from "../release/artifacts";
import { lastSeq, requestsSince, useEmulator } from "../support/emulator";
import { PYTHON_MISSING, pythonProgram, requirePython } from "./python";
import { nativeStack, writesOf } from "./support";

const emu = useEmulator();

/** Several resources, each refused at preview (a URL that is not https), so the engine stops with RPCs of the program in flight. */
const PROGRAM = `
import pulumi_svc as svc

for i in range(6):
    svc.webhooks.Endpoint(f"ep{i}", url=f"http://hooks.example.com/{i}", max_attempts=5)
svc.inboxes.Inbox("bin", label="first")
`;

const RUNS = 8;

requirePython();
if (PYTHON_MISSING) console.log(`refused Python previews: skipped: ${PYTHON_MISSING}`);
describe.skipIf(PYTHON_MISSING !== undefined)("refused previews of a Python program", () => {
  // The virtualenv a user makes: the released wheel pip-installed (test/release/artifacts.ts).
  let venv = "";
  beforeAll(async () => {
    venv = await releasePart("venv");
  }, 300_000);

  it(`${RUNS} refused previews each print the provider's diagnostic and no traceback`, { timeout: 300_000 }, async () => {
    const s = await nativeStack(emu(), "native-python-refused", pythonProgram(PROGRAM, venv));
    const since = await lastSeq(emu());
    for (let i = 0; i < RUNS; i++) {
      const preview = await s.run("preview");
      expect(preview.ok).toBe(false);
      expect(preview.summary).toMatch(/property url value \{http:\/\/hooks\.example\.com\/\d\} has a problem: The endpoint URL must be an absolute https:\/\/ URL\./);
      expect(preview.summary).not.toMatch(/Traceback|_InactiveRpcError|KeyboardInterrupt|resource monitor shut down|Resource monitor has terminated/);
    }
    expect(writesOf(await requestsSince(emu(), since))).toEqual([]);
  });
});
