/**
 * `pulumi-svc/testing`: the emulator for your own tests. Starts one on a free port
 * (or connects to one started with `npx pulumi-svc-emulator`) and hands back the
 * stack config a program needs, plus the emulator's control plane: fault injection,
 * the request log and a reset between tests.
 *
 *   import { startTestEmulator } from "pulumi-svc/testing";
 *   const emu = await startTestEmulator();
 *   // emu.config: { "svc:webhooksUrl": ..., "svc:webhooksApiKey": ..., ... } for `pulumi config set`
 *   //             or the Automation API's stack.setAllConfig; emu.env: the same as SVC_* variables
 *   await emu.injectFault({ method: "POST", path: "/webhooks/v1/endpoints", status: 503, count: 1 });
 *   const calls = await emu.requests({ method: "POST" });
 *   await emu.reset();   // between tests: empty service, same keys
 *   await emu.close();
 *
 * Everything but `startTestEmulator` goes through the HTTP control plane
 * (`/_emulator/*`, emulator/README.md), so an emulator in another process works the same.
 */
import { startEmulator, type DefaultKeys, type EmulatorOptions } from "../emulator";
import type { FaultSpec as EmulatorFaultSpec } from "../emulator/core/faults";
import type { LoggedRequest } from "../emulator/core/logged-request";
import { PRODUCTS, settingNames, type Product } from "../provider/config";

export type { DefaultKeys, EmulatorOptions, LoggedRequest };

/*
 * A fault's shape, written out here rather than re-exported: the emulator's is a zod
 * schema, whose typings a program under Pulumi's template tsconfig (no
 * esModuleInterop, no skipLibCheck) cannot type-check. `Same` below keeps it equal
 * to the emulator's.
 */

/** What an injected fault does to a matching request (emulator/README.md, "Faults"). */
export interface FaultAction {
  /** Answer with this status instead of handling the request. */
  status?: number;
  /** Seconds, for a 429 (`Retry-After`). */
  retry_after?: number;
  /** Drop the connection before the service acts. */
  drop?: boolean;
  /** Let the service act, then drop the connection instead of answering. */
  drop_after_response?: boolean;
  /** Drop the connection at once and act this many milliseconds later. */
  drop_then_act_ms?: number;
  /** Delay before handling, in milliseconds. */
  latency_ms?: number;
}

/** A fault for the next `count` requests matching `method` and the path glob (random mode with `rate`). */
export interface FaultSpec extends FaultAction {
  /** HTTP method, or `*` (default) for any. */
  method?: string;
  /** Glob over the request path without query, e.g. `/webhooks/v1/endpoints/**`. */
  path: string;
  /** How many matching requests it applies to (random mode: at most how many faults); default unlimited. */
  count?: number;
  /** Random mode: the probability that a matching request is faulted. */
  rate?: number;
  /** Random mode: the PRNG seed (default 1). */
  seed?: number;
  /** Random mode: the faults to pick from. */
  choices?: FaultAction[];
}

type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
type Holds<T extends true> = T;
// Checked by the compiler though never used: fails the build when the emulator's shapes change.
type FaultSpecMatchesTheEmulator = Holds<Same<FaultSpec, EmulatorFaultSpec>>;

/** A filter of the request log: after a `seq`, one method, a path prefix (e.g. `/webhooks/v1/endpoints`). */
export interface RequestFilter {
  since?: number;
  method?: string;
  pathPrefix?: string;
}

