#!/usr/bin/env node
/**
 * `npm run emulator -- --port 4010 [--state-file PATH] [--allow-loopback-targets] [--plan free|pro|enterprise] [--bin-public-url https://bins.svc.test]`
 * Starts the emulator on 127.0.0.1 and prints its URL and the default keys' location.
 */
import { parseArgs } from "node:util";
import { startEmulator } from "./index";
import type { PlanName } from "./core/plans";

async function main() {
  const { values } = parseArgs({
    options: {
      port: { type: "string", default: "4010" },
      "state-file": { type: "string" },
      "allow-loopback-targets": { type: "boolean", default: false },
      plan: { type: "string" },
      "bin-public-url": { type: "string" },
    },
  });
  const emu = await startEmulator({
    port: Number(values.port),
    stateFile: values["state-file"],
    allowLoopbackTargets: values["allow-loopback-targets"],
    defaultPlan: values.plan as PlanName | undefined,
    binPublicUrl: values["bin-public-url"],
  });
  process.stdout.write(`svc emulator listening on ${emu.url}\n`);
  process.stdout.write(`  webhooksUrl ${emu.webhooksUrl}\n  inboxesUrl  ${emu.inboxesUrl}\n  infraUrl    ${emu.infraUrl}\n`);
  process.stdout.write(`  keys:       curl ${emu.url}/_emulator/keys\n`);
  const stop = () => void emu.close().then(() => process.exit(0));
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
}

main().catch((err) => {
  process.stderr.write(`emulator failed to start: ${(err as Error).message}\n`);
  process.exit(1);
});
