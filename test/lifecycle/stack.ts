/**
 * The lifecycle program's stack (test/lifecycle/program) against an emulator: the
 * config every run gives and the API calls a run made.
 */
import { join } from "node:path";
import type { RunningEmulator } from "../../emulator";
import { DEFINITIONS } from "../../provider/registry";
import type { ResourceKind } from "../../sdk/tokens";
import type { EngineOptions, EngineResult } from "../support/run-types";
import type { Workspace } from "../provider/support";
import { compiledProgram } from "../support/compiled-program";
import { lastSeq, requestsSince } from "../support/emulator";
import { emulatorStack, type EmulatorUrls } from "../support/stack-config";
import { FIXTURES, type Props } from "./fixtures";

/** The lifecycle program as written (its Pulumi.yaml runs index.ts through tsx). */
const PROGRAM_SOURCE = join(__dirname, "program");

/** What the suites run: the lifecycle program compiled to JavaScript once (test/support/compiled-program.ts). */
export const PROGRAM = compiledProgram(PROGRAM_SOURCE);

export interface Declared {
  kind: string;
  name: string;
  inputs: Props;
}

type Verb = EngineOptions["verb"];

/** Every fixture's secret values, as the program's secret config `lifecycle:<k>`. */
export function fixtureSecrets(): Record<string, string> {
  const out: Record<string, string> = {};
  for (const f of Object.values(FIXTURES)) for (const [k, v] of Object.entries(f!.secrets ?? {})) out[`lifecycle:${k}`] = v;
  return out;
}

/**
 * The run's options: every product's address, the workspace's keys as secret config
 * (infra: the member's by default, the admin's through profile `infraAdmin`), the
 * declared resources, and no environment fallback.
 */
export function stackOptions(emu: EmulatorUrls, ws: Workspace, verb: Verb, stack: string, stateFile: string, resources: Declared[]): EngineOptions {
  return {
    verb,
    cwd: PROGRAM,
    stack,
    stateFile,
    ...emulatorStack(
      emu,
      { webhooks: ws.webhooks.admin, inboxes: ws.inboxes.admin, infra: ws.infra.member },
      {
        config: { "lifecycle:resources": JSON.stringify(resources) },
        secrets: { ...fixtureSecrets(), "svc:profiles": JSON.stringify({ infraAdmin: { infraUrl: emu.infraUrl, infraApiKey: ws.infra.admin } }) },
      },
    ),
  };
}

/** `METHOD /path` of each API call after `since`, the product prefix and query left out. */
export async function callsSince(emu: RunningEmulator, since: number): Promise<string[]> {
  return (await requestsSince(emu, since)).map((r) => `${r.method} ${r.path.replace(/^\/(webhooks|inboxes|infra)(?=\/)/, "")}`);
}

/** Run `fn` and return what it returned and the writes (every call but GET) it made. */
export async function writesDuring<T>(emu: RunningEmulator, fn: () => Promise<T>): Promise<{ result: T; writes: string[] }> {
  const since = await lastSeq(emu);
  const result = await fn();
  return { result, writes: (await callsSince(emu, since)).filter((c) => !c.startsWith("GET ")) };
}


export const errorsOf = (r: EngineResult) => r.diagnostics.filter((d) => d.severity === "error").map((d) => d.message).join("\n");

/** The kind of a state resource or step by its type token, e.g. `webhooks:Endpoint`. */
export function kindOfType(type: string): ResourceKind | undefined {
  const m = /^pulumi-nodejs:dynamic\/svc\/(\w+):(\w+)$/.exec(type);
  const kind = m ? (`${m[1]}:${m[2]}` as ResourceKind) : undefined;
  return kind && DEFINITIONS[kind] ? kind : undefined;
}
