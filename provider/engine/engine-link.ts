/**
 * The engine that started this process, when this process is a provider plugin
 * (`@pulumi/pulumi/cmd/dynamic-provider [flags] <engine address>`, as the Pulumi CLI
 * starts it, or the native `pulumi-resource-svc [flags] <engine address>`; elsewhere, in
 * a test or a program, nothing here acts).
 *
 * Why: a `pulumi` killed with SIGKILL does not take this plugin with it. The CLI starts
 * each plugin in a process group of its own (pkg/resource/plugin/plugin.go:
 * cmdutil.RegisterProcessGroup) and the SDK's dynamic-provider has no health check of its
 * engine, so the plugin would live on, its creates in flight finishing with answers that
 * can no longer reach the state, and stay as a stray process. So once the engine is gone
 * this process ends: what its interrupted creates made is found from the state's pending
 * creates (`pulumi-svc recover`, by the owner marks).
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

/** When the engine is gone, ends this process. */
async function endWithoutEngine(): Promise<void> {
  if (engine && !(await engineThere(engine))) process.exit(1);
}

/** Process-wide: the process has one engine to watch, whatever the operation. */
let watching = false;

/** Ends this process within WATCH_MS of its engine's end (once started; it never keeps the process alive). */
export function watchEngine(): void {
  if (!engine || watching) return;
  watching = true;
  setInterval(() => void endWithoutEngine(), WATCH_MS).unref();
}
