// Every process the engine starts (program, plugin, policy pack), so that the CLI's
// second SIGINT can terminate them all and leave nothing running behind it.

import type { ChildProcess } from "node:child_process";

const running = new Set<ChildProcess>();

/** Remembers a child until it exits. */
export function trackChild<T extends ChildProcess>(child: T): T {
  running.add(child);
  child.once("exit", () => running.delete(child));
  return child;
}

/** Terminates every child still running (the second SIGINT: terminate, do not wait). */
export function killChildren(): void {
  for (const child of running) if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
}
