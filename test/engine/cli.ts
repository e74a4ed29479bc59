// npm run engine -- <preview|up|refresh|destroy> --cwd DIR --stack NAME
//   [--state FILE] [--config ns:key=value]... [--secret ns:key=value]...
//   [--policy-pack DIR] [--policy-config FILE] [--json]
// Prints the human summary (or, with --json, the EngineResult) and exits non-zero
// on failure.

import { runEngine } from "./engine";
import type { EngineOptions, Verb } from "./types";

const VERBS: readonly Verb[] = ["preview", "up", "refresh", "destroy"];

export function parseArgs(argv: string[]): { options: EngineOptions; json: boolean } {
  const [verb, ...rest] = argv;
  if (!verb || !VERBS.includes(verb as Verb)) throw new Error(`usage: engine <${VERBS.join("|")}> --cwd DIR --stack NAME [options]`);
  const options: EngineOptions = { verb: verb as Verb, cwd: process.cwd(), stack: "dev", config: {}, secrets: {} };
  let json = false;
  for (let i = 0; i < rest.length; i++) {
    const flag = rest[i]!;
    const value = (): string => {
      const v = rest[++i];
      if (v === undefined) throw new Error(`${flag} needs a value`);
      return v;
    };
    const pair = (): [string, string] => {
      const v = value();
      const eq = v.indexOf("=");
      if (eq <= 0) throw new Error(`${flag} expects key=value, got ${v}`);
      return [v.slice(0, eq), v.slice(eq + 1)];
    };
    switch (flag) {
      case "--cwd": options.cwd = value(); break;
      case "--stack": options.stack = value(); break;
      case "--state": options.stateFile = value(); break;
      case "--config": { const [k, v] = pair(); options.config![k] = v; break; }
      case "--secret": { const [k, v] = pair(); options.secrets![k] = v; break; }
      case "--policy-pack": options.policyPack = value(); break;
      case "--policy-config": options.policyConfig = value(); break;
      case "--json": json = true; break;
      default: throw new Error(`unknown option ${flag}`);
    }
  }
  return { options, json };
}

async function main(): Promise<number> {
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs(process.argv.slice(2));
  } catch (e) {
    console.error((e as Error).message);
    return 2;
  }
  const result = await runEngine(parsed.options);
  if (parsed.json) {
    const { summary: _summary, ...rest } = result;
    console.log(JSON.stringify(rest, null, 2));
  } else {
    console.log(result.summary);
  }
  return result.ok ? 0 : 1;
}

if (require.main === module) {
  main().then(
    (code) => { process.exitCode = code; },
    (e: unknown) => { console.error(e instanceof Error ? e.stack ?? e.message : e); process.exitCode = 1; },
  );
}
