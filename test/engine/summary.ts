// The human summary: one line per resource that changes, then diagnostics,
// policy violations, stack outputs (secrets as [secret]) and counts.

import type { EngineResult, Step, StepOp } from "../support/run-types";

const SYMBOL: Record<StepOp, string> = { create: "+", update: "~", replace: "+-", delete: "-", same: " ", read: ">" };

export function formatSummary(r: EngineResult, stack: string): string {
  const out: string[] = [];
  const title = { preview: "Previewing update", up: "Updating", refresh: "Refreshing", destroy: "Destroying" }[r.verb];
  out.push(`${title} (${stack}):`);
  const shown = r.steps.filter((s) => s.op !== "same" || s.failed);
  const typeWidth = Math.max(4, ...shown.map((s) => s.type.length));
  const nameWidth = Math.max(4, ...shown.map((s) => s.name.length));
  for (const s of shown) {
    out.push(`  ${SYMBOL[s.op].padEnd(3)}${s.type.padEnd(typeWidth + 2)}${s.name.padEnd(nameWidth + 2)}${stepText(s, r.verb)}`);
  }
  if (r.diagnostics.length) {
    out.push("", "Diagnostics:");
    for (const d of r.diagnostics) {
      const where = d.urn ? ` (${d.urn.split("::").slice(3).join("::")})` : "";
      const text = d.message.split("\n").join("\n      ");
      out.push(`    ${d.severity}${where}: ${text}`);
    }
  }
  if (r.policyViolations.length) {
    out.push("", "Policy Violations:");
    for (const v of r.policyViolations) {
      const where = v.urn ? ` (${v.urn.split("::").slice(3).join("::")})` : "";
      out.push(`    [${v.enforcementLevel}] ${v.policyPack}: ${v.policyName}${where}`, `      ${v.message.split("\n").join("\n      ")}`);
    }
  }
  if (r.pendingOperations.length) {
    out.push("", "Pending operations from an interrupted run:");
    for (const p of r.pendingOperations) out.push(`    ${p.op} ${p.urn}${p.id ? ` (id ${p.id})` : ""}`);
  }
  const outputs = Object.entries(r.outputs);
  if (outputs.length) {
    out.push("", "Outputs:");
    for (const [k, v] of outputs) out.push(`    ${k}: ${v === "[secret]" || v === "[unknown]" ? v : JSON.stringify(v)}`);
  }
  out.push("", "Resources:");
  const counts = new Map<StepOp, number>();
  for (const s of r.steps) if (!s.failed) counts.set(s.op, (counts.get(s.op) ?? 0) + 1);
  const verbs: Record<StepOp, string> = r.verb === "preview"
    ? { create: "to create", update: "to update", replace: "to replace", delete: "to delete", same: "unchanged", read: "to read" }
    : r.verb === "refresh"
      ? { create: "created", update: "drifted (refreshed)", replace: "replaced", delete: "gone (dropped from state)", same: "unchanged", read: "read" }
      : { create: "created", update: "updated", replace: "replaced", delete: "deleted", same: "unchanged", read: "read" };
  for (const op of ["create", "update", "replace", "delete", "read", "same"] as StepOp[]) {
    const n = counts.get(op);
    if (n) out.push(`    ${op === "same" ? "" : `${SYMBOL[op]} `}${n} ${verbs[op]}`);
  }
  const failed = r.steps.filter((s) => s.failed).length;
  if (failed) out.push(`    ${failed} failed`);
  out.push("", r.ok ? "Result: ok" : "Result: FAILED");
  return out.join("\n");
}

function stepText(s: Step, verb: string): string {
  let t: string = s.op;
  if (verb === "refresh" && s.op === "update") t = "drift";
  if (s.diffs.length) t += ` [diff: ${s.diffs.map((d) => `~${d}`).join(", ")}]`;
  if (s.op === "replace") t += s.deleteBeforeReplace ? " (delete before replace)" : " (create before delete)";
  if (s.failed) t += " **failed**";
  return t;
}
