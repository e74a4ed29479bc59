/**
 * The fault soak, shared by `npm run soak` (scripts/soak.ts, 200 resources) and the
 * smaller test in `npm test` (soak.test.ts): against the emulator injecting faults
 * on a seeded schedule (429 with Retry-After, 500, 503, dropped connections before,
 * after and while the service acted, latency) at a given rate on every API route,
 *   1. an up of N mixed resources must converge in one run;
 *   2. the emulator must then hold exactly the declared objects (listed without
 *      faults): every id in the state, nothing else new: zero duplicates, zero orphans;
 *   3. a destroy (faults still on) must leave nothing.
 * It reports the client's retries, waits, every unknown create outcome and what the
 * reconciliation made of it, and the faults the emulator injected.
 */
import { StackRunner, configureAll, type PhaseResult } from "../../bench/runner";
import { mixedStack, stackKinds } from "../../bench/stack";
import { startEmulator } from "../../emulator";
import { allProductsConfig } from "../support/stack-config";
import { DEFINITIONS } from "../../provider/registry";
import { SvcClient, clientStats, resetClientStats, type ClientStats } from "../../provider/client";

export interface SoakOptions {
  resources: number;
  rate: number;
  seed: number;
  parallel?: number;
}

export interface SoakReport {
  kinds: string[];
  up: PhaseResult;
  destroy: PhaseResult;
  /** Per kind: declared, held after up, ids in state but not held, held but not in state (new since the start). */
  holdings: Record<string, { declared: number; held: number; missing: string[]; extra: string[] }>;
  leftAfterDestroy: Record<string, string[]>;
  stats: ClientStats;
  injected: Record<string, number>;
  converged: boolean;
}

interface WorkspaceKeys {
  webhooks: { admin: string };
  inboxes: { admin: string };
  infra: { admin: string };
}

export async function runSoak(opts: SoakOptions): Promise<SoakReport> {
  const emu = await startEmulator({ port: 0 });
  try {
    const control = async <T>(method: string, path: string, body?: unknown): Promise<T> => {
      const res = await fetch(`${emu.url}/_emulator${path}`, { method, headers: body ? { "content-type": "application/json" } : {}, body: body ? JSON.stringify(body) : undefined });
      if (res.status >= 300) throw new Error(`control ${method} ${path}: ${res.status} ${await res.text()}`);
      return (res.status === 204 ? undefined : await res.json()) as T;
    };
    const ws = await control<WorkspaceKeys>("POST", "/workspaces", { plan: "enterprise", name: "soak" });
    await configureAll(allProductsConfig(emu, ws));
    const kinds = stackKinds(Object.keys(DEFINITIONS));
    const listAll = async (kind: string) => {
      const def = DEFINITIONS[kind as keyof typeof DEFINITIONS]!;
      const product = def.product as "webhooks" | "inboxes" | "infra";
      const client = new SvcClient({ baseUrl: (emu as unknown as Record<string, string>)[`${product}Url`]!, apiKey: ws[product].admin });
      const idOf = def.idOf ?? ((r: Record<string, unknown>) => String(r[def.idField ?? "id"]));
      return (await client.listAll<Record<string, unknown>>(def.paths.create)).map(idOf);
    };
    const before = Object.fromEntries(await Promise.all(kinds.map(async (k) => [k, new Set(await listAll(k))] as const)));

    // Variant 0: no owner field set, so every create carries its owner mark and a lost answer is proven.
    const decls = mixedStack(opts.resources, 0, kinds);
    const runner = new StackRunner(opts.parallel ?? 16);
    resetClientStats();
    const fault = { method: "*", path: "/**", rate: opts.rate, seed: opts.seed };
    await control("POST", "/faults", fault);
    const up = await runner.up(decls);
    const injected: Record<string, number> = {};
    const collectInjected = async () => {
      const { faults } = await control<{ faults: { injected: Record<string, number> }[] }>("GET", "/faults");
      for (const f of faults) for (const [k, v] of Object.entries(f.injected)) injected[k] = (injected[k] ?? 0) + v;
      await control("DELETE", "/faults");
    };
    await collectInjected();

    const holdings: SoakReport["holdings"] = {};
    for (const kind of kinds) {
      const held = (await listAll(kind)).filter((id) => !before[kind]!.has(id));
      const inState = [...runner.state.values()].filter((h) => h.kind === kind).map((h) => h.id);
      holdings[kind] = {
        declared: decls.filter((d) => d.kind === kind).length,
        held: held.length,
        missing: inState.filter((id) => !held.includes(id)),
        extra: held.filter((id) => !inState.includes(id)),
      };
    }

    await control("POST", "/faults", { ...fault, seed: opts.seed + 1 });
    const destroy = await runner.destroy();
    await collectInjected();
    const leftAfterDestroy: Record<string, string[]> = {};
    for (const kind of kinds) leftAfterDestroy[kind] = (await listAll(kind)).filter((id) => !before[kind]!.has(id));

    const converged =
      up.errors.length === 0 &&
      destroy.errors.length === 0 &&
      Object.values(holdings).every((h) => h.held === h.declared && h.missing.length === 0 && h.extra.length === 0) &&
      Object.values(leftAfterDestroy).every((ids) => ids.length === 0);
    return { kinds, up, destroy, holdings, leftAfterDestroy, stats: clientStats(), injected, converged };
  } finally {
    await emu.close();
  }
}

