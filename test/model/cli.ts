// npm run model -- [--engine stand-in|cli] [--fresh-runners] [--runs N] [--seed S] [--commands N] [--minutes M] [--no-shrink]
//                  [--no-look-alikes] [--no-late-creates] [--no-interruptions] [--no-aliases] [--max-resources N]
// The model-based test of the whole lifecycle (test/model/README.md). Prints each
// sequence as it ends and, on a failure, the shrunk sequence with its seed.
import { PULUMI_CLI_MISSING } from "../support/pulumi-cli";
import { DEFAULT_MODEL_OPTIONS, runModel, type ModelRunOptions } from "./run";

function parse(argv: string[]): ModelRunOptions {
  const o: ModelRunOptions = { ...DEFAULT_MODEL_OPTIONS, engine: "stand-in", runs: 20, seed: Date.now() % 2 ** 31, maxCommands: 8 };
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i]!;
    const num = () => {
      const v = Number(argv[++i]);
      if (!Number.isFinite(v)) throw new Error(`${flag} needs a number`);
      return v;
    };
    switch (flag) {
      case "--engine": {
        const engine = argv[++i];
        if (engine !== "cli" && engine !== "stand-in") throw new Error(`--engine takes cli (the real Pulumi CLI, \`npm run pulumi:install\`) or stand-in, not ${engine ?? "nothing"}`);
        if (engine === "cli" && PULUMI_CLI_MISSING) throw new Error(`--engine cli: ${PULUMI_CLI_MISSING}`);
        o.engine = engine;
        break;
      }
      case "--runs": o.runs = num(); break;
      case "--seed": o.seed = num(); break;
      case "--commands": o.maxCommands = num(); break;
      case "--minutes": o.timeLimitMs = num() * 60_000; break;
      case "--max-resources": o.maxResources = num(); break;
      case "--no-shrink": o.noShrink = true; break;
      case "--fresh-runners": o.freshRunners = true; break;
      case "--no-look-alikes": o.lookAlikes = false; break;
      case "--no-late-creates": o.lateCreates = false; break;
      case "--no-interruptions": o.interruptions = false; break;
      case "--no-aliases": o.aliases = false; break;
      default: throw new Error(`unknown option ${flag}`);
    }
  }
  return o;
}

async function main(): Promise<number> {
  const o = parse(process.argv.slice(2));
  console.log(`model: ${o.runs} sequences of up to ${o.maxCommands} commands through the ${o.engine === "cli" ? "real Pulumi CLI" : "engine stand-in"}${o.freshRunners ? " on fresh runners" : ""}, seed ${o.seed}${o.lookAlikes ? "" : ", no look-alikes"}${o.lateCreates ? "" : ", no late creates"}${o.interruptions ? "" : ", no interruptions"}${o.aliases ? "" : ", no renames of settings"}`);
  const started = Date.now();
  const report = await runModel({
    ...o,
    onSequence: (n, log, error) => {
      console.log(`sequence ${n} ${error ? "FAILED" : "ok"} (${((Date.now() - started) / 1000).toFixed(0)} s): ${log.join(" | ")}`);
      if (error) console.log(`  ${error instanceof Error ? error.message.split("\n")[0] : String(error)}`);
    },
  });
  console.log(report.message);
  console.log(`${report.sequences} sequences run in ${((Date.now() - started) / 60_000).toFixed(1)} min (seed ${report.seed})`);
  return report.ok ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (e: unknown) => {
    console.error(e instanceof Error ? (e.stack ?? e.message) : e);
    process.exit(2);
  },
);
