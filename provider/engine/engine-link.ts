/**
 * The engine that started this process, when this process is a provider plugin
 * (`@pulumi/pulumi/cmd/dynamic-provider [flags] <engine address>`, as the Pulumi CLI and
 * the engine stand-in start it, or the native `pulumi-resource-svc [flags] <engine
 * address>`; elsewhere, in a test or a program, nothing here acts).
 *
 * Why: a `pulumi` killed with SIGKILL does not take this plugin with it. The CLI starts
 * each plugin in a process group of its own (pkg/resource/plugin/plugin.go:
 * cmdutil.RegisterProcessGroup) and the SDK's dynamic-provider has no health check of its
 * engine, so the plugin lives on and its creates in flight finish. Their answers can no
 * longer reach the state. Recorded in the create journal as answered, they would be taken
 * by the next run as objects some resource holds, and made again (the first ones orphans);
 * and while this process lives, the next run's journal leaves its open entries alone. So
 * once the engine is gone this process ends, its creates in flight left open in the
 * journal as a killed process leaves them, and the next run adopts what they made.
 */
import { connect } from "node:net";

/** How often the engine is looked for while the plugin idles or waits on the service. */
const WATCH_MS = 1_000;
/** A probe with no answer by then cannot tell: the engine is taken as there. */
const PROBE_TIMEOUT_MS = 2_000;

/**
 * The engine's address: the plugin's last argument (flags such as -v=N or --tracing X come
 * before it), when this process is a plugin: the SDK's dynamic provider, or our native
 * provider (native/main.ts, `pulumi-resource-svc`), which the engine starts the same way.
 */
function engineAddress(): { host: string; port: number } | undefined {
  const [, script, ...args] = process.argv;
  if (!script || !/[\\/](cmd[\\/]dynamic-provider([\\/]index(\.js)?)?|native[\\/]main\.(js|ts)|pulumi-resource-svc)$/.test(script)) return undefined;
  const m = /^\[?([^\]\s]+?)\]?:(\d+)$/.exec(args.at(-1) ?? "");
  return m ? { host: m[1]!, port: Number(m[2]) } : undefined;
}

const engine = engineAddress();

/** Is this process a plugin some engine saves the answers of? (Elsewhere the caller holds what it is answered.) */
export const underEngine = (): boolean => engine !== undefined;

/** False once the engine refuses connections: the process serving it has exited. */
function engineThere(address: { host: string; port: number }): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(address);
    socket.setTimeout(PROBE_TIMEOUT_MS, () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", (err: NodeJS.ErrnoException) => resolve(err.code !== "ECONNREFUSED"));
  });
}

/** Returns while the engine is there to save what this process tells it; when it is gone, ends this process. */
export async function whileEngineThere(): Promise<void> {
  if (engine && !(await engineThere(engine))) process.exit(1);
}

let watching = false;

/** Ends this process within WATCH_MS of its engine's end (once started; it never keeps the process alive). */
export function watchEngine(): void {
  if (!engine || watching) return;
  watching = true;
  setInterval(() => void whileEngineThere(), WATCH_MS).unref();
}

/**
 * `fn` runs when the engine closes this process: the Pulumi CLI interrupts its plugins
 * (SIGINT to the plugin's children: sdk/go/common/resource/plugin/plugin.go, `kill`)
 * only once its steps are done and saved; the engine stand-in sends SIGTERM. Then the
 * signal is raised again, so the process ends as it would have without this hook.
 * A signal while the engine is gone is no close: `fn` does not run.
 */
export function onEngineClose(fn: () => void): void {
  const address = engine;
  if (!address) return;
  const signals = ["SIGINT", "SIGTERM"] as const;
  const handler = (signal: NodeJS.Signals) => {
    for (const s of signals) process.removeListener(s, handler);
    void engineThere(address).then((there) => {
      if (there) fn();
      process.kill(process.pid, signal);
    });
  };
  for (const s of signals) process.once(s, handler);
}