export interface TestEmulator {
  /** e.g. `http://127.0.0.1:41234`. */
  url: string;
  /** The default workspace's ids and keys (they survive `reset`). */
  keys: DefaultKeys;
  /**
   * Stack config for a program against this emulator, with every product's admin key:
   * `svc:webhooksUrl`, `svc:webhooksApiKey`, `svc:inboxesUrl`, `svc:inboxesApiKey`,
   * `svc:infraUrl`, `svc:infraApiKey`. Set the `...ApiKey` values as secrets.
   */
  config: Record<string, string>;
  /** The same settings as environment variables (`SVC_WEBHOOKS_URL`, ...), read when the stack config has none. */
  env: Record<string, string>;
  /** Make the next matching requests fail (a status, a dropped connection, latency); returns the fault's id. */
  injectFault(fault: FaultSpec): Promise<number>;
  /** Remove every injected fault. */
  clearFaults(): Promise<void>;
  /** The API requests the emulator answered (method, path, status; never headers or bodies). */
  requests(filter?: RequestFilter): Promise<LoggedRequest[]>;
  /** The sequence number of the last logged request, to count only what follows: `requests({ since })`. */
  lastSeq(): Promise<number>;
  /** Empty every product, clear faults, the request log and the clock; the default keys stay the same. */
  reset(): Promise<void>;
  /** Stop the emulator (a connected one is left running). */
  close(): Promise<void>;
}

/** Start an emulator on a free port of 127.0.0.1 (options as `startEmulator`'s, e.g. `defaultPlan: "pro"`). */
export async function startTestEmulator(options: EmulatorOptions = {}): Promise<TestEmulator> {
  const running = await startEmulator({ port: 0, ...options });
  return controlClient(running.url, running.keys, () => running.close());
}

/** Use an emulator already running, e.g. `npx pulumi-svc-emulator --port 4010` in CI. */
export async function connectTestEmulator(url: string): Promise<TestEmulator> {
  const base = url.replace(/\/+$/, "");
  const keys = await controlCall<DefaultKeys>(base, "GET", "/keys");
  return controlClient(base, keys, async () => {});
}

/** The admin key of each product in the default workspace. */
function adminKey(keys: DefaultKeys, product: Product): string {
  return keys[product].admin;
}

/** Stack config and environment naming the emulator's products and the default workspace's admin keys. */
export function settingsFor(url: string, keys: DefaultKeys): { config: Record<string, string>; env: Record<string, string> } {
  const config: Record<string, string> = {};
  const env: Record<string, string> = {};
  for (const product of PRODUCTS) {
    const values = { Url: `${url}/${product}`, ApiKey: adminKey(keys, product) } as const;
    for (const setting of ["Url", "ApiKey"] as const) {
      const names = settingNames(product, setting);
      config[names.configKey] = values[setting];
      env[names.envVar] = values[setting];
    }
  }
  return { config, env };
}

function controlClient(url: string, keys: DefaultKeys, close: () => Promise<void>): TestEmulator {
  const call = <T>(method: string, path: string, body?: unknown) => controlCall<T>(url, method, path, body);
  return {
    url,
    keys,
    ...settingsFor(url, keys),
    injectFault: async (fault) => (await call<{ id: number }>("POST", "/faults", fault)).id,
    clearFaults: async () => void (await call("DELETE", "/faults")),
    async requests(filter = {}) {
      const query = new URLSearchParams();
      if (filter.since !== undefined) query.set("since", String(filter.since));
      if (filter.method) query.set("method", filter.method);
      if (filter.pathPrefix) query.set("path_prefix", filter.pathPrefix);
      return (await call<{ requests: LoggedRequest[] }>("GET", `/requests?${query}`)).requests;
    },
    // A `since` past any sequence lists nothing but still answers the last one.
    lastSeq: async () => (await call<{ last_seq: number }>("GET", `/requests?since=${Number.MAX_SAFE_INTEGER}`)).last_seq,
    reset: async () => void (await call("POST", "/reset")),
    close,
  };
}

async function controlCall<T>(base: string, method: string, path: string, body?: unknown): Promise<T> {
  const res = await fetch(`${base}/_emulator${path}`, {
    method,
    headers: body === undefined ? {} : { "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`emulator control ${method} /_emulator${path} answered ${res.status}: ${text}`);
  return (text ? JSON.parse(text) : undefined) as T;
}
