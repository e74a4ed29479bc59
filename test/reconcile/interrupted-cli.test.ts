/**
 * A real `pulumi up` (the CLI of `npm run pulumi:install`) interrupted while its creates
 * are in flight, against the emulator: two look-alike endpoints and a request bin. For the
 * SIGINT the service holds each create SLOW_MS before it answers (a latency fault; the
 * emulator makes nothing for a client gone meanwhile); for the kills it drops each create's
 * connection and makes the object SLOW_MS later (the create in flight inside the service),
 * so the objects exist whatever became of the run.
 *
 * - The first SIGINT (Ctrl-C): the CLI cancels; the creates in flight finish and are saved.
 * - SIGKILL of the `pulumi` process: what a CI runner does last to a step that ignored its
 *   SIGINT and SIGTERM (GitHub Actions' runner on Linux kills the step's entry process,
 *   not its tree), a `timeout -s KILL`, the OOM killer. The CLI starts each plugin in a
 *   process group of its own, so killing pulumi's group kills pulumi alone too: the
 *   dynamic-provider plugin, with the creates, lives on.
 * - SIGKILL of every process of the run at once: a container or machine stopped.
 *
 * After each, the next run leaves exactly one object per resource and the state holds
 * them: the provider adopts what the interrupted creates made (its create journal,
 * provider/engine/create-journal.ts) instead of creating them again.
 *
 * What CLI v3.274.1 does (seen here, and read in pkg/v3@v3.274.1):
 * - First SIGINT: "^C received; cancelling"; no new step starts, the steps in flight
 *   finish and are saved, no pending operation is left; the update ends as failed,
 *   "update canceled", exit 1 (the engine's bail error; exit 8 is only for a
 *   context.Canceled at the command level: cmd/exit_codes.go). The plugins are closed and
 *   every journal entry is settled.
 * - SIGKILL: the checkpoint holds one `creating` pending operation per create in flight,
 *   and the stack's lock stays (`pulumi cancel` removes it). The next `up` warns
 *   "Attempting to deploy or update resources with N pending operations" and creates
 *   those resources again, which the journal turns into adoptions.
 * - Pending creates are carried into every later checkpoint (backend/snapshot.go):
 *   `up` and a non-interactive `refresh` keep them; only an interactive refresh,
 *   `refresh --clear-pending-creates` or `--import-pending-creates URN ID` resolve them.
 */
import { describe, expect, it } from "vitest";
import type { EngineResult } from "../engine/types";
import { call, control, useEmulator } from "../support/emulator";
import { PULUMI_CLI_MISSING, pulumiSync, runCli, stackProcesses, type CliOptions } from "../support/pulumi-cli";
import { errorsOf, expectOnePerResource, RUNS_TIMEOUT_MS, useReconcileStacks, type LookAlikes, type ReconcileStack } from "./support";

const emu = useEmulator();
const stack = useReconcileStacks(emu);

/** How long after the request the service makes each object: the run is interrupted meanwhile. */
const SLOW_MS = 4_000;
const spec: LookAlikes = { endpoints: 2, bins: 1, windowSeconds: 10 };
const CREATES = 3;

async function until(cond: () => boolean | Promise<boolean>): Promise<void> {
  // No deadline of its own: the test's timeout bounds it.
  while (!(await cond())) await new Promise((r) => setTimeout(r, 100));
}

const run = (s: ReconcileStack, verb: CliOptions["verb"], more: Partial<CliOptions> = {}) => runCli({ ...s.options(verb, spec), ...more });

/** An up interrupted once every create reached the service (each took its latency fault). */
async function interruptedUp(s: ReconcileStack, interrupt: (abort: () => void, options: CliOptions) => void, abortWith: CliOptions["abortWith"]): Promise<EngineResult> {
  const slow = abortWith === "SIGINT" ? { latency_ms: SLOW_MS } : { drop_then_act_ms: SLOW_MS };
  await control(emu(), "POST", "/faults", { method: "POST", path: "/webhooks/v1/endpoints", ...slow, count: 2 });
  await control(emu(), "POST", "/faults", { method: "POST", path: "/inboxes/v1/inboxes", ...slow, count: 1 });
  const ac = new AbortController();
  const options: CliOptions = { ...s.options("up", spec), signal: ac.signal, abortWith };
  const up = runCli(options);
  await until(async () => (await control<{ faults: unknown[] }>(emu(), "GET", "/faults")).faults.length === 0);
  interrupt(() => ac.abort(), options);
  return up;
}