/** The report as text (what `npm run soak` prints). */
export function formatSoak(opts: SoakOptions, r: SoakReport): string {
  const s = r.stats;
  const lines = [
    `Fault soak: ${opts.resources} resources (${r.kinds.join(", ")}), fault rate ${opts.rate * 100}% on every API route, seed ${opts.seed}, parallel ${opts.parallel ?? 16}`,
    `  up:      ${JSON.stringify(r.up.ops)}, ${r.up.errors.length} errors`,
    ...r.up.errors.slice(0, 10).map((e) => `    ${e.name}: ${e.message}`),
    `  holdings after up (listed without faults):`,
    ...Object.entries(r.holdings).map(([k, h]) => `    ${k}: declared ${h.declared}, held ${h.held}, duplicates/orphans ${h.extra.length}${h.extra.length ? ` ${h.extra.join(", ")}` : ""}, missing ${h.missing.length}`),
    `  destroy: ${JSON.stringify(r.destroy.ops)}, ${r.destroy.errors.length} errors; left after destroy: ${Object.values(r.leftAfterDestroy).flat().length}`,
    ...r.destroy.errors.slice(0, 10).map((e) => `    ${e.name}: ${e.message}`),
    `  faults injected: ${JSON.stringify(r.injected)}`,
    `  client: ${s.requests} requests, ${s.attempts} attempts, ${s.retries} retries ${JSON.stringify(s.retriesByCause)}, waited ${(s.waitedMs / 1000).toFixed(1)} s, failures ${JSON.stringify(s.failures)}`,
    `  unknown create outcomes: ${s.unknownOutcomes.length}`,
    ...s.unknownOutcomes.map((u) => `    ${u.method} ${u.path} (${u.what}; request ${u.requestId})`),
    `  reconciled: ${JSON.stringify(countBy(s.reconciled.map((x) => x.result)))}`,
    ...s.reconciled.filter((x) => x.result !== "recreated").map((x) => `    ${x.kind}: ${x.result}${x.id ? ` ${x.id}` : ""}${x.candidates ? ` ${x.candidates.join(", ")}` : ""}`),
    `  converged in one run, exactly the declared objects, nothing left: ${r.converged ? "YES" : "NO"}`,
  ];
  return lines.join("\n");
}

function countBy(xs: string[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const x of xs) out[x] = (out[x] ?? 0) + 1;
  return out;
}
