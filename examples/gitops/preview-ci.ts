/**
 * `npm run preview:ci`: the pull-request pipeline's policy gate, run locally
 * against the emulator instead of the real service.
 *
 * 1. starts the emulator on a free port (nothing to configure, no credentials);
 * 2. previews the program with `pulumi preview --policy-pack policy`: the real Pulumi
 *    CLI when it is installed (`npm run pulumi:install`, or `pulumi` on PATH), else
 *    the engine stand-in (test/engine), which says so; `--engine stand-in|cli` chooses;
 * 3. prints the plan summary and every policy violation (and appends both, as
 *    Markdown, to $GITHUB_STEP_SUMMARY when it is set);
 * 4. exits 1 on a mandatory violation or a plan error, 0 otherwise (advisory
 *    violations are printed, not fatal). A bad policy config (unreadable, an unknown
 *    enforcement level, policy name or config property, a value the policy's config
 *    schema rejects) exits 1 naming every problem before anything runs, under either
 *    engine (checkPolicyConfig); SIGINT or SIGTERM stops every process of the run,
 *    removes the throwaway backend and exits 130 or 143.
 *
 *   npm run preview:ci
 *   npm run preview:ci -- --stack prod --policy-config policy-config.json
 *   npm run preview:ci -- --program examples/quickstart --secret teamToken=t0k3n --config receiverUrl=https://hooks.example.com/x
 */
import { appendFileSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { parseArgs } from "node:util";
import { startEmulator } from "../../emulator";
import type { EngineResult } from "../../test/engine/engine";
import { killChildren } from "../../test/engine/children";
import { readPolicyConfigFile, reconcileConfig } from "../../test/engine/policy";
import { standInRunner } from "../../test/engine/runner";
import { cliRunner, type StackRunner } from "../../test/support/runner";
import { PACK_NAME, policies } from "../../policy/pack";

const ROOT = path.resolve(__dirname, "../..");

interface Options {
  program: string;
  stack: string;
  policyConfig?: string;
  /** Stack config, `key=value` ("ns:key" or a key of the program's project). */
  config: Record<string, string>;
  secrets: Record<string, string>;
  runner: StackRunner;
}

function pairs(list: string[] | undefined, flag: string): Record<string, string> {
  return Object.fromEntries(
    (list ?? []).map((pair) => {
      const at = pair.indexOf("=");
      if (at <= 0) throw new Error(`--${flag} takes key=value, got ${JSON.stringify(pair)}`);
      return [pair.slice(0, at), pair.slice(at + 1)];
    }),
  );
}

function options(): Options {
  const { values } = parseArgs({
    options: {
      program: { type: "string", default: path.join(ROOT, "examples/gitops/program") },
      stack: { type: "string", default: "pr" },
      "policy-config": { type: "string" },
      config: { type: "string", multiple: true },
      secret: { type: "string", multiple: true },
      engine: { type: "string" },
    },
  });
  const engine = values.engine ?? (cliRunner.unavailable ? "stand-in" : "cli");
  if (engine !== "cli" && engine !== "stand-in") throw new Error(`--engine takes cli or stand-in, got ${JSON.stringify(engine)}`);
  if (engine === "cli" && cliRunner.unavailable) throw new Error(`--engine cli: ${cliRunner.unavailable}`);
  return {
    program: path.resolve(values.program!),
    stack: values.stack!,
    config: pairs(values.config, "config"),
    secrets: pairs(values.secret, "secret"),
    runner: engine === "cli" ? cliRunner : standInRunner,
    ...(values["policy-config"] ? { policyConfig: path.resolve(values["policy-config"]) } : {}),
  };
}

type Violation = EngineResult["policyViolations"][number];

function violationLine(v: Violation): string {
  const where = v.urn ? v.urn.split("::").slice(-1)[0] : "stack";
  // The policy server puts the policy's description first; keep only the violation itself.
  const message = v.message.slice(v.message.indexOf("\n") + 1);
  return `[${v.enforcementLevel}] ${v.policyName} (${where}): ${message}`;
}

function markdown(opts: Options, result: EngineResult, mandatory: Violation[], advisory: Violation[]): string {
  const rows = [...mandatory, ...advisory].map((v) => `| ${v.enforcementLevel} | \`${v.policyName}\` | ${(v.urn ?? "stack").split("::").slice(-1)[0]} | ${violationLine(v).split(": ").slice(1).join(": ").replace(/\|/g, "\\|")} |`);
  return [
    `### svc preview: \`${path.relative(ROOT, opts.program)}\` on stack \`${opts.stack}\` ${mandatory.length || !result.ok ? "❌" : "✅"}`,
    "",
    "```",
    result.summary.trim(),
    "```",
    "",
    rows.length ? ["| level | policy | resource | violation |", "|---|---|---|---|", ...rows].join("\n") : "No policy violations.",
    "",
  ].join("\n");
}

/**
 * Refuse a bad policy config before anything starts, whatever the engine: checked against
 * the pack as its module declares it, by the check the stand-in runs (one source of truth).
 * The CLI alone would let an unknown policy name given a level, or a misspelt property,
 * through, leaving the policy silently unconfigured.
 */
function checkPolicyConfig(file: string): void {
  const described = policies.map((p) => ({ name: p.name, enforcementLevel: p.enforcementLevel ?? "advisory", ...(p.configSchema ? { configSchema: p.configSchema } : {}) }));
  reconcileConfig({ name: PACK_NAME, policies: described, initialConfig: {} }, readPolicyConfigFile(file), file);
}

async function main(): Promise<number> {
  const opts = options();
  if (opts.policyConfig) checkPolicyConfig(opts.policyConfig);
  const emu = await startEmulator({ port: 0 });
  const stateDir = mkdtempSync(path.join(tmpdir(), "svc-preview-ci-"));
  // SIGINT or SIGTERM to this process alone (a CI runner stopping the step): cancel the
  // run and stop every process it started (a preview writes nothing, so the stand-in's
  // program, provider and policy pack are killed outright; the CLI gets SIGINT and stops
  // its own plugins), then remove the stack's backend and exit 130 or 143 below.
  const abort = new AbortController();
  let stoppedBy: NodeJS.Signals | undefined;
  const stop = (signal: NodeJS.Signals) => {
    stoppedBy ??= signal;
    abort.abort();
    void killChildren();
  };
  process.on("SIGINT", stop).on("SIGTERM", stop);
  try {
    const engine = opts.runner === cliRunner ? "the Pulumi CLI" : `the engine stand-in${cliRunner.unavailable ? ` (${cliRunner.unavailable})` : ""}`;
    process.stdout.write(`Emulator on ${emu.url}; previewing ${path.relative(ROOT, opts.program) || "."} on stack ${opts.stack} with policy pack policy/, with ${engine}\n\n`);
    const result = await opts.runner.run({
      verb: "preview",
      cwd: opts.program,
      stack: opts.stack,
      stateFile: path.join(stateDir, `${opts.stack}.json`),
      config: { "svc:webhooksUrl": emu.webhooksUrl, ...opts.config },
      // A preview only reads: the read-scoped key is enough, as in the real pipeline.
      secrets: { "svc:webhooksApiKey": emu.keys.webhooks.read, ...opts.secrets },
      policyPack: path.join(ROOT, "policy"),
      ...(opts.policyConfig ? { policyConfig: opts.policyConfig } : {}),
      signal: abort.signal,
    });
    if (stoppedBy) {
      process.stderr.write(`preview:ci stopped by ${stoppedBy}\n`);
      return stoppedBy === "SIGINT" ? 130 : 143;
    }
    const mandatory = result.policyViolations.filter((v) => v.enforcementLevel === "mandatory" || v.enforcementLevel === "remediate");
    const advisory = result.policyViolations.filter((v) => v.enforcementLevel === "advisory");

    process.stdout.write(`${result.summary.trim()}\n\n`);
    for (const v of [...mandatory, ...advisory]) process.stdout.write(`${violationLine(v)}\n`);
    // Errors other than the violations listed above (the engine also reports a step or
    // stack analysis stopped by a mandatory violation as an error): check failures, program errors.
    const planErrors = result.diagnostics.filter((d) => d.severity === "error" && d.source !== "policy" && !/mandatory policy violation/.test(d.message));
    for (const d of planErrors) process.stdout.write(`error: ${d.message}\n`);
    const failed = !result.ok || mandatory.length > 0;
    process.stdout.write(
      `\n${failed ? "FAILED" : "OK"}: ${mandatory.length} mandatory and ${advisory.length} advisory policy violation(s)${planErrors.length ? `, ${planErrors.length} plan error(s)` : ""}.\n`,
    );
    if (process.env["GITHUB_STEP_SUMMARY"]) appendFileSync(process.env["GITHUB_STEP_SUMMARY"], markdown(opts, result, mandatory, advisory));
    return failed ? 1 : 0;
  } finally {
    // Stopped: exits only once every process of the run is gone (one started as the signal came is killed here too).
    if (stoppedBy) await killChildren();
    await emu.close();
    rmSync(stateDir, { recursive: true, force: true });
  }
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`preview:ci failed: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  },
);
