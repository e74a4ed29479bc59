// npx tsx test/engine/cli.ts <preview|up|refresh|destroy> --cwd DIR --stack NAME
//   [--state FILE] [--config ns:key=value]... [--secret ns:key=value]...
//   [--policy-pack DIR] [--policy-config FILE] [--json]
//   [--parallel N] [--skip-preview] [--refresh] [--expect-no-changes] [--clear-pending-creates]
// Prints the human summary (or, with --json, the EngineResult) and exits as the
// CLI does (pkg/cmd/pulumi/cmd/exit_codes.go): 0, 1 failure, 7 changes where none
// were expected, 8 cancelled. The first SIGINT (or SIGTERM) cancels: no new steps,
// in-flight ones finish, the state is saved; the second terminates at once
// (pkg/backend/cancellation_scope.go), killing the program and plugin processes.

import { killChildren } from "./children";
import { runEngine } from "./engine";
import type { EngineOptions, Verb } from "../support/run-types";

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
      case "--parallel": case "-p": {
        const n = Number(value());
        if (!Number.isInteger(n) || n < 1) throw new Error(`${flag} expects a positive whole number`);
        options.parallel = n;
        break;
      }
      case "--skip-preview": options.skipPreview = true; break;
      case "--refresh": options.refresh = true; break;
      case "--expect-no-changes": options.expectNoChanges = true; break;
      case "--clear-pending-creates": options.clearPendingCreates = true; break;
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
  const cancel = new AbortController();
  const onSignal = (signal: NodeJS.Signals) => {
    if (!cancel.signal.aborted) {
      console.error(`${signal === "SIGINT" ? "^C" : signal} received; cancelling. If you would like to terminate immediately, press ^C again.`);
      cancel.abort();
      return;
    }
    console.error(`${signal === "SIGINT" ? "^C" : signal} received again; terminating.`);
    void killChildren().then(() => process.exit(8));
  };
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);
  const result = await runEngine({ ...parsed.options, signal: cancel.signal });
  if (parsed.json) {
    const { summary: _summary, ...rest } = result;
    console.log(JSON.stringify(rest, null, 2));
  } else {
    console.log(result.summary);
  }
  return result.exitCode ?? (result.ok ? 0 : 1);
}

if (require.main === module) {
  main().then(
    (code) => { process.exitCode = code; },
    (e: unknown) => { console.error(e instanceof Error ? e.stack ?? e.message : e); process.exitCode = 1; },
  );
}
