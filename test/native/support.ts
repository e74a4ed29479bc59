/**
 * The native plugin under the real CLI: `pulumi-resource-svc` on PATH beside `pulumi`,
 * as the package's bin puts it there for a user (a launcher of dist/native/main.js, so
 * `npm run build` first), and a stack of a YAML or Python program written by the test.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import type { RunningEmulator } from "../../emulator";
import type { EngineOptions, Verb } from "../support/run-types";
import type { Workspace } from "../provider/support";
import { control } from "../support/emulator";
import { nativePath } from "../support/native-plugin";
import { pulumiAsync, runCli, stackArgs, type CliOptions } from "../support/pulumi-cli";

export { NATIVE_MISSING, PLUGIN_MAIN, PLUGIN_MISSING, pluginBinDir, nativePath } from "../support/native-plugin";

export interface NativeStack {
  dir: string;
  ws: Workspace;
  /** Options of one run of the program with these project config values (`key` in the project's namespace). */
  options(verb: Verb, config?: Record<string, string>, secrets?: Record<string, string>): EngineOptions;
  /** `more`: e.g. a fresh runner's `env` (over the stack's own) and a `signal` that kills the run. */
  run(verb: Verb, config?: Record<string, string>, secrets?: Record<string, string>, more?: Partial<CliOptions>): ReturnType<typeof runCli>;
  /**
   * `pulumi ARGS` of this stack (made by a run first; `withStack: false` for a command of no stack, `"no-config"` for one
   * that names the stack but takes no `--config-file`, such as `stack export` or `state unprotect`) in the program's
   * directory: its exit code and stdout.
   */
  pulumi(args: string[], opts?: { withStack?: boolean | "no-config" }): Promise<{ code: number; output: string; stderr: string }>;
}

/** A program in a language other than YAML. */
export interface ProgramFiles {
  /** Pulumi.yaml after `name`: its `runtime` section. */
  project: string;
  /** The program's files, by name. */
  files: Record<string, string>;
  /** Directories first on PATH: the language host, when it is not beside the CLI. */
  binDirs: string[];
}

/**
 * A fresh workspace of the emulator and a stack of `program`: a YAML program (Pulumi.yaml's
 * text after `name` and `runtime`), or the files of a program in another language.
 * `plaintextKeys`: the stack's API keys are set without `--secret`, as a careless user sets them.
 * `env`: the CLI's environment over the default; its PATH (after the program's `binDirs`) replaces the one
 * with the plugin's launcher, for a plugin the CLI fetches itself.
 */
export async function nativeStack(
  emu: RunningEmulator,
  name: string,
  program: string | ProgramFiles,
  shared: { ws?: Workspace; plaintextKeys?: boolean; env?: Record<string, string> } = {},
): Promise<NativeStack> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `svc-native-${name}-`));
  const { project, files, binDirs }: ProgramFiles = typeof program === "string" ? { project: `runtime: yaml\n${program}`, files: {}, binDirs: [] } : program;
  fs.writeFileSync(path.join(dir, "Pulumi.yaml"), `name: ${name}\n${project}`);
  for (const [file, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    fs.writeFileSync(path.join(dir, file), text);
  }
  const ws = shared.ws ?? (await control<Workspace>(emu, "POST", "/workspaces", { plan: "enterprise" }));
  const stateFile = path.join(dir, "state", "stack.json");
  const keys = { "svc:webhooksApiKey": ws.webhooks.admin, "svc:inboxesApiKey": ws.inboxes.admin, "svc:infraApiKey": ws.infra.member };
  const env = {
    ...{ SVC_WEBHOOKS_API_KEY: "", SVC_INBOXES_API_KEY: "", SVC_INFRA_API_KEY: "", SVC_WEBHOOKS_URL: "", SVC_INBOXES_URL: "", SVC_INFRA_URL: "" },
    ...shared.env,
    PATH: [...binDirs, shared.env?.["PATH"] ?? nativePath()].join(path.delimiter),
  };
  const options = (verb: Verb, config: Record<string, string> = {}, secrets: Record<string, string> = {}): EngineOptions => ({
    verb,
    cwd: dir,
    stack: "dev",
    stateFile,
    config: { "svc:webhooksUrl": emu.webhooksUrl, "svc:inboxesUrl": emu.inboxesUrl, "svc:infraUrl": emu.infraUrl, ...(shared.plaintextKeys ? keys : {}), ...prefixed(name, config) },
    secrets: { ...(shared.plaintextKeys ? {} : keys), ...prefixed(name, secrets) },
    env,
  });
  return {
    dir,
    ws,
    options,
    run: (verb, config, secrets, more = {}) => {
      const given = options(verb, config, secrets);
      return runCli({ ...given, ...more, env: { ...given.env, ...more.env } });
    },
    pulumi: (args, { withStack = true } = {}) => {
      const named = withStack === false ? [] : withStack === "no-config" ? ["--stack", options("preview").stack] : stackArgs(options("preview"));
      return pulumiAsync(options("preview"), [...args, ...named]);
    },
  };
}

const prefixed = (project: string, values: Record<string, string>) => Object.fromEntries(Object.entries(values).map(([k, v]) => [k.includes(":") ? k : `${project}:${k}`, v]));

/** The engine's name of a default provider of the plugin at `version` (pkg/resource/deploy/providers: its parts joined by underscores). */
export const defaultProviderName = (version: string) => `default_${version.replace(/[.+-]/g, "_")}`;

/** API writes (anything but GET) among `requests`, as "METHOD path". */
export const writesOf = (requests: { method: string; path: string }[]) => requests.filter((r) => r.method !== "GET").map((r) => `${r.method} ${r.path}`);