/** The objects the interrupted creates made, once the service has made them all. */
async function madeByTheInterruptedRun(s: ReconcileStack): Promise<string[]> {
  await until(async () => (await s.endpoints()).length + (await s.bins()).length === CREATES);
  return [...(await s.endpoints()), ...(await s.bins())].sort();
}

/**
 * An up of `spec` (endpoints declaring a status, so a PATCH follows each create) killed
 * (SIGKILL of `pulumi`) after the create's answer reached the provider: the PATCH is held,
 * and pulumi killed once it reached the service, so the CLI never saves the answer. The
 * stack cancelled; the objects made.
 */
async function killedAfterTheAnswer(s: ReconcileStack, spec: LookAlikes): Promise<string[]> {
  await control(emu(), "POST", "/faults", { method: "PATCH", path: "/webhooks/v1/endpoints/*", latency_ms: 30_000, count: 1 });
  const ac = new AbortController();
  const options: CliOptions = { ...s.options("up", spec), signal: ac.signal, abortWith: "SIGKILL" };
  const up = runCli(options);
  await until(async () => (await control<{ faults: unknown[] }>(emu(), "GET", "/faults")).faults.length === 0);
  ac.abort();
  const killed = await up;
  expect(killed.ok).toBe(false);
  expect(s.state().ids).toEqual([]);
  expect(s.state().pending).toEqual(["creating"]);
  await until(() => stackProcesses(options).length === 0);
  const made = await s.endpoints();
  expect(made).toHaveLength(1);
  pulumiSync(options, ["cancel", "--yes", "--stack", options.stack]);
  return made;
}

