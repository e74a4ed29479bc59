// How many resource operations run at once, as the CLI decides it, and the
// limiter that holds the rest back.

import * as os from "node:os";

/**
 * `--parallel`'s default, as pulumi/pulumi's `defaultParallel`
 * (pkg/cmd/pulumi/operations/up.go): PULUMI_PARALLEL when it is a positive number,
 * else 4 x GOMAXPROCS (Go's GOMAXPROCS defaults to the CPUs available to the
 * process, which is what os.availableParallelism() reports).
 */
export function defaultParallel(env: NodeJS.ProcessEnv = process.env): number {
  const fromEnv = Number(env["PULUMI_PARALLEL"]);
  if (Number.isInteger(fromEnv) && fromEnv > 0) return fromEnv;
  return 4 * os.availableParallelism();
}

/** Runs at most `n` of the given functions at a time, in the order they were handed in. */
export function limiter(n: number): <T>(f: () => Promise<T>) => Promise<T> {
  let running = 0;
  const waiting: (() => void)[] = [];
  return async <T>(f: () => Promise<T>): Promise<T> => {
    if (running >= n) await new Promise<void>((resolve) => waiting.push(resolve));
    running++;
    try {
      return await f();
    } finally {
      running--;
      waiting.shift()?.();
    }
  };
}
