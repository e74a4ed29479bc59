// What `pulumi up` does around the update itself (pkg/cmd/pulumi/operations/up.go,
// pkg/backend/apply.go): refresh first with --refresh, preview first unless
// --skip-preview, and stop, changing nothing, when the preview fails.

import { formatSummary } from "./summary";
import type { EngineOptions, EngineResult, Step } from "../support/run-types";

type Deploy = (opts: EngineOptions) => Promise<EngineResult>;

/** `up`: [refresh], [preview], update; each stage runs only when the one before succeeded. */
export async function runUp(opts: EngineOptions, deploy: Deploy): Promise<EngineResult> {
  if (opts.refresh) {
    // --expect-no-changes judges the update, not the refresh.
    const refreshed = await deploy({ ...opts, verb: "refresh", expectNoChanges: false });
    if (!refreshed.ok) return asUp(refreshed, opts, "the refresh before the update failed: no changes were made");
  }
  if (!opts.skipPreview) {
    const preview = await deploy({ ...opts, verb: "preview" });
    if (!preview.ok) return { ...asUp(preview, opts, "the preview failed: no changes were made (run with skipPreview / --skip-preview to update without one)"), preview };
    if (opts.signal?.aborted) return { ...asUp(preview, opts, "the up was cancelled before the update started"), exitCode: 8, cancelled: true, preview };
    const update = await deploy(opts);
    return { ...update, preview };
  }
  return deploy(opts);
}

/** A stage that stopped the up: its diagnostics, no steps (nothing was done), its exit code. */
function asUp(stage: EngineResult, opts: EngineOptions, why: string): EngineResult {
  const result: EngineResult = {
    ...stage,
    verb: "up",
    steps: [],
    outputs: {},
    diagnostics: [...stage.diagnostics, { severity: "error", source: "engine", message: why }],
    summary: "",
  };
  result.summary = formatSummary(result, opts.stack);
  return result;
}

/** Steps that change something: all but "same" and "read" (what --expect-no-changes refuses). */
export function changedSteps(steps: Step[]): string[] {
  return steps.filter((s) => s.op !== "same" && s.op !== "read").map((s) => `${s.op} ${s.name}`);
}
