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

/**
 * Terminates every child still running (the second SIGINT: terminate, do not wait for
 * their work) and resolves once each has exited: a SIGKILL is delivered asynchronously,
 * so a caller that exits at once could leave a child alive behind it for a moment.
 */
export function killChildren(): Promise<void> {
  // A child that never started (spawn failed: no pid) has no exit to wait for.
  const children = [...running].filter((child) => child.pid !== undefined);
  const gone = children.map((child) => new Promise<void>((resolve) => child.once("exit", () => resolve())));
  for (const child of children) child.kill("SIGKILL");
  return Promise.all(gone).then(() => undefined);
}
