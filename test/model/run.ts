/**
 * Runs the model: N sequences of commands (commands.ts), each in a fresh workspace
 * of one emulator, through the real Pulumi CLI or the engine stand-in. A failing
 * sequence is shrunk by fast-check to a short one and reported with its seed, the
 * replay path and what each command did.
 */
import fc from "fast-check";
import { startEmulator } from "../../emulator";
import { commandsArbitrary, startSequence, type ModelOptions, type Real } from "./commands";
import { World, type ModelEngine } from "./world";

export interface ModelRunOptions extends ModelOptions {
  /** Which engine runs the program (world.ts). */
  engine: ModelEngine;
  runs: number;
  seed: number;
  maxCommands: number;
  /** Stop starting new sequences after this long (ms); fast-check reports how many ran. */
  timeLimitMs?: number;
  /** Report the first failure as found, without shrinking it (shrinking reruns sequences). */
  noShrink?: boolean;
  /** Called after each sequence with its number and log. */
  onSequence?: (n: number, log: string[], error?: unknown) => void;
}

export interface ModelReport {
  ok: boolean;
  /** Sequences run (shrinking attempts included). */
  sequences: number;
  /** Sequences of the property's runs fast-check counted (without shrinking). */
  numRuns: number;
  interrupted: boolean;
  seed: number;
  message: string;
}

export const DEFAULT_MODEL_OPTIONS: ModelOptions = { maxResources: 4, lookAlikes: true, lateCreates: true, interruptions: true, aliases: true };

export async function runModel(o: ModelRunOptions): Promise<ModelReport> {
  const emu = await startEmulator({ port: 0 });
  let sequences = 0;
  try {
    const property = fc.asyncProperty(commandsArbitrary(o, o.maxCommands), async ({ initial, commands }) => {
      const n = sequences++;
      const world = await World.create(emu, String(n), o.engine, o.freshRunners);
      const real: Real = { world, options: o, log: [] };
      let error: unknown;
      try {
        const model = await startSequence(initial, real);
        await fc.asyncModelRun(() => ({ model, real }), commands);
      } catch (e) {
        error = e;
        const message = e instanceof Error ? e.message : String(e);
        throw new Error(`${message}\n  what the sequence did:\n    ${real.log.join("\n    ")}`);
      } finally {
        world.dispose();
        o.onSequence?.(n, real.log, error);
      }
    });
    const details = await fc.check(property, {
      numRuns: o.runs,
      seed: o.seed,
      endOnFailure: o.noShrink ?? false,
      interruptAfterTimeLimit: o.timeLimitMs,
      markInterruptAsFailure: false,
    });
    const cause = details.errorInstance instanceof Error ? details.errorInstance.message : String(details.errorInstance ?? "");
    const message = details.failed ? `${fc.defaultReportMessage(details) ?? "failed"}\n${cause}` : `${details.numRuns} sequences passed (seed ${o.seed})${details.interrupted ? ", stopped at the time limit" : ""}`;
    return { ok: !details.failed, sequences, numRuns: details.numRuns, interrupted: details.interrupted, seed: o.seed, message };
  } finally {
    await emu.close();
  }
}
