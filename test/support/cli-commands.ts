/**
 * A count of the real Pulumi CLI commands each test file runs, for the summary reporter
 * (summary-reporter.ts), which prints it beside the file's time: each command costs 2-8 s of
 * CPU, so the count is what a file's time is mostly made of (issue 36).
 *
 * The reporter names a directory in `SVC_TEST_CLI_COMMANDS_DIR` before the workers start
 * (they inherit it; it goes when vitest exits); each command the harness starts (test/support/pulumi-cli.ts, and the
 * few tests that start `pulumi` themselves) appends one line, "<test file>\t<verb>", to
 * its worker's file there. Outside a vitest worker, or without the variable (a script that
 * imports the harness), nothing is written. Commands started by a script a test runs
 * (scripts/demo.ts, examples/gitops/preview-ci.ts) are not counted.
 */
import { appendFileSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { join } from "node:path";

export const CLI_COMMANDS_DIR_ENV = "SVC_TEST_CLI_COMMANDS_DIR";

/** Commands whose subcommand a count names too (`stack init`, `stack export`, `config set-all`). */
const GROUPS = new Set(["stack", "config", "plugin", "package", "policy", "state"]);

/**
 * The command's name as a count shows it: its verb (`up`, `preview`, `refresh`, `destroy`,
 * `import`...), the first argument that is not a flag, and a group's subcommand after it;
 * `--skip-preview` beside it when given (an up, refresh or destroy then runs once, not twice).
 */
export function commandVerb(args: readonly string[]): string {
  const words = args.filter((a) => !a.startsWith("-"));
  if (words.length === 0) return "pulumi";
  const verb = GROUPS.has(words[0]!) && words[1] ? `${words[0]} ${words[1]}` : words[0]!;
  return args.includes("--skip-preview") ? `${verb} --skip-preview` : verb;
}

/** Records one `pulumi ARGS` started by the test file this worker runs (see above). */
export function countCliCommand(args: readonly string[]): void {
  const dir = process.env[CLI_COMMANDS_DIR_ENV];
  // vitest's worker state names the file it runs (also in beforeAll/afterAll, where no test is current).
  const file = (globalThis as { __vitest_worker__?: { filepath?: string } }).__vitest_worker__?.filepath;
  if (!dir || !file) return;
  try {
    appendFileSync(join(dir, `${process.pid}.tsv`), `${file}\t${commandVerb(args)}\n`);
  } catch {
    // the reporter's directory is gone (vitest is exiting): a count is not worth failing a test for
  }
}

/** Per test file (absolute path), the commands its tests ran, by verb; `clear`: each worker's file removed once read. */
export function readCliCommands(dir: string, { clear = false } = {}): Map<string, Map<string, number>> {
  const counts = new Map<string, Map<string, number>>();
  for (const name of readdirSync(dir)) {
    const text = readFileSync(join(dir, name), "utf8");
    if (clear) rmSync(join(dir, name), { force: true });
    for (const line of text.split("\n")) {
      const tab = line.lastIndexOf("\t");
      if (tab < 0) continue;
      const [file, verb] = [line.slice(0, tab), line.slice(tab + 1)];
      const byVerb = counts.get(file) ?? new Map<string, number>();
      byVerb.set(verb, (byVerb.get(verb) ?? 0) + 1);
      counts.set(file, byVerb);
    }
  }
  return counts;
}