if (PULUMI_CLI_MISSING) console.log(`interrupted runs under the real CLI: skipped: ${PULUMI_CLI_MISSING}`);
describe.skipIf(PULUMI_CLI_MISSING !== undefined)("a real `pulumi up` interrupted with creates in flight", () => {
  it("the first SIGINT: the creates in flight finish and are saved, nothing is pending or left running, and the next up changes nothing", async () => {
    const s = await stack("cli-sigint");
    const up = await interruptedUp(s, (abort) => abort(), "SIGINT");
    // CLI v3.274.1 ends a cancelled update as a failed one ("update canceled", exit 1), not with exit 8.
    expect(up.ok).toBe(false);
    expect(up.summary).toContain("received; cancelling");
    expect(up.diagnostics.map((d) => d.message)).toContain("update canceled");
    expect(up.pendingOperations).toEqual([]);
    await expectOnePerResource(s, spec);
    expect(stackProcesses(s.options("up", spec))).toEqual([]);

    const again = await run(s, "up");
    expect(again.ok, errorsOf(again)).toBe(true);
    expect(again.steps.filter((st) => st.op !== "same")).toEqual([]);
    await expectOnePerResource(s, spec);
  }, RUNS_TIMEOUT_MS);

  it("SIGKILL of pulumi: the plugin leaves with its engine; after `pulumi cancel` the next up adopts what the creates made (the pending creates stay until a refresh clears them)", async () => {
    const s = await stack("cli-sigkill");
    const killed = await interruptedUp(s, (abort) => abort(), "SIGKILL");
    expect(killed.ok).toBe(false);
    expect(killed.pendingOperations.map((p) => p.op)).toEqual(Array(CREATES).fill("creating"));
    expect(s.state().ids).toEqual([]);
    // Nothing of the killed run stays running: the dynamic-provider plugin, left behind in a
    // process group of its own, ends once its engine is gone (else it lives on, forever).
    await until(() => stackProcesses(s.options("up", spec)).length === 0);
    const made = await madeByTheInterruptedRun(s);

    // The killed CLI left its lock on the stack: the rerun is refused until `pulumi cancel`, as the CLI says.
    const locked = await run(s, "up");
    expect(locked.ok).toBe(false);
    expect(locked.summary).toContain("pulumi cancel");
    pulumiSync(s.options("up", spec), ["cancel", "--yes", "--stack", "cli-sigkill"]);

    const up = await run(s, "up");
    expect(up.ok, errorsOf(up)).toBe(true);
    expect(up.summary).toContain(`with ${CREATES} pending operations from previous deployment`);
    await expectOnePerResource(s, spec);
    expect(s.state().ids).toEqual(made);
    // CLI v3.274.1 keeps pending creates through every up and every refresh without
    // --clear-pending-creates (backend/snapshot.go): they need the user's word.
    expect(s.state().pending).toEqual(Array(CREATES).fill("creating"));
    const again = await run(s, "up");
    expect(again.ok, errorsOf(again)).toBe(true);
    expect(again.steps.filter((st) => st.op !== "same")).toEqual([]);
  }, RUNS_TIMEOUT_MS);

  it("SIGKILL of pulumi after a create was answered, before it saved the answer: the next up adopts that object instead of making a second", async () => {
    const s = await stack("cli-sigkill-answered");
    const answered: LookAlikes = { endpoints: 1, endpointStatus: "disabled", windowSeconds: 10 };
    const made = await killedAfterTheAnswer(s, answered);

    const rerun = await runCli(s.options("up", answered));
    expect(rerun.ok, errorsOf(rerun)).toBe(true);
    await expectOnePerResource(s, answered);
    expect(s.state().ids).toEqual(made);
    const again = await runCli(s.options("up", answered));
    expect(again.ok, errorsOf(again)).toBe(true);
    expect(again.steps.filter((st) => st.op !== "same")).toEqual([]);
  }, RUNS_TIMEOUT_MS);

  it("the same, with the endpoint's description and maxAttempts edited before the rerun: it adopts that object and brings it to the declared values", async () => {
    const s = await stack("cli-sigkill-answered-edited");
    const answered: LookAlikes = { endpoints: 1, endpointStatus: "disabled", endpointDescription: "first", maxAttempts: 5, windowSeconds: 10 };
    const made = await killedAfterTheAnswer(s, answered);

    const edited: LookAlikes = { ...answered, endpointDescription: "edited", maxAttempts: 7 };
    const rerun = await runCli(s.options("up", edited));
    expect(rerun.ok, errorsOf(rerun)).toBe(true);
    await expectOnePerResource(s, edited);
    expect(s.state().ids).toEqual(made);
    const [object] = (await call(emu(), "GET", `/webhooks/v1/endpoints?limit=200`, { key: s.keys.webhooks.admin })).body.data as Record<string, unknown>[];
    expect(object).toMatchObject({ id: made[0], description: "edited", max_attempts: 7, status: "disabled" });
    const again = await runCli(s.options("up", edited));
    expect(again.ok, errorsOf(again)).toBe(true);
    expect(again.steps.filter((st) => st.op !== "same")).toEqual([]);
  }, RUNS_TIMEOUT_MS);

  it("SIGKILL of every process of the run (a container stopped): a plain refresh keeps the pending creates, the next up adopts, refresh --clear-pending-creates clears them", async () => {
    const s = await stack("cli-sigkill-all");
    const killed = await interruptedUp(
      s,
      (_abort, options) => {
        for (const pid of stackProcesses(options)) process.kill(pid, "SIGKILL");
      },
      undefined,
    );
    expect(killed.ok).toBe(false);
    expect(killed.pendingOperations.map((p) => p.op)).toEqual(Array(CREATES).fill("creating"));
    const made = await madeByTheInterruptedRun(s);
    pulumiSync(s.options("up", spec), ["cancel", "--yes", "--stack", "cli-sigkill-all"]);

    // A non-interactive refresh neither clears nor imports pending creates: it keeps them.
    const refresh = await run(s, "refresh");
    expect(refresh.ok, errorsOf(refresh)).toBe(true);
    expect(s.state().pending).toEqual(Array(CREATES).fill("creating"));
    expect(s.state().ids).toEqual([]);

    const up = await run(s, "up");
    expect(up.ok, errorsOf(up)).toBe(true);
    await expectOnePerResource(s, spec);
    expect(s.state().ids).toEqual(made);

    const cleared = await run(s, "refresh", { clearPendingCreates: true });
    expect(cleared.ok, errorsOf(cleared)).toBe(true);
    expect(s.state().pending).toEqual([]);
    await expectOnePerResource(s, spec);
  }, RUNS_TIMEOUT_MS);
});
