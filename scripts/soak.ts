/**
 * `npm run soak [-- --resources 200 --rate 0.2 --seed 7 --parallel 16]`: an up of a
 * mixed stack against the emulator injecting faults on a seeded schedule, the
 * emulator's holdings checked (zero duplicates, zero orphans), a destroy that must
 * leave nothing; prints retries, waits and every unknown create outcome. Exits 1
 * unless it converged. See test/soak/scenario.ts.
 */
import { parseArgs } from "node:util";
import { closeSharedDispatcher } from "../provider/client";
import { formatSoak, runSoak } from "../test/soak/scenario";

async function main() {
  const { values } = parseArgs({
    options: { resources: { type: "string", default: "200" }, rate: { type: "string", default: "0.2" }, seed: { type: "string", default: "7" }, parallel: { type: "string", default: "16" } },
  });
  const opts = { resources: Number(values.resources), rate: Number(values.rate), seed: Number(values.seed), parallel: Number(values.parallel) };
  const started = Date.now();
  const report = await runSoak(opts);
  process.stdout.write(`${formatSoak(opts, report)}\n  wall time ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
  await closeSharedDispatcher();
  process.exitCode = report.converged ? 0 : 1;
}

main().catch((err) => {
  process.stderr.write(`${(err as Error).stack}\n`);
  process.exit(1);
});
