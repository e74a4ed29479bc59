#!/usr/bin/env node
/**
 * `pulumi-svc-emulator [flags]` (or `npm run emulator -- [flags]`); `--help` lists the
 * flags (emulator/cli-options.ts) and exit codes. Starts the emulator on 127.0.0.1 and
 * prints its URL and where the default keys are. SIGINT/SIGTERM stop it after flushing
 * the state file.
 */
import { startEmulator } from "./index";
import { acceptedFlags, helpText, parseCommandLine, UsageError } from "./cli-options";

async function main() {
  const { options, help } = parseCommandLine(process.argv.slice(2));
  if (help) return void process.stdout.write(helpText());
  const emu = await startEmulator(options);
  process.stdout.write(`svc emulator listening on ${emu.url}\n`);
  process.stdout.write(`  webhooksUrl ${emu.webhooksUrl}\n  inboxesUrl  ${emu.inboxesUrl}\n  infraUrl    ${emu.infraUrl}\n`);
  process.stdout.write(`  keys:       curl ${emu.url}/_emulator/keys\n`);
  const stop = () => void emu.close().then(() => process.exit(0), (err) => {
    process.stderr.write(`emulator failed to stop cleanly: ${(err as Error).message}\n`);
    process.exit(1);
  });
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
}

main().catch((err) => {
  if (err instanceof UsageError) {
    process.stderr.write(`pulumi-svc-emulator: ${err.message}\n${acceptedFlags()}\n(see --help)\n`);
    process.exit(2);
  }
  process.stderr.write(`emulator failed to start: ${(err as Error).message}\n`);
  process.exit(1);
});
