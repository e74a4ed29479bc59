/**
 * The emulator's command-line flags, declared once: each entry is the flag, its value's
 * name (none for a switch), its help line and how it sets the emulator's options, which
 * validates the value. parseArgs (strict) refuses anything else. Adding a flag is one
 * entry in FLAGS.
 */
import { parseArgs, type ParseArgsConfig } from "node:util";
import type { EmulatorOptions } from "./core/context";
import { PLAN_NAMES, type PlanName } from "./core/plans";
import { DEFAULT_REQUEST_LOG_SIZE } from "./core/request-log";
import { DEFAULT_STATE_WRITE_DELAY_MS } from "./core/store";

/** A bad command line: printed with the accepted flags, exit code 2. */
export class UsageError extends Error {}

export interface Flag {
  name: string;
  /** The value's name in the help (e.g. `PATH`); absent for a switch. */
  value?: string;
  help: string;
  /** Set the option from the value (a string, or true for a switch); throw UsageError when it is not valid. */
  apply(options: EmulatorOptions, value: string | true): void;
}

function integer(flag: string, value: string | true, min: number, max = Number.MAX_SAFE_INTEGER): number {
  const n = Number(value);
  if (typeof value !== "string" || !/^\d+$/.test(value) || n < min || n > max) throw new UsageError(`--${flag} must be a whole number from ${min} to ${max}, got "${String(value)}"`);
  return n;
}

function decimal(flag: string, value: string | true, min: number, max: number): number {
  const n = Number(value);
  if (typeof value !== "string" || value.trim() === "" || !Number.isFinite(n) || n < min || n > max) throw new UsageError(`--${flag} must be a number from ${min} to ${max}, got "${String(value)}"`);
  return n;
}

function oneOf<T extends string>(flag: string, value: string | true, accepted: readonly T[]): T {
  if (!accepted.includes(value as T)) throw new UsageError(`--${flag} must be one of ${accepted.join(", ")}, got "${String(value)}"`);
  return value as T;
}

function httpUrl(flag: string, value: string | true): string {
  const ok = typeof value === "string" && URL.canParse(value) && /^https?:$/.test(new URL(value).protocol);
  if (!ok) throw new UsageError(`--${flag} must be an http(s) URL such as https://bins.svc.test, got "${String(value)}"`);
  return value;
}

export const FLAGS: Flag[] = [
  { name: "port", value: "PORT", help: "port on 127.0.0.1; 0 picks a free one (default 4010)", apply: (o, v) => (o.port = integer("port", v, 0, 65535)) },
  { name: "state-file", value: "PATH", help: `keep state in PATH across restarts (written behind within ${DEFAULT_STATE_WRITE_DELAY_MS} ms, flushed on stop)`, apply: (o, v) => (o.stateFile = String(v)) },
  { name: "plan", value: PLAN_NAMES.join("|"), help: "plan of the default workspace (default free)", apply: (o, v) => (o.defaultPlan = oneOf<PlanName>("plan", v, PLAN_NAMES)) },
  { name: "allow-loopback-targets", help: "let endpoint test/verify and deliveries call HTTPS receivers on loopback", apply: (o) => (o.allowLoopbackTargets = true) },
  { name: "bin-public-url", value: "URL", help: "public base of request-bin URLs, e.g. https://bins.svc.test", apply: (o, v) => (o.binPublicUrl = httpUrl("bin-public-url", v)) },
  { name: "request-log-size", value: "N", help: `entries the request log keeps, oldest dropped first (default ${DEFAULT_REQUEST_LOG_SIZE})`, apply: (o, v) => (o.requestLogSize = integer("request-log-size", v, 1, 10_000_000)) },
  { name: "rate-limit", value: "R", help: "requests per second per API key, 429 rate_limited above it (default: no limit)", apply: (o, v) => (o.rateLimit = decimal("rate-limit", v, 0.001, 1_000_000)) },
  { name: "burst", value: "B", help: "requests a key may send at once under --rate-limit (default: the rate)", apply: (o, v) => (o.burst = integer("burst", v, 1, 1_000_000)) },
  { name: "latency", value: "MS", help: "milliseconds added before every API answer, as a remote service (default 0)", apply: (o, v) => (o.latencyMs = integer("latency", v, 0, 60_000)) },
  { name: "jitter", value: "MS", help: "up to this many more milliseconds, at random, on top of --latency (default 0)", apply: (o, v) => (o.jitterMs = integer("jitter", v, 0, 60_000)) },
  { name: "help", help: "print this help and exit", apply: () => undefined },
];

export const EXIT_CODES: [number, string][] = [
  [0, "stopped by SIGINT or SIGTERM (state flushed), or --help"],
  [1, "could not start (port in use, state file unreadable)"],
  [2, "bad command line (unknown flag, bad value)"],
];

const usage = (f: Flag) => `--${f.name}${f.value ? ` ${f.value}` : ""}`;

export function helpText(): string {
  const width = Math.max(...FLAGS.map((f) => usage(f).length));
  return [
    "Usage: pulumi-svc-emulator [flags]",
    "",
    "Runs the svc emulator (Webhooks, Inboxes, Infrastructure) on 127.0.0.1.",
    "",
    "Flags:",
    ...FLAGS.map((f) => `  ${usage(f).padEnd(width)}  ${f.help}`),
    "",
    "Exit codes:",
    ...EXIT_CODES.map(([code, why]) => `  ${code}  ${why}`),
    "",
  ].join("\n");
}

/** The accepted flags, for a refusal message. */
export const acceptedFlags = () => `accepted flags: ${FLAGS.map(usage).join(", ")}`;

/** The emulator's options from a command line, or `help: true`; throws UsageError. */
export function parseCommandLine(args: string[]): { options: EmulatorOptions; help: boolean } {
  const config: ParseArgsConfig["options"] = Object.fromEntries(FLAGS.map((f) => [f.name, { type: f.value ? "string" : "boolean" }]));
  let values: Record<string, string | boolean | undefined>;
  try {
    values = parseArgs({ args, options: config, strict: true, allowPositionals: false }).values as Record<string, string | boolean | undefined>;
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  const options: EmulatorOptions = { port: 4010 };
  for (const flag of FLAGS) {
    const value = values[flag.name];
    if (value !== undefined && value !== false) flag.apply(options, value);
  }
  return { options, help: values.help === true };
}
